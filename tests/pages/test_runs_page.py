"""AppTest: the Runs page lists, opens, exports, replays, compares and deletes saved runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ifworld import runs
from ifworld.runs.store import get_store
from tests.whatif.records import sample_record

TIMEOUT = 60
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _save(record: dict, title: str, workflow: str = "whatif.ifworld") -> str:
    store = get_store()
    run_id = store.create_run("whatif", workflow, record["params"], title)
    store.finish_run(run_id, record, record["usage"])
    return run_id


@pytest.fixture
def two_runs() -> tuple[str, str]:
    judged = {"rigor_traceability": 20, "integration_causality": 18, "feasibility_minimality": 15,
              "uncertainty_adaptation": 10, "decisionability": 12, "overall": 75, "rationale": "solid"}
    a = _save(sample_record("ifworld", judge=judged), "IF-World: Moon")
    b = _save(sample_record("debate", judge={**judged, "overall": 60, "decisionability": 5}), "Debate: Moon",
              "whatif.debate")
    return a, b


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("app_pages/runs.py")
    return at.run()


def test_lists_opens_and_exports(two_runs: tuple[str, str]) -> None:
    a, b = two_runs
    at = _open()
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame["id"]) == [b, a]  # newest first
    assert at.selectbox(key="runs_open").value == b
    at.selectbox(key="runs_open").set_value(a).run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "Executive verdict" in text and "What if the Moon disappeared?" in text
    assert any("Judge: 75" in m.value for m in at.markdown)
    exported = json.loads(runs.export_run(a, "json", store=get_store()))
    assert exported["record"]["method"] == "ifworld"
    assert "Moon" in runs.export_run(a, "md", store=get_store())


def test_search_and_filters(two_runs: tuple[str, str]) -> None:
    at = _open()
    at.text_input(key="runs_search").set_value("Debate").run()
    assert list(at.dataframe[0].value["title"]) == ["Debate: Moon"]
    at.text_input(key="runs_search").set_value("").run()
    at.selectbox(key="runs_status").set_value("interrupted").run()
    assert not at.exception and any("No saved runs match" in i.value for i in at.info)


def test_compare_two_whatif_runs(two_runs: tuple[str, str]) -> None:
    a, b = two_runs
    at = _open()
    assert at.selectbox(key="runs_cmp_a").value == b
    assert at.selectbox(key="runs_cmp_b").value == a
    charts = [c for c in at.get("plotly_chart")]
    assert len(charts) >= 2  # radar + bars (+ report charts)
    assert any(m.value == "#### Usage" for m in at.markdown)
    caption = next(c.value for c in at.caption if c.value.startswith("A: "))  # the tokens beside the scores
    # each side named by proposition (clipped), method and start time — not "A: debate / B: ifworld" (#42 item 5c)
    when = r"\d{1,2} [A-Z][a-z]{2} \d\d:\d\d"
    assert re.search(rf"A: What if the Moon[^·]*… · debate · {when} — 1,050 tokens", caption), caption
    assert re.search(rf"B: What if the Moon[^·]*… · ifworld · {when} — 1,050 tokens", caption), caption
    labels = {t.get("name", "") for c in charts for t in json.loads(c.proto.spec)["data"]}
    # the charts' legends (half-width columns) are short: side, method, time — the caption above names the runs whole
    assert any(re.fullmatch(r"B · ifworld · \d\d:\d\d", n) for n in labels), labels
    table = next(d.value for d in at.dataframe if "Metric" in d.value.columns)
    assert [c for c in table.columns if c != "Metric"] == [line.split(" — ")[0] for line in caption.split("  \n")]


def _step_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Step "))


def test_replay_from_record_steps_through(two_runs: tuple[str, str]) -> None:
    """The slider counts steps from 1 and the caption says the same number, in the user's words (today:
    "Step -1 · wrote: __start__" at slider 0, and "Step 8" at slider 9)."""
    at = _open()
    slider = at.slider(key="runs_replay_pos")
    assert (slider.min, slider.value, slider.max) == (1, 1, 9)
    assert _step_caption(at) == "Step 1 of 9 · Refined the scenario"
    slider.set_value(2).run()
    assert _step_caption(at) == "Step 2 of 9 · Round 1 — geophysics expert"
    at.slider(key="runs_replay_pos").set_value(9).run()
    assert not at.exception
    assert _step_caption(at) == "Step 9 of 9 · Report written"
    assert any("saved record" in c.value for c in at.caption)
    assert not any("wrote:" in c.value or "__" in c.value for c in at.caption)
    at.button(key="runs_replay_play").click().run()  # at the end: play restarts from step 1
    assert not at.exception and at.session_state["runs_replay_playing"]
    assert at.button(key="runs_replay_play").label.startswith("⏸️")
    assert at.session_state["runs_replay_pos"] in (1, 2)  # restarted at step 1 (the player may step once)
    at.button(key="runs_replay_play").click().run()
    assert not at.session_state["runs_replay_playing"]


def test_delete_with_confirmation(two_runs: tuple[str, str]) -> None:
    a, b = two_runs
    at = _open()
    at.button(key="runs_delete").click().run()
    assert any("cannot be undone" in w.value for w in at.warning)
    at.button(key="runs_delete_no").click().run()
    assert len(get_store().list_runs()) == 2
    at.button(key="runs_delete").click().run()
    at.button(key="runs_delete_yes").click().run()
    assert not at.exception
    assert [i.id for i in get_store().list_runs()] == [a]


def test_demo_run_replays_from_checkpoints(settings) -> None:  # noqa: ANN001
    record = runs.execute("demo.fanout", {"topic": "tides", "workers": 2}, store=get_store(),
                          settings=settings)
    assert record["summary"]
    at = _open()
    assert not at.exception
    assert any("checkpoint history" in c.value for c in at.caption)
    assert any("record" in m.value for m in at.markdown)


def test_empty_store_message() -> None:
    at = _open()
    assert not at.exception
    assert any("No saved runs" in i.value for i in at.info)


def test_real_whatif_runs_compare_and_replay(settings) -> None:  # noqa: ANN001
    from ifworld.whatif import default_params, workflow_name

    prop = "What if the Moon disappeared overnight?"
    ids = []
    for method in ("ifworld", "debate"):
        params = default_params(prop, method, experts=["physics", "economics"], rounds=1, debate_rounds=1)
        ids.append(runs.start_run(workflow_name(method), params, store=get_store()))
        runs.drive(ids[-1], store=get_store(), settings=settings)
    at = _open()
    assert not at.exception
    assert {at.selectbox(key="runs_cmp_a").value, at.selectbox(key="runs_cmp_b").value} == set(ids)
    assert any(m.value == "#### Executive verdict" for m in at.markdown)
    at.selectbox(key="runs_replay_id").set_value(ids[0]).run()
    assert any("checkpoint history" in c.value for c in at.caption)
    steps = runs.replay(ids[0], store=get_store(), settings=settings)
    slider = at.slider(key="runs_replay_pos")
    assert (slider.min, slider.value, slider.max) == (1, 1, len(steps))  # no start pseudo-step to skip
    assert _step_caption(at) == f"Step 1 of {len(steps)} · Refined the scenario"
    slider.set_value(slider.max).run()
    assert not at.exception
    assert _step_caption(at) == f"Step {len(steps)} of {len(steps)} · Report written"
    assert any(m.value.startswith("##### Round 1") for m in at.markdown)


def test_replay_shows_the_deliberation_view_round_by_round(settings) -> None:  # noqa: ANN001
    from ifworld.whatif import default_params, workflow_name

    params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"], rounds=2)
    run_id = runs.start_run(workflow_name("ifworld"), params, store=get_store())
    runs.drive(run_id, store=get_store(), settings=settings)
    steps = runs.replay(run_id, store=get_store(), settings=settings)
    after_frame_1 = next(s.number for s in steps if s.values.get("frames"))
    at = _open()
    at.selectbox(key="runs_replay_id").set_value(run_id).run()
    at.slider(key="runs_replay_pos").set_value(after_frame_1).run()
    assert not at.exception

    def replay_text() -> str:
        tab = next(t for t in at.tabs if "Replay" in t.label)
        return " ".join(m.value for m in tab.markdown)

    text = replay_text()
    assert "Deliberation after round 1" in text and "Deliberation after round 2" not in text
    assert _step_caption(at) == f"Step {after_frame_1} of {len(steps)} · Shared frame for round 2"
    at.slider(key="runs_replay_pos").set_value(at.slider(key="runs_replay_pos").max).run()
    text = replay_text()
    assert "Deliberation after round 2" in text and "What changed since round 1" in text


def test_exports_are_built_on_click_not_on_every_rerun(two_runs: tuple[str, str], monkeypatch) -> None:  # noqa: ANN001
    built: list[str] = []
    real = runs.export_run

    def counting(run_id: str, fmt: str = "json", **kwargs) -> str:  # noqa: ANN003
        built.append(fmt)
        return real(run_id, fmt, **kwargs)

    monkeypatch.setattr(runs, "export_run", counting)
    at = _open()
    at.text_input(key="runs_search").input("Moon").run()
    assert not at.exception
    assert built == [], "exports were rendered although nobody asked to download one"


def test_delete_dialog_cancel_closes_it(two_runs: tuple[str, str]) -> None:
    at = _open()
    at.button(key="runs_delete").click().run()
    assert at.session_state["runs_delete_open"] == two_runs[1]
    at.button(key="runs_delete_no").click().run()
    assert "runs_delete_open" not in at.session_state
    assert not any("cannot be undone" in w.value for w in at.warning)
    assert len(get_store().list_runs()) == 2


def _broken_record() -> dict:
    """A what-if record whose first expert edge has lost its ``source`` (e.g. edited by hand)."""
    rec = sample_record()
    del rec["rounds"][0]["experts"]["geophysics"]["key_causal_edges"][0]["source"]
    return rec


def test_malformed_record_is_named_in_open_compare_and_replay(two_runs: tuple[str, str]) -> None:
    bad = _save(_broken_record(), "Broken: Moon")
    field = "rounds.0.experts.geophysics.key_causal_edges.0.source"
    at = _open()
    assert not at.exception
    assert at.selectbox(key="runs_open").value == bad  # newest first: the broken run is open
    assert any(f"field {field}: Field required" in e.value for e in at.error)
    assert at.selectbox(key="runs_cmp_a").value == bad
    assert any(e.value.startswith(f"Cannot compare: what-if run {bad}: field {field}") for e in at.error)
    assert at.selectbox(key="runs_replay_id").value == bad
    assert any(f"cannot be replayed: what-if run {bad}: field {field}" in i.value for i in at.info)


# -- every run has a link --------------------------------------------------------------------------------
def _open_link(run: str, url: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["run"] = run
    if url:
        at.context["url"] = url
    at.switch_page("app_pages/runs.py")
    return at.run()


def test_a_run_link_opens_that_run_and_shows_its_own_link(two_runs: tuple[str, str]) -> None:
    a, b = two_runs  # b is the newest: without the link it would be open
    at = _open_link(a, "http://school.example:8501/")
    assert not at.exception
    assert at.selectbox(key="runs_open").value == a and at.selectbox(key="runs_replay_id").value == a
    assert at.session_state["current_run"] == a
    assert any(c.value == f"http://school.example:8501/runs?run={a}" for c in at.code)
    at.selectbox(key="runs_open").set_value(b).run()  # moving on: the link does not pull the page back
    assert at.selectbox(key="runs_open").value == b and at.session_state["current_run"] == b
    assert at.query_params["run"] == b  # the address bar is the open run's link too


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>**bold**'


@pytest.mark.parametrize("bad", ["no-such-run", HOSTILE, "x" * 5000, " "])
def test_a_link_to_an_unknown_or_hostile_id_is_reported_as_text(two_runs: tuple[str, str], bad: str) -> None:
    at = _open_link(bad)
    assert not at.exception
    assert any("names a run this app has not saved" in w.value for w in at.warning)
    assert at.selectbox(key="runs_open").value == two_runs[1]  # the newest run, as without a link
    if bad.strip():
        assert any(t.value == bad[:200] for t in at.text)  # shown as plain text (st.text), capped
    shown = "\n".join(str(e.value) for kind in ("markdown", "caption", "warning", "info", "error")
                      for e in getattr(at, kind))
    assert "<script>" not in shown and "<img" not in shown


# -- the judge: next to its button, and in Compare ---------------------------------------------------------
@pytest.fixture
def unjudged() -> tuple[str, str]:
    a = _save(sample_record("ifworld"), "IF-World: Moon")
    b = _save(sample_record("debate"), "Debate: Moon", "whatif.debate")
    return a, b


def _open_tab(at: AppTest, name: str):  # noqa: ANN202
    return next(t for t in at.tabs if name in t.label)


def test_judge_result_appears_next_to_its_button(unjudged: tuple[str, str], llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.button(key="runs_judge").click().run()
    assert not at.exception
    texts = [m.value for m in _open_tab(at, "Open").markdown]
    judge = next(i for i, t in enumerate(texts) if t.startswith("#### Judge: "))
    assert judge < texts.index("### What if the Moon disappeared?")  # above the record, not after the report
    assert sum(t.startswith("#### Judge: ") for t in texts) == 1  # shown once
    assert (get_store().get_run(unjudged[1]).record or {}).get("judge")


def _trace_types(block) -> set[str]:
    """The trace types the charts in ``block`` draw (the template each chart carries names every type)."""
    return {t.get("type", "scatter") for c in block.get("plotly_chart") for t in json.loads(c.proto.spec)["data"]}


def test_compare_judges_both_runs_then_shows_the_scores(unjudged: tuple[str, str], llm_env) -> None:  # noqa: ANN001
    at = _open()
    compare = _open_tab(at, "Compare")
    assert any("Neither run is judged yet" in c.value for c in compare.caption)
    assert "scatterpolar" not in _trace_types(compare)  # no radar before the runs are judged
    button = at.button(key="runs_cmp_judge")
    assert button.label == "⚖️ Judge both runs" and not button.disabled
    button.click().run()
    assert not at.exception
    assert all((get_store().get_run(i).record or {}).get("judge") for i in unjudged)
    compare = _open_tab(at, "Compare")
    charts = [str(c.proto.spec) for c in compare.get("plotly_chart")]
    assert "scatterpolar" in _trace_types(compare) and any("Rigor" in c for c in charts)  # radar and bars
    assert not any(b.key == "runs_cmp_judge" for b in at.button)  # nothing left to judge


def test_compare_judges_the_one_run_missing_and_without_a_model_says_why(unjudged: tuple[str, str]) -> None:
    a, b = unjudged
    rec = get_store().get_run(a).record
    get_store().save_partial(a, {**rec, "judge": {**{k: 10 for k in ("rigor_traceability", "integration_causality",
                                                                      "feasibility_minimality",
                                                                      "uncertainty_adaptation", "decisionability")},
                                                 "overall": 50}})
    at = _open()  # no model configured in this test
    button = at.button(key="runs_cmp_judge")
    assert button.label == "⚖️ Judge run A" and button.disabled  # run A in Compare is the newest: b
    assert any("Judging needs a model" in c.value for c in _open_tab(at, "Compare").caption)
    assert at.button(key="runs_judge").disabled


def test_a_judge_failure_is_shown_where_the_button_is(unjudged: tuple[str, str], llm_env) -> None:  # noqa: ANN001
    llm_env.inject("500", times=None, role="whatif.judge")
    at = _open()
    at.button(key="runs_cmp_judge").click().run()
    assert not at.exception
    errors = [e.value for e in _open_tab(at, "Compare").error]
    assert len(errors) == 2 and all(e.startswith("The judge failed for run whatif-") for e in errors)
    assert not any((get_store().get_run(i).record or {}).get("judge") for i in unjudged)
    assert at.button(key="runs_cmp_judge").label == "⚖️ Judge both runs"  # still there, to try again


def _replay_tab(at: AppTest):  # noqa: ANN202
    return next(t for t in at.tabs if "Replay" in t.label)


def test_replay_step_1_is_a_readable_view_not_json(two_runs: tuple[str, str]) -> None:
    """#42 item 5d: step 1 (the refiner's scenario) was an ``st.json`` tree; it is the scenario card now."""
    at = _open()
    assert _step_caption(at) == "Step 1 of 9 · Refined the scenario"
    tab = _replay_tab(at)
    assert not tab.json
    text = "\n".join(m.value for m in tab.markdown)
    assert "Refined scenario" in text and "**Premises**" in text
    assert "{" not in text.split("Refined scenario", 1)[1]  # no JSON left in the card


def test_replay_step_1_of_a_checkpointed_run_reads_its_input(settings) -> None:  # noqa: ANN001
    runs.execute("demo.fanout", {"topic": "tides ![x](http://evil.example/x.png)", "workers": 2},
                 store=get_store(), settings=settings)
    at = _open()
    assert any("checkpoint history" in c.value for c in at.caption)
    tab = _replay_tab(at)
    assert not tab.json
    text = "\n".join(m.value for m in tab.markdown)
    assert "**Topic.** tides" in text and "**Workers.** 2" in text
    assert "![x](http" not in text  # the input is shown as text: an image in it is not fetched
