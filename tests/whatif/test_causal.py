"""The causal graph: merging, flags, metrics, filtering, layout and figure."""

from __future__ import annotations

import os

import plotly.graph_objects as go
import pytest

from ifworld.whatif import causal
from ifworld.whatif.records import RecordError, load_record
from ifworld.whatif.schemas import CausalEdge
from tests.whatif.records import edge, expert, sample_record


def test_duplicate_labels_merge_case_and_whitespace() -> None:
    g = causal.build_causal_graph(sample_record())
    assert "tides" in g and "ocean mixing" in g
    assert not any(n != causal.normalise_label(n) for n in g.nodes)
    assert g.nodes["tides"]["label"] == "Tides"
    # "Tides → Ocean mixing" said by geophysics in both rounds: one edge, two sources
    e = g.edges["tides", "ocean mixing"]
    assert e["count"] == 2 and e["sources"] == ["geophysics r1", "geophysics r2"]
    assert e["strength"] == 3 and e["sign"] == "+"


def test_report_causal_map_ids_resolve_to_labels() -> None:
    g = causal.build_causal_graph(sample_record())
    e = g.edges["climate stability", "gdp"]
    assert e["sources"] == ["report"]
    assert g.nodes["climate stability"]["domain"] == "climate"
    assert g.nodes["gdp"]["domain"] == "economics"


def test_cross_domain_flag() -> None:
    g = causal.build_causal_graph(sample_record())
    assert g.edges["climate stability", "gdp"]["cross_domain"]
    assert g.edges["tides", "coastal flooding"]["cross_domain"]
    assert not g.edges["coastal flooding", "gdp"]["cross_domain"]


def test_cycle_found_and_classified() -> None:
    g = causal.build_causal_graph(sample_record())
    loops = causal.feedback_loops(g)
    assert [sorted(loop["nodes"]) for loop in loops] == [["climate stability", "ocean mixing"]]
    assert loops[0]["kind"] == "reinforcing" and loops[0]["cross_domain"]
    assert loops[0]["labels"] == ["Climate stability", "Ocean mixing"]  # starts at its smallest node


def test_loops_read_the_same_whatever_the_hash_seed() -> None:
    import subprocess
    import sys

    code = ("from ifworld.whatif import causal; from tests.whatif.records import sample_record, edge, expert;"
            "g = causal.build_causal_graph({'rounds': [{'experts': {'x': expert('v', [edge('b', 'c'), edge('c', 'a'),"
            " edge('a', 'b'), edge('c', 'b')])}}]});"
            "print([lp['nodes'] for lp in causal.feedback_loops(g)])")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert outs == {"[['b', 'c'], ['a', 'b', 'c']]\n"}


def test_balancing_loop_and_caps() -> None:
    record = {"rounds": [{"round": 1, "experts": {"x": expert("v", [
        edge("a", "b", "+"), edge("b", "c", "-"), edge("c", "a", "+"),
        edge("a", "c", "+"), edge("c", "b", "+"),
    ])}}]}
    g = causal.build_causal_graph(record)
    loops = causal.feedback_loops(g)
    kinds = {tuple(sorted(loop["nodes"])): loop["kind"] for loop in loops}
    assert kinds[("a", "b", "c")] in ("balancing", "reinforcing")
    assert any(k == "balancing" for k in kinds.values())
    assert len(causal.feedback_loops(g, max_count=1)) == 1
    assert all(loop["length"] <= 2 for loop in causal.feedback_loops(g, max_length=2))


def test_conflicting_signs_tie_is_ambiguous() -> None:
    record = {"rounds": [{"round": 1, "experts": {"x": expert("v", [edge("a", "b", "+")]),
                                                  "y": expert("v", [edge("A", "B", "-")])}}]}
    assert causal.build_causal_graph(record).edges["a", "b"]["sign"] == "±"


def test_influential_nodes_rank_by_weighted_out_degree() -> None:
    g = causal.build_causal_graph(sample_record())
    top = causal.influential_nodes(g, top=3)
    assert top[0]["node"] in ("tides", "ocean mixing")
    assert top[0]["out_strength"] >= top[1]["out_strength"]
    ranks = causal.pagerank(g)
    assert abs(sum(ranks.values()) - 1.0) < 1e-6


def test_filter_by_domain_strength_and_cross_domain() -> None:
    g = causal.build_causal_graph(sample_record())
    only_econ = causal.filter_graph(g, domains=["economics"])
    assert set(only_econ.nodes) == {"coastal flooding", "gdp"}
    strong = causal.filter_graph(g, min_strength=3)
    assert set(strong.edges) == {("tides", "ocean mixing")}
    cross = causal.filter_graph(g, cross_domain_only=True)
    assert all(d["cross_domain"] for _, _, d in cross.edges(data=True))
    assert ("coastal flooding", "gdp") not in cross.edges
    assert g.number_of_edges() > cross.number_of_edges()  # original untouched


def test_layout_is_deterministic() -> None:
    g = causal.build_causal_graph(sample_record())
    assert causal.layout(g, seed=3) == causal.layout(g, seed=3)
    assert causal.layout(causal.build_causal_graph({}), seed=0) == {}


def test_figure_has_domains_arrows_and_highlights() -> None:
    g = causal.build_causal_graph(sample_record())
    fig = causal.causal_figure(g, highlight_cycles=True, highlight_cross_domain=True)
    assert isinstance(fig, go.Figure)
    names = {t.name for t in fig.data}
    assert {"geophysics", "economics", "climate", "feedback loop", "cross-domain"} <= names
    assert len(fig.layout.annotations) == g.number_of_edges()
    plain = causal.causal_figure(g, highlight_cycles=False, highlight_cross_domain=False)
    assert not {"feedback loop", "cross-domain"} & {t.name for t in plain.data}


def test_lenient_fields_are_normalised_and_empty_ends_skipped() -> None:
    record = {"rounds": [{"experts": {"x": {"key_causal_edges": [
        {"source": "a", "target": "b", "sign": "negative", "strength": "7"},
        {"source": "", "target": "b"}]}}}], "report": None}
    g = causal.build_causal_graph(record)
    assert list(g.edges(data="sign")) == [("a", "b", "-")]
    assert g.edges["a", "b"]["strength"] == 3 and g.edges["a", "b"]["sources"] == ["x r1"]
    assert causal.edge_rows(g)[0]["source"] == "a"
    assert causal.build_causal_graph({}).number_of_nodes() == 0
    assert causal.build_causal_graph(None).number_of_nodes() == 0
    assert len(causal.causal_figure(causal.build_causal_graph({})).data) == 1  # just the (empty) edge layer


def test_malformed_record_names_the_run_and_field() -> None:
    broken = {"run_id": "r-42", "rounds": [{"round": 1, "experts": {"x": {"key_causal_edges": [
        {"source": "a", "target": "b"}, {"target": "c"}]}}}]}
    with pytest.raises(RecordError) as err:
        causal.build_causal_graph(broken)
    assert err.value.run_id == "r-42" and err.value.field == "rounds.0.experts.x.key_causal_edges.1.source"
    assert str(err.value) == "what-if run r-42: field rounds.0.experts.x.key_causal_edges.1.source: Field required"
    with pytest.raises(RecordError, match=r"what-if run abc: field rounds\.0\.experts\.y: "):
        causal.build_causal_graph(load_record({"rounds": [{"experts": {"y": None}}]}, run_id="abc"))
    with pytest.raises(RecordError, match="what-if record: the record is a list"):
        causal.collect_edges([1, 2])  # type: ignore[arg-type]


# The merged edges of the sample record as the dict-reading implementation (before typed records) built
# them: the typed one must give the very same graph.
SAMPLE_EDGE_ROWS = [
    ("Tides", "Ocean mixing", "+", 3, False, "geophysics", 2, "geophysics r1, geophysics r2",
     "tidal energy drives mixing"),
    ("Climate stability", "GDP", "+", 1, True, "climate", 1, "report", "stable climate supports output"),
    ("Climate stability", "Ocean mixing", "+", 2, True, "climate, geophysics", 1, "geophysics r2", "feedback"),
    ("Coastal flooding", "GDP", "-", 2, False, "economics", 1, "economics r1", "damage to assets"),
    ("Ocean mixing", "Climate stability", "+", 2, True, "climate, geophysics", 1, "geophysics r1",
     "heat transport"),
    ("Tides", "Coastal flooding", "+", 1, True, "economics, geophysics", 1, "economics r1", "tidal range"),
]


def test_typed_graph_equals_the_dict_reading_one() -> None:
    keys = ("source", "target", "sign", "strength", "cross_domain", "domains", "count", "sources", "mechanism")
    for record in (sample_record(), load_record(sample_record())):
        assert [tuple(r[k] for k in keys) for r in causal.edge_rows(causal.build_causal_graph(record))] \
            == SAMPLE_EDGE_ROWS


def test_legacy_record_without_round_numbers_or_new_fields_loads() -> None:
    legacy = sample_record()
    for rnd in legacy["rounds"]:
        del rnd["round"]
    for key in ("frame_diffs", "degraded", "calls", "params"):
        legacy.pop(key)
    legacy["judgements"] = [{"overall": 3}]  # a key this version does not model: ignored
    rec = load_record(legacy)
    assert [r.round for r in rec.rounds] == [1, 2] and rec.frame_diffs == [] and rec.calls == []
    g = causal.build_causal_graph(legacy)
    assert g.edges["tides", "ocean mixing"]["sources"] == ["geophysics r1", "geophysics r2"]
    assert g.number_of_edges() == len(SAMPLE_EDGE_ROWS)


def test_domain_matrix_is_net_sign_times_strength_per_domain_pair():
    from ifworld.whatif.causal import DomainLink, domain_heatmap, domain_matrix

    edges = [CausalEdge(source="s", target="t", domains=["physics", "economics"], sign="-", strength=3),
             CausalEdge(source="s", target="t", domains=["physics", "economics"], sign="+", strength=1),
             CausalEdge(source="s", target="t", domains=["medicine"], sign="+", strength=2),
             CausalEdge(source="s", target="t", domains=[])]
    domains, net, count = domain_matrix(edges)
    assert domains == ["economics", "medicine", "physics"]
    assert net[2, 0] == -2 and count[2, 0] == 2 and net[1, 1] == 2 and count.sum() == 3
    fig = domain_heatmap(edges)
    assert fig.data[0].zmid == 0 and list(fig.data[0].x) == domains and domain_heatmap([]) is None
    # a merged edge whose sign is a tie counts, with no weight
    domains, net, count = domain_matrix([DomainLink(("a", "b"), "±", 3), DomainLink(("a", "b"), "-", 2)])
    assert net[0, 1] == -2 and count[0, 1] == 2


def test_graph_domain_edges_follow_node_domains() -> None:
    g = causal.build_causal_graph(sample_record())
    links = {(g.nodes[u]["label"], g.nodes[v]["label"]): link
             for (u, v), link in zip(g.edges, causal.graph_domain_edges(g), strict=True)}
    assert links["Climate stability", "GDP"].domains == ("climate", "economics")
    assert links["Coastal flooding", "GDP"].sign == "-"
