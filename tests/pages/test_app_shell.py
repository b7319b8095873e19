"""AppTest: the shell and every page render without error, with and without a model configured."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = [f"app_pages/{name}.py" for name in ("home", "whatif", "causal_map", "runs", "rws_browse", "rws_benchmark",
                                              "beliefs", "belief_sweep", "settings")]


def run_page(page: str) -> AppTest:
    """Open ``page`` as the first run (AppTest drops the sidebar on reruns under st.navigation)."""
    at = AppTest.from_file(APP, default_timeout=60)
    if page != "app_pages/home.py":
        at.switch_page(page)
    return at.run()


def test_landing_page_links_three_tools() -> None:
    at = run_page("app_pages/home.py")
    assert at.title[0].value.startswith("🌍 IF-World Studio")
    assert [s.value for s in at.subheader][:3] == ["🌋 What-if scenarios", "🗣️ Belief exchange",
                                                   "☀️ Reasoning With a Star"]
    assert "no model connected" in " ".join(c.value for c in at.sidebar.caption)


TITLES = {"home": "🌍 IF-World Studio", "whatif": "🌋 What-if", "causal_map": "🕸️ Causal map", "runs": "🗂️ Runs",
          "rws_browse": "☀️ RWS browse", "rws_benchmark": "📊 The RWS benchmark", "beliefs": "🗣️ Belief exchange",
          "belief_sweep": "🧪 Belief sweep", "settings": "⚙️ About & settings"}
NEEDS_MODEL = {"whatif", "rws_benchmark", "beliefs", "settings"}  # pages with an LLM feature


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_model(page: str) -> None:
    """Each page opens on its own title; pages with an LLM feature say how to connect a model, the others
    do not (their features work without one)."""
    at = run_page(page)
    name = page.removeprefix("app_pages/").removesuffix(".py")
    assert not at.exception, at.exception
    assert at.title[0].value.startswith(TITLES[name])
    panel = any("A language model is needed for" in i.value for i in at.info)
    assert panel is (name in NEEDS_MODEL), name


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_model(page: str, llm_env) -> None:
    at = run_page(page)
    assert not at.exception, at.exception
    assert at.title, f"{page} shows no title"


def test_sidebar_shows_connected_model(llm_env) -> None:
    # AppTest drops sidebar elements when it switches pages under st.navigation, so check on the home page.
    at = run_page("app_pages/home.py")
    assert "fake-model" in " ".join(c.value for c in at.sidebar.caption)


def test_settings_page_explains_connection_without_model() -> None:
    at = run_page("app_pages/settings.py")
    text = " ".join(i.value for i in at.info)
    assert "IFWORLD_BASE_URL" in text and "Ollama" in text


def test_sidebar_test_connection(llm_env) -> None:
    at = run_page("app_pages/settings.py")
    at.button(key="settings_test").click().run()
    shown = at.success[1].value
    assert "fake-model" in shown and " ms · " in shown and "tokens/s" in shown
    assert "structured output: json_schema" in shown
    assert "context window 32,768 tokens (default (the server does not say))" in shown
    assert llm_env.count() == 2  # a plain call (latency, speed) and the structured probe
    llm_env.inject("500", times=1)
    at.button(key="settings_test").click().run()
    assert "500" in at.error[0].value


def test_sidebar_key_is_never_rendered(llm_env, monkeypatch) -> None:
    monkeypatch.setenv("IFWORLD_API_KEY", "sk-visible-NOT")
    at = run_page("app_pages/settings.py")
    assert "sk-visible-NOT" not in str(at._tree)


def test_every_warm_up_module_imports() -> None:
    from ui.warmup import PAGE_MODULES, warm_imports
    assert warm_imports() == []
    assert warm_imports(("ifworld.no_such_module",)) == ["ifworld.no_such_module"]  # reported, never raised
    assert {"ui.runs_view", "ui.beliefs_view", "ui.rws_view", "ui.whatif_view"} <= set(PAGE_MODULES)


def test_the_requested_page_is_read_from_the_address() -> None:
    from ui.not_found import requested_path
    assert requested_path("http://127.0.0.1:8501", "") == ""
    assert requested_path("http://127.0.0.1:8501/belief_exchange", "") == "belief_exchange"
    assert requested_path("http://host/studio/belief_exchange/", "/studio") == "belief_exchange"
    assert requested_path("http://host/studio", "studio") == ""
    assert requested_path("http://host/a%20b", "") == "a b"
    assert requested_path(None, "") == ""


def test_the_app_script_runs_bare_without_a_router() -> None:
    """A worker process started with "spawn" re-runs the parent's ``__main__``; after a page test that is app.py,
    run bare (no Streamlit server). It must neither fail nor start the import thread."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "IFWORLD_WARMUP"}
    env["PYTHONPATH"] = str(Path(APP).parent)
    proc = subprocess.run([sys.executable, APP], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr


def test_the_served_app_has_no_source_watcher_and_no_full_gc_after_each_run() -> None:
    """Both cost a class in a workshop (benchmarks/bench_workshop.py): watchdog's inotify watcher reports every
    file open below the app, .venv included, and re-walked the tree on each queue overflow; a full
    gc.collect(2) after every fragment rerun was 75 % of the server's CPU. ``ifworld app`` passes the same file
    as flags."""
    import tomllib

    from ifworld.cli import streamlit_flags

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text("utf-8"))
    assert config["server"]["fileWatcherType"] == "none" and config["server"]["runOnSave"] is False
    assert config["runner"]["postScriptGC"] is False
    assert {"--server.fileWatcherType=none", "--runner.postScriptGC=false"} <= set(streamlit_flags(root))
