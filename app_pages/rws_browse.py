"""RWS browse: filter and read items (LaTeX rendered), reveal the reference, grade your own answer live."""

import streamlit as st

from ifworld.rws import (
    INTERACTIVE_TIMEOUT_S,
    LLMVerifier,
    RWSItem,
    grade_output,
    item_label,
    load_grade,
    load_sample,
)
from ui.common import current_settings, show_error
from ui.rws_view import load_upload, render_item, show_grade

st.title("☀️ RWS browse")
st.caption("Reasoning With a Star: heliophysics questions with reference reasoning and answers. "
           "Grading is programmatic and offline; with a model connected, the LLM verifier (as in the paper) "
           "checks what the grader does not call correct.")


@st.cache_data(show_spinner=False)
def _sample() -> list:
    return [i.model_dump() for i in load_sample()]


source = st.radio("Data", ["Sample set", "My JSONL"], horizontal=True, key="rwsbrowse_source")
if source == "Sample set":
    items = [RWSItem.model_validate(d) for d in _sample()]
else:
    upload = st.file_uploader("Upload items (JSONL, RWS schema)", type=["jsonl", "json", "txt"],
                              key="rwsbrowse_upload")
    pasted = st.text_area("…or paste JSONL", key="rwsbrowse_paste", height=120)
    loaded = None
    if upload is not None:
        loaded = load_upload(upload.getvalue(), upload.name)
    elif pasted.strip():
        loaded = load_upload(pasted, "pasted JSONL")
    items = loaded.items if loaded else []
    if not items:
        st.info("Upload or paste a JSONL file to browse it; bad lines are listed and skipped.")
        st.stop()

topics = sorted({str(i.meta.get("topic", "")) for i in items} - {""})
sources = sorted({str(i.meta.get("source", "")) for i in items} - {""})
c1, c2, c3 = st.columns(3)
types = c1.multiselect("Type", ["numeric", "symbolic", "textual"], key="rwsbrowse_types")
chosen_topics = c2.multiselect("Topic", topics, key="rwsbrowse_topics")
chosen_sources = c3.multiselect("Source", sources, key="rwsbrowse_sources")
query = st.text_input("Search question text or id", key="rwsbrowse_query").strip().lower()

shown = [i for i in items
         if (not types or i.type in types)
         and (not chosen_topics or str(i.meta.get("topic", "")) in chosen_topics)
         and (not chosen_sources or str(i.meta.get("source", "")) in chosen_sources)
         and (not query or query in i.question.lower() or query in i.id.lower())]
st.caption(f"{len(shown)} of {len(items)} items")
if not shown:
    st.warning("No item matches these filters.")
    st.stop()

by_id = {i.id: i for i in shown}
item_id = st.selectbox("Item", list(by_id), key="rwsbrowse_item",
                       format_func=lambda k: item_label(k, by_id[k].type, by_id[k].question))
item = by_id[item_id]
show_answer = st.toggle("Show reference steps and answer", key="rwsbrowse_show")
render_item(item, show_answer)

st.divider()
st.subheader("Grade your own answer")
settings = current_settings()
# A form: the typed answer commits with the click (or Enter), so the first Grade grades (a text box outside a
# form commits only on blur, and a button disabled until then swallowed the first click).
with st.form("rwsbrowse_form", border=False, enter_to_submit=True):
    answer = st.text_input("Your answer", key="rwsbrowse_answer",
                           placeholder="e.g. 48.8 km/s, \\frac{B}{\\sqrt{\\mu_0 n m_p}}, or a short phrase")
    use_verifier = st.checkbox("Ask the LLM verifier when the grader says incorrect / not sure (as the paper does)",
                               value=settings.enabled, key="rwsbrowse_verify", disabled=not settings.enabled,
                               help=None if settings.enabled else "Connect a model in the sidebar to use the verifier.")
    graded = st.form_submit_button("Grade", key="rwsbrowse_grade", type="primary")
if graded and not answer.strip():
    st.info("Type an answer first, then Grade.")
elif graded:
    verifier = LLMVerifier(settings) if use_verifier and settings.enabled else None
    try:
        with st.spinner("Grading…"):  # a symbolic answer can take seconds on a busy machine: say it is working
            st.session_state["rwsbrowse_result"] = (item.id, answer, grade_output(
                item, answer, verifier=verifier, timeout_s=INTERACTIVE_TIMEOUT_S))
    except Exception as exc:  # noqa: BLE001 — a failed verifier call is shown, never a crash
        show_error(f"Grading failed: {exc}")
saved = st.session_state.get("rwsbrowse_result")
if saved and saved[0] == item.id and saved[1] == answer:
    show_grade(load_grade(saved[2]))
