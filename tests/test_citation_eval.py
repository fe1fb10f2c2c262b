"""The citation-eval task: source verification paths, score formulas, bad input, the judged stage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citejudge.index import WorldIndex, build_index_from_works
from citejudge.io import Item, OutputLine
from citejudge.judge.backends.scripted import ScriptedBackend, ScriptRule
from citejudge.judge.core import Judge
from citejudge.judge.deciders import ScorerSupportDecider
from citejudge.records import Author, Work
from citejudge.schema import validate_result
from citejudge.sources import SourceStore, url_key
from citejudge.tasks.citation_eval import (
    CitationEvalStage,
    CitationEvalTask,
    correctness_from_points,
    interpretability_score,
    overall_score,
)

ABSTRACT = (
    "Deeper neural networks are more difficult to train. We present a residual learning framework "
    "to ease the training of networks that are substantially deeper than those used previously."
)
WORKS = [
    Work(
        id="W1",
        title="Deep Residual Learning for Image Recognition",
        authors=[Author("Kaiming He")],
        year=2016,
        venue="CVPR",
        doi="10.1109/cvpr.2016.90",
        abstract=ABSTRACT,
    ),
    Work(
        id="W2",
        title="Deep learning",
        authors=[Author("Yann LeCun")],
        year=2015,
        venue="Nature",
        doi="10.1038/nature14539",
    ),
    Work(
        id="W3",
        title="Attention Is All You Need",
        authors=[Author("Ashish Vaswani")],
        year=2017,
        venue="NeurIPS",
        doi="10.5555/3295222.3295349",
        abstract="We propose a new simple network architecture, the Transformer, based solely on attention "
        "mechanisms, dispensing with recurrence and convolutions entirely.",
    ),
]
QUOTE = "We present a residual learning framework to ease the training of networks"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    path = tmp_path_factory.mktemp("idx") / "w.index"
    build_index_from_works(WORKS, path)
    return WorldIndex.open(path)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SourceStore:
    root = tmp_path_factory.mktemp("store")
    (root / f"{url_key('https://blog.example.org/post')}.txt").write_text(
        "Our blog post says that coffee improves concentration in most adults.", encoding="utf-8"
    )
    return SourceStore.open(root)


def cit(
    claim: str = "ResNets ease training of deep networks.",
    content: str = QUOTE,
    source: Any = None,
    cid: Any = 1,
) -> dict[str, Any]:
    c: dict[str, Any] = {"citation_id": cid, "claim": claim, "cited_content": content}
    if source is not None:
        c["source"] = source
    return c


def item(citations: Any = None, **over: Any) -> Item:
    data: dict[str, Any] = {
        "id": "x",
        "question": "What do ResNets do?",
        "answer": "They ease training.",
        "gold_answer": "Residual learning eases training of very deep networks.",
        "citations": [cit(source="10.1109/cvpr.2016.90")] if citations is None else citations,
    }
    data.update(over)
    return Item("x", {k: v for k, v in data.items() if v is not ...}, "t.jsonl", 1)


def check(task: CitationEvalTask, it: Item) -> OutputLine:
    line = task.check(it)
    if line.result is not None:
        assert validate_result("citation-eval", line.result) == []
    return line


def verification(line: OutputLine, i: int = 0) -> dict[str, Any]:
    assert line.result is not None
    sv: dict[str, Any] = line.result["citation_evaluations"][i]["source_verification"]
    return sv


# ------------------------------------------------------------------------- verification paths


def test_doi_resolves_and_quote_found(world: WorldIndex) -> None:
    sv = verification(check(CitationEvalTask(world), item()))
    assert sv["judgement"] == "VERIFIED" and sv["url_accessible"] is True
    assert (
        "DOI 10.1109/cvpr.2016.90 resolves to W1" in sv["reasoning"]
        and "abstract" in sv["reasoning"]
    )


def test_doi_of_another_work_is_likely_fabricated(world: WorldIndex) -> None:
    src = "He, K. (2016). Deep Residual Learning for Image Recognition. CVPR. https://doi.org/10.1038/nature14539"
    sv = verification(check(CitationEvalTask(world), item([cit(source=src)])))
    assert sv["judgement"] == "LIKELY_FABRICATED"
    assert "W2" in sv["reasoning"] and "different work" in sv["reasoning"]


def test_unknown_url_is_uncertain(world: WorldIndex, store: SourceStore) -> None:
    sv = verification(
        check(CitationEvalTask(world, store), item([cit(source="https://nowhere.example.com/x")]))
    )
    assert sv["judgement"] == "UNCERTAIN" and sv["url_accessible"] is False
    assert "no record" in sv["reasoning"]


def test_store_text_contains_quote(world: WorldIndex, store: SourceStore) -> None:
    line = check(
        CitationEvalTask(world, store),
        item(
            [
                cit(
                    content="coffee improves concentration in most adults",
                    source="http://blog.example.org/post/",
                )
            ]
        ),
    )
    sv = verification(line)
    assert sv["judgement"] == "VERIFIED" and sv["url_accessible"] is True
    assert "source store" in sv["reasoning"]


def test_quote_not_in_text_stays_uncertain_without_judge(world: WorldIndex) -> None:
    line = check(
        CitationEvalTask(world),
        item([cit(content="Transformers use attention only.", source="10.1109/cvpr.2016.90")]),
    )
    sv = verification(line)
    assert sv["judgement"] == "UNCERTAIN" and "not judged" in sv["reasoning"]
    assert line.details["citations"][0]["verification"]["pending_judge"] is True


def test_quote_from_another_indexed_work_is_likely_fabricated(world: WorldIndex) -> None:
    # the quote is the Transformer abstract, attributed to the ResNet paper
    line = check(
        CitationEvalTask(world),
        item(
            [
                cit(
                    content="the Transformer, based solely on attention mechanisms, dispensing with recurrence",
                    source="10.1109/cvpr.2016.90",
                )
            ]
        ),
    )
    sv = verification(line)
    assert sv["judgement"] == "LIKELY_FABRICATED"
    assert "W3" in sv["reasoning"] and "wrong source" in sv["reasoning"]
    assert line.details["citations"][0]["verification"]["found_elsewhere"]["source"].startswith(
        "W3"
    )


def test_quote_from_a_stored_page_is_likely_fabricated(
    world: WorldIndex, store: SourceStore
) -> None:
    line = check(
        CitationEvalTask(world, store),
        item(
            [
                cit(
                    content="coffee improves concentration in most adults",
                    source="10.1109/cvpr.2016.90",
                )
            ]
        ),
    )
    sv = verification(line)
    assert sv["judgement"] == "LIKELY_FABRICATED"
    assert "stored text" in sv["reasoning"]


def test_resolved_without_text_and_no_index(world: WorldIndex) -> None:
    sv = verification(check(CitationEvalTask(world), item([cit(source="10.1038/nature14539")])))
    assert (
        sv["judgement"] == "UNCERTAIN"
        and sv["url_accessible"] is True
        and "no abstract" in sv["reasoning"]
    )
    sv = verification(check(CitationEvalTask(None), item()))
    assert sv["judgement"] == "UNCERTAIN" and "no index" in sv["reasoning"]


# ------------------------------------------------------------------------------- formulas


def test_score_formulas_exact() -> None:
    assert interpretability_score(1.0, "VERIFIED") == 1.0
    assert interpretability_score(0.5, "UNCERTAIN") == 0.5
    assert interpretability_score(1.0, "LIKELY_FABRICATED") == 0.5
    assert interpretability_score(0.0, "UNCERTAIN") == 0.25
    assert interpretability_score(None, "VERIFIED") is None
    assert correctness_from_points(["COVERED", "PARTIAL", "MISSING"]) == (
        0.5,
        "PARTIALLY_CORRECT",
        False,
    )
    assert correctness_from_points(["COVERED", "COVERED"]) == (1.0, "CORRECT", True)
    assert correctness_from_points(["MISSING"]) == (0.0, "INCORRECT", False)
    assert correctness_from_points(["COVERED", "COVERED", "MISSING"])[0] == 0.6667
    # 0.5 * mean(1, 0.5) + 0.25 * mean(1, 0.5) + 0.25 * 0.5 = 0.375 + 0.1875 + 0.125
    assert overall_score([1.0, 0.5], [1.0, 0.5], 0.5) == 0.6875
    assert overall_score([], [], 1.0) == 0.25
    assert overall_score([1.0, 0.5], [1.0, 0.5], None, no_gold=True) == 0.75
    assert overall_score([], [], None, no_gold=True) == 0.0
    with pytest.raises(ValueError):
        overall_score([1.0], [1.0], None)


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"citations": "not a list"}, "citations"),
        ({"citations": ...}, "citations"),
        ({"answer": ...}, "answer"),
        ({"answer": 5}, "answer"),
        ({"gold_answer": ...}, "gold_answer"),
        ({"citations": [cit(claim="")]}, "citations[0].claim"),
        ({"citations": [{"citation_id": 1, "claim": "c"}]}, "citations[0].cited_content"),
        ({"citations": ["x"]}, "citations[0]"),
        ({"citations": [cit(cid=[1])]}, "citations[0].citation_id"),
        ({"citations": [cit(source=["a"])]}, "citations[0].source"),
    ],
)
def test_bad_input_is_a_per_item_error(world: WorldIndex, over: dict[str, Any], field: str) -> None:
    line = check(CitationEvalTask(world), item(**over))
    assert line.result is None and line.error is not None
    assert line.error["field"] == field, line.error


def test_no_gold_allowed_with_flag(world: WorldIndex) -> None:
    line = check(CitationEvalTask(world, no_gold=True), item(gold_answer=...))
    assert line.result is not None and line.details["no_gold"] is True
    assert line.result["answer_evaluation"]["alignment_judgement"] == "NOT_EVALUATED"


def test_odd_but_valid_inputs(world: WorldIndex) -> None:
    line = check(CitationEvalTask(world), item([]))
    assert (
        line.result is not None
        and line.result["citation_evaluations"] == []
        and line.details["no_citations"]
    )
    line = check(CitationEvalTask(world), item([cit(source=None)]))
    assert (
        verification(line)["judgement"] == "UNCERTAIN"
        and "No source" in verification(line)["reasoning"]
    )
    line = check(CitationEvalTask(world), item([cit(source="x" * 10_240)]))
    assert (
        verification(line)["judgement"] == "UNCERTAIN"
        and len(verification(line)["reasoning"]) < 500
    )
    line = check(
        CitationEvalTask(world), item([cit(cid="ref-a"), cit(cid=None), cit(cid=7), cit(cid="7")])
    )
    assert line.result is not None
    assert [e["citation_id"] for e in line.result["citation_evaluations"]] == ["ref-a", 2, 7, "7"]
    assert line.details["citations"][1]["id_generated"] is True


def test_no_llm_result_says_not_judged(world: WorldIndex) -> None:
    line = check(CitationEvalTask(world), item())
    assert line.result is not None
    ev = line.result["citation_evaluations"][0]
    assert (
        ev["citation_support"]["judgement"] == "NOT_JUDGED"
        and ev["citation_support"]["support_score"] is None
    )
    assert (
        ev["interpretability_score"] is None
        and line.result["overall_assessment"]["overall_score"] is None
    )
    assert line.result["answer_evaluation"]["correctness"] is None


# ------------------------------------------------------------------------------- judged stage


def scripted() -> ScriptedBackend:
    return ScriptedBackend(
        [
            ScriptRule(
                ("<claim>\nResNets ease",),
                json.dumps({"label": "ENTAILMENT", "reason": "Stated."}),
                "SupportAnswer",
            ),
            ScriptRule(
                ("<claim>\nResNets were invented",),
                json.dumps({"label": "NEUTRAL", "reason": "No date."}),
                "SupportAnswer",
            ),
            ScriptRule(
                ("Transformers use attention only",),
                json.dumps({"label": "CONTRADICTS_SOURCE", "reason": "About residual nets."}),
                "SourceCheckAnswer",
            ),
            ScriptRule(
                ("<gold>",),
                json.dumps(
                    {
                        "key_points": [
                            {"point": "residual learning", "status": "COVERED"},
                            {"point": "very deep networks", "status": "PARTIAL"},
                        ]
                    }
                ),
                "CorrectnessAnswer",
            ),
        ]
    )


def test_stage_batches_and_scores(world: WorldIndex) -> None:
    backend = scripted()
    stage = CitationEvalStage(Judge(backend))
    task = CitationEvalTask(world)
    items = [
        item(),
        item(
            [
                cit(),
                cit(
                    claim="ResNets were invented in 2015.",
                    content="Transformers use attention only.",
                    source="10.1109/cvpr.2016.90",
                    cid="b",
                ),
            ]
        ),
        item([], gold_answer=...),  # an error line: skipped by the stage
    ]
    pairs = [(it, task.check(it)) for it in items]
    stage.apply(pairs)
    # one call per schema for the whole batch
    assert len(backend.calls) == 3
    assert [len(c) for c in backend.calls] == [2, 1, 1]  # identical support prompts asked once
    r0 = pairs[0][1].result
    assert r0 is not None and validate_result("citation-eval", r0) == []
    assert r0["citation_evaluations"][0]["citation_support"] == {
        "judgement": "ENTAILMENT",
        "reasoning": "Stated.",
        "support_score": 1.0,
    }
    assert r0["citation_evaluations"][0]["interpretability_score"] == 1.0
    assert r0["answer_evaluation"] == {
        "correctness": False,
        "alignment_judgement": "PARTIALLY_CORRECT",
        "missing_information": ["partly: very deep networks"],
        "correctness_score": 0.75,
    }
    assert r0["overall_assessment"]["overall_score"] == 0.9375  # 0.5 + 0.25 + 0.1875
    r1 = pairs[1][1].result
    assert r1 is not None and validate_result("citation-eval", r1) == []
    e = r1["citation_evaluations"][1]
    assert e["citation_support"]["support_score"] == 0.5
    assert e["source_verification"]["judgement"] == "LIKELY_FABRICATED"
    assert "CONTRADICTS_SOURCE" in e["source_verification"]["reasoning"]
    assert e["interpretability_score"] == 0.25
    assert r1["citation_evaluations"][0]["interpretability_score"] == 0.75  # no source: UNCERTAIN
    # supports (1, .5) → .75*.5; interps (.75, .25) → .5*.25; correctness .75*.25
    assert r1["overall_assessment"]["overall_score"] == 0.375 + 0.125 + 0.1875
    assert pairs[2][1].result is None


class _FixedScorer:
    name = "fixed"
    threshold = 0.5

    def __init__(self, p: float) -> None:
        self.p = p

    def score(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [self.p] * len(pairs)


@pytest.mark.parametrize(
    ("p", "support", "source"), [(0.9, "ENTAILMENT", "VERIFIED"), (0.1, "NEUTRAL", "UNCERTAIN")]
)
def test_card_scorer_decides_support_and_source(
    world: WorldIndex, p: float, support: str, source: str
) -> None:
    backend = scripted()
    stage = CitationEvalStage(Judge(backend, support=ScorerSupportDecider(_FixedScorer(p))))
    task = CitationEvalTask(world)
    pairs = [
        (it, task.check(it))
        for it in [
            item(
                [
                    cit(
                        claim="ResNets were invented in 2015.",
                        content="Transformers use attention only.",
                        source="10.1109/cvpr.2016.90",
                        cid="b",
                    )
                ]
            )
        ]
    ]
    stage.apply(pairs)
    res = pairs[0][1].result
    assert res is not None and validate_result("citation-eval", res) == []
    ev = res["citation_evaluations"][0]
    assert (
        ev["citation_support"]["judgement"] == support
        and "calibrated scorer fixed" in ev["citation_support"]["reasoning"]
    )
    # details name the scorer that decided, with its score against its threshold
    sup = pairs[0][1].details["citations"][0]["support"]
    assert (sup["scorer"], sup["score"], sup["threshold"], sup["request_hash"]) == (
        "fixed",
        p,
        0.5,
        None,
    )
    # a two-way scorer never calls a source fabricated: only the model or a rule can
    assert ev["source_verification"]["judgement"] == source
    assert [len(c) for c in backend.calls] == [1]  # only the correctness question went to the model


def test_stage_no_gold_reweights(world: WorldIndex) -> None:
    stage = CitationEvalStage(Judge(scripted()))
    it = item(gold_answer=...)
    line = CitationEvalTask(world, no_gold=True).check(it)
    stage.apply([(it, line)])
    assert line.result is not None and validate_result("citation-eval", line.result) == []
    assert line.result["overall_assessment"]["overall_score"] == 1.0
    assert "2/3" in line.details["overall_formula"]


def test_stage_judge_failure_is_item_error(world: WorldIndex) -> None:
    backend = ScriptedBackend(
        [
            ScriptRule(("<claim>",), '{"label": "MAYBE"}', "SupportAnswer"),
            ScriptRule(
                ("<gold>",),
                json.dumps({"key_points": [{"point": "p", "status": "COVERED"}]}),
                "CorrectnessAnswer",
            ),
        ]
    )
    it = item()
    line = CitationEvalTask(world).check(it)
    CitationEvalStage(Judge(backend)).apply([(it, line)])
    assert line.result is None and line.error is not None and line.error["kind"] == "judge"
    assert "partial_result" in line.details


def test_cli_run_with_scripted_card(tmp_path: Path, world: WorldIndex, repo: Path) -> None:
    from citejudge.run import RunConfig, run_check

    idx = tmp_path / "w.index"
    build_index_from_works(WORKS, idx)
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {
                    "id": "a",
                    "question": "What do ResNets do?",
                    "answer": "They ease training.",
                    "gold_answer": "Residual learning eases training of very deep networks.",
                    "citations": [cit(source="https://doi.org/10.1109/cvpr.2016.90")],
                },
                {"id": "b", "answer": "x", "citations": []},
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    summary = run_check(
        RunConfig(
            task="citation-eval", input=inp, out=out, index=idx, model="scripted-ceval", workers=1
        ),
        quiet=True,
    )
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert summary.items == 2 and summary.errors == 1
    assert lines[0]["result"]["overall_assessment"]["overall_score"] == 0.9375
    assert lines[1]["error"]["field"] == "gold_answer"


def test_quote_from_another_source_of_the_same_answer_is_named(world: WorldIndex) -> None:
    # two citations: the second quotes the ResNet abstract but names the Transformer paper
    line = check(
        CitationEvalTask(world),
        item(
            [
                cit(source="10.1109/cvpr.2016.90"),
                cit(
                    content="We present a residual learning framework to ease the training",
                    source="10.5555/3295222.3295349",
                    cid=2,
                ),
            ]
        ),
    )
    sv = verification(line, 1)
    assert sv["judgement"] == "LIKELY_FABRICATED"
    assert "W1" in sv["reasoning"]


# ------------------------------------------------------------- passages of real web pages (issue 29)

# Two pages as a crawler saves them, one sentence or line a line (the shape of WiCE's cited pages):
# title, navigation, headings, prose, lists, banners. Written for these tests.
PAGE_A = """(meta data) TITLE: About Us – Example Trade News
Skip to content
Example Trade News
Home | News | Reviews | Events | About
# About Us
Example Trade News is the voice of the home entertainment industry.
We cover the moment a film leaves the cinema until it reaches a living room.
Our reporters attend every major studio showcase in Los Angeles and London.
### Meet the Team:
Jane Q. Doe, Publisher and Editorial Director, Example Trade News:
Jane Q. Doe has covered the home entertainment business for nearly three decades.
She previously wrote for the Harbor Reader and the Valley Times.
- print edition
- a daily digest sent to 12,000 readers each morning.
Share this: Facebook | Twitter | Email
This site uses cookies to improve your experience.
© 2024 Example Media. All rights reserved."""
PAGE_B = """(meta data) TITLE: Valley Times – Arts
Menu
## Arts
The Valley Times arts desk reviews two hundred concerts a year.
Its critics were nominated for three regional journalism awards in 2018.
Subscribe to our newsletter"""
URL_A = "https://trade-news.example/about-us"
URL_B = "https://valley-times.example/arts"
A1 = "Example Trade News is the voice of the home entertainment industry."
A3 = "Our reporters attend every major studio showcase in Los Angeles and London."
A5 = "Jane Q. Doe has covered the home entertainment business for nearly three decades."
A6 = "She previously wrote for the Harbor Reader and the Valley Times."
B2 = "Its critics were nominated for three regional journalism awards in 2018."


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> SourceStore:
    root = tmp_path_factory.mktemp("pages")
    (root / f"{url_key(URL_A)}.txt").write_text(PAGE_A, encoding="utf-8")
    (root / "b.txt").write_text(PAGE_B, encoding="utf-8")
    (root / "index.jsonl").write_text(json.dumps({"url": URL_B, "file": "b.txt"}) + "\n")
    return SourceStore.open(root)


def page_item(content: str, source: str = URL_A) -> Item:
    return item([cit(claim="Doe runs a trade paper.", content=content, source=source)])


def test_passage_of_three_non_adjacent_sentences_is_verified(
    world: WorldIndex, pages: SourceStore
) -> None:
    task = CitationEvalTask(world, pages)
    for content in (f"{A1} {A3} {A5}", f"{A5} … {A1} […] {A3}"):
        line = check(task, page_item(content))
        sv = verification(line)
        assert sv["judgement"] == "VERIFIED", sv
        assert "all 3 pieces of the cited content are found" in sv["reasoning"]
        q = line.details["citations"][0]["verification"]["quote"]
        assert q["pieces"] == 3 and q["share_found"] == 1.0 and "not_found" not in q


def test_passage_with_a_sentence_of_another_stored_work_names_it(
    world: WorldIndex, pages: SourceStore
) -> None:
    line = check(CitationEvalTask(world, pages), page_item(f"{A1} {B2} {A5}"))
    sv = verification(line)
    assert sv["judgement"] == "LIKELY_FABRICATED"
    assert "2 of 3 pieces" in sv["reasoning"] and "piece 2" in sv["reasoning"]
    assert f"the stored page {URL_B}" in sv["reasoning"]
    ver = line.details["citations"][0]["verification"]
    assert ver["quote"]["share_found"] == 0.6667
    [missing] = ver["quote"]["not_found"]
    assert missing["piece"] == 2 and missing["found_in"]["text"] == "store:b.txt"
    assert ver["found_elsewhere"]["source"] == f"the stored page {URL_B}"


def test_passage_quoted_from_another_page_entirely_names_it(
    world: WorldIndex, pages: SourceStore
) -> None:
    sv = verification(check(CitationEvalTask(world, pages), page_item(f"{A5} {A6}", source=URL_B)))
    assert sv["judgement"] == "LIKELY_FABRICATED"
    assert "0 of 2 pieces" in sv["reasoning"] and URL_A not in sv["reasoning"]
    assert f"store:{url_key(URL_A)}.txt" in sv["reasoning"]


def test_lightly_edited_passage_is_verified(world: WorldIndex, pages: SourceStore) -> None:
    edited = (
        "Example Trade News is the  “voice” of the home-entertainment industry. "
        "Jane Q. Doe has covered the home entertainment business for three decades.\n"
        "She previously wrote for the Harbor Reader and the Valley Times"
    )
    line = check(CitationEvalTask(world, pages), page_item(edited))
    sv = verification(line)
    assert sv["judgement"] == "VERIFIED", sv
    q = line.details["citations"][0]["verification"]["quote"]
    assert q["exact"] is False and 90 <= q["similarity"] < 100


def test_passage_from_a_source_not_in_the_world_is_uncertain(
    world: WorldIndex, pages: SourceStore
) -> None:
    sv = verification(
        check(
            CitationEvalTask(world, pages),
            page_item(f"{A1} {A3}", source="https://not-saved.example/interview"),
        )
    )
    assert sv["judgement"] == "UNCERTAIN" and sv["url_accessible"] is False
    assert "no page for it is saved" in sv["reasoning"]


def test_piece_found_nowhere_goes_to_the_judge_with_evidence_lines(
    world: WorldIndex, pages: SourceStore
) -> None:
    invented = "Doe also founded a film festival in Reno that now draws forty thousand visitors."
    line = check(CitationEvalTask(world, pages), page_item(f"{A1} {invented} {A5}"))
    sv = verification(line)
    assert sv["judgement"] == "UNCERTAIN" and "not judged" in sv["reasoning"]
    ver = line.details["citations"][0]["verification"]
    assert ver["pending_judge"] and ver["judge_quote"] == invented
    assert "2 of 3 pieces" in sv["reasoning"] and "piece 2" in sv["reasoning"]
    # the judge reads evidence lines of the page, never its menus, headings or banners
    assert ver["passages"]
    for p in ver["passages"]:
        assert not p.startswith(("#", "Home |", "Skip", "Share", "This site uses cookies", "©"))


def test_the_judge_is_asked_about_the_pieces_not_found(
    world: WorldIndex, pages: SourceStore
) -> None:
    invented = "Doe also founded a film festival in Reno that now draws forty thousand visitors."
    backend = ScriptedBackend(
        [
            ScriptRule(
                ("<claim>",), json.dumps({"label": "ENTAILMENT", "reason": "r"}), "SupportAnswer"
            ),
            ScriptRule(
                (invented,),
                json.dumps({"label": "NOT_IN_SOURCE", "reason": "No festival."}),
                "SourceCheckAnswer",
            ),
        ]
    )
    it = item(
        [cit(claim="Doe runs a trade paper.", content=f"{A1} {invented} {A5}", source=URL_A)],
        gold_answer=...,
    )
    line = CitationEvalTask(world, pages, no_gold=True).check(it)
    CitationEvalStage(Judge(backend)).apply([(it, line)])
    assert line.result is not None and validate_result("citation-eval", line.result) == []
    [source_prompt] = backend.calls[1]
    assert invented in source_prompt and A1 not in source_prompt.split("<quote>")[-1]
    assert verification(line)["judgement"] == "UNCERTAIN"


def test_heading_of_the_page_glued_to_a_sentence_of_another_names_the_other(
    world: WorldIndex, pages: SourceStore
) -> None:
    # one piece: the page's heading, then a sentence of page B; what page A lacks is looked for
    line = check(CitationEvalTask(world, pages), page_item(f"### Meet the Team: {B2}"))
    sv = verification(line)
    assert sv["judgement"] == "LIKELY_FABRICATED" and f"the stored page {URL_B}" in sv["reasoning"]


def test_quote_from_another_record_of_the_same_work_is_verified(tmp_path: Path) -> None:
    # OpenAlex often holds a report twice (the shape of 'World Development Indicators 2006' in the
    # shared works): same title, authors and year, two DOIs, two different abstracts
    twins = [
        Work(
            id="W10",
            title="Paying for Biodiversity Conservation Services",
            authors=[Author("Stefano Pagiola")],
            year=2004,
            doi="10.1596/18393",
            abstract="This report reviews payment schemes for environmental services in Latin America.",
        ),
        Work(
            id="W11",
            title="Paying for Biodiversity Conservation Services",
            authors=[Author("Stefano Pagiola")],
            year=2004,
            doi="10.1596/0-8213-5834-2",
            abstract="Adoption of improved silvopastoral practices in degraded pasture areas is thought "
            "to provide valuable local and global environmental benefits.",
        ),
        WORKS[2],
    ]
    build_index_from_works(twins, tmp_path / "t.index")
    twin_world = WorldIndex.open(tmp_path / "t.index")
    quote = "Adoption of improved silvopastoral practices in degraded pasture areas"
    line = check(CitationEvalTask(twin_world), item([cit(content=quote, source="10.1596/18393")]))
    sv = verification(line)
    assert sv["judgement"] == "VERIFIED" and "another record of the same work" in sv["reasoning"]
    facts = line.details["citations"][0]["verification"]["quote"]
    assert facts["in_other_records"][0]["work_id"] == "W11"
    # the Transformer abstract is another work: still misattributed
    other = "the Transformer, based solely on attention mechanisms, dispensing with recurrence"
    sv = verification(
        check(CitationEvalTask(twin_world), item([cit(content=other, source="10.1596/18393")]))
    )
    assert sv["judgement"] == "LIKELY_FABRICATED" and "W3" in sv["reasoning"]


def test_check_keeps_the_quote_index_in_the_cache_dir(tmp_path: Path, pages: SourceStore) -> None:
    from citejudge.run import RunConfig, run_check

    inp = tmp_path / "in.jsonl"
    rows = [
        {"id": "a", "answer": "x", "citations": [cit(content=f"{A1} {B2}", source=URL_A)]},
        {"id": "b", "answer": "x", "citations": [cit(content=f"{A3} … {A5}", source=URL_A)]},
    ]
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cfg = RunConfig(
        task="citation-eval",
        input=inp,
        out=tmp_path / "out.jsonl",
        fulltext_dir=pages.root,
        cache_dir=tmp_path / "cache",
        model="none",
        no_gold=True,
        workers=1,
    )
    summary = run_check(cfg, quiet=True)
    assert summary.errors == 0
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    labels = [
        ln["result"]["citation_evaluations"][0]["source_verification"]["judgement"] for ln in lines
    ]
    assert labels == ["LIKELY_FABRICATED", "VERIFIED"]
    assert [
        p.name[:6] for p in (tmp_path / "cache" / "source-index").glob("store-*") if p.is_dir()
    ] == ["store-"]
