"""Expert outputs stream as typed partial events before each expert's call ends (fake server, slow tokens)."""

from __future__ import annotations

from ifworld.runs.events import ExpertPartial
from ifworld.whatif import service
from ifworld.whatif.params import default_params


def test_expert_partials_arrive_before_each_expert_is_done(fake_server, settings, store):
    fake_server.token_delay = 0.01
    events = []
    params = default_params("What if the Moon disappeared overnight?", "ifworld", experts=["physics", "economics"],
                            rounds=1, no_debate=True)
    service.run(params, settings=settings, store=store, on_event=events.append)
    kinds = [(e.data.get("kind"), e.data.get("domain")) for e in events if e.type == "progress"]
    for domain in ("physics", "economics"):
        partial_at = kinds.index(("expert_partial", domain))
        assert partial_at < kinds.index(("expert_done", domain))
    partials = [ExpertPartial.model_validate(e.data) for e in events if e.data.get("kind") == "expert_partial"]
    assert all(p.round == 1 and p.partial for p in partials)
    by_domain = [p for p in partials if p.domain == "physics"]
    assert len(by_domain) >= 2 and len(str(by_domain[-1].partial)) > len(str(by_domain[0].partial))
    tokens = [e for e in events if e.type == "token" and "expert" in str(e.data.get("role", ""))]
    assert tokens == []  # structured calls are tagged nostream: JSON tokens do not flood the messages stream


def test_partial_text_shows_strings_and_list_heads():
    from ui.partial_view import partial_text

    text = partial_text({"verdict": "Tides weaken", "conclusions": [{"claim": "x", "range": "1-2"}], "n": 3})
    assert "**verdict:** Tides weaken" in text and "x, 1-2" in text and "n" not in text.split("conclusions")[1]
