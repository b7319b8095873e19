"""About & settings: what is configured (never the key), where runs live, how to connect a model."""

import streamlit as st

from ifworld import llm, registry
from ifworld.toolkit import DEMO_MODEL, DEMO_URL
from ui.common import current_settings, model_ready, store
from ui.connection_view import connection_check, status_box
from ui.signin_view import signin_sessions_panel

st.title("⚙️ About & settings")
settings = current_settings()

st.subheader("Model connection")
if model_ready("the what-if engine, the RWS patterns and LLM belief agents"):
    slot = st.empty()  # filled after the test button below, so a test just made colours it
    if settings.model == DEMO_MODEL:
        st.warning("Model `demo` is the name `ifworld demo-server` answers to: if that is what runs at this URL, "
                   "every answer is canned text labelled [demo] — for trying the app, not analysis.", icon="🧪")
    connection_check("settings_test")
    status_box(settings, slot)  # coloured by the last test or call, not by being configured
public = settings.public_dict()
st.dataframe(
    [{"setting": k, "value": str(v)} for k, v in public.items() if k != "role_models"],
    hide_index=True, width="stretch",
)
if settings.role_models:
    st.write("Per-role model overrides")
    st.dataframe([{"role": r, "model": m} for r, m in settings.role_models.items()], hide_index=True)

failed = registry.plugin_errors()  # outside packages' extensions (entry-point group ifworld.extensions)
if failed:
    st.subheader("Extensions")
    for message in failed:
        st.warning(message, icon="🧩")
    st.caption("These installed extensions could not be loaded; everything else works without them.")

st.subheader("Tracing (LangSmith)")
if llm.tracing_requested():
    names = ", ".join(f"`{k}={v}`" for k, v in llm.tracing_env().items())
    st.warning(f"{names} is set in the environment: LangChain sends every prompt and model reply of this app "
               f"to LangSmith (project `{llm.project()}`). IF-World itself never turns tracing on.", icon="📡")
    on = st.toggle("Send traces to LangSmith", value=llm.tracing_active(), key="settings_tracing",
                   help="Applies to every session of this app process until it restarts.")
    if on != llm.tracing_active():
        llm.set_tracing(on)
    st.caption("Tracing is **on**: prompts leave this machine." if llm.tracing_active() else
               "Tracing is **off** for this app process: prompts go only to your model endpoint.")
else:
    st.caption("LangSmith tracing is off (`LANGSMITH_TRACING` is not set): prompts go only to your model endpoint.")

st.subheader("Run store")
runs = store().list_runs(limit=10_000)
st.write(f"`{settings.store_label}` — {len(runs)} saved runs. Set `IFWORLD_DB` to another file or URL.")

signin_sessions_panel()

st.subheader("Environment variables")
st.markdown(
    """
| variable | meaning |
|---|---|
| `IFWORLD_BASE_URL` | OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama) |
| `IFWORLD_API_KEY` / `OPENAI_API_KEY` | API key (with only `OPENAI_API_KEY`, the endpoint is OpenAI's) |
| `IFWORLD_MODEL` | default model name |
| `IFWORLD_MODEL_<ROLE>` | per-role model, e.g. `IFWORLD_MODEL_JUDGE=gpt-4o` (`__` = `.`) |
| `IFWORLD_TEMPERATURE`, `IFWORLD_MAX_CONCURRENCY`, `IFWORLD_TIMEOUT_S`, `IFWORLD_MAX_RETRIES` | call behaviour |
| `IFWORLD_DB` | run store file (default `~/.ifworld/runs.sqlite`) |

The same names can be put at the top level of `.streamlit/secrets.toml`. The sidebar overrides both for this
browser session only.
"""
)
st.caption(f"No model at hand? `ifworld demo-server --port 8765` serves canned answers labelled [demo] for every "
           f"role: set `IFWORLD_BASE_URL={DEMO_URL}` and `IFWORLD_MODEL={DEMO_MODEL}` to try the app with it.")
st.caption("IF-World Studio binds 127.0.0.1 by default; see the README to share it with a workshop.")
