"""The deterministic references task: resolution, strict validation, dependency rule, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citejudge.index import WorldIndex, build_index_from_works
from citejudge.io import Item
from citejudge.records import Author, Redirect, Version, Work
from citejudge.schema import validate_result
from citejudge.tasks.references import DEPENDENCY_CONTENT, ReferencesTask

WORKS = [
    Work(
        id="W1",
        title="Deep Residual Learning for Image Recognition",
        authors=[
            Author("Kaiming He"),
            Author("Xiangyu Zhang"),
            Author("Shaoqing Ren"),
            Author("Jian Sun"),
        ],
        year=2016,
        venue="2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)",
        doi="10.1109/cvpr.2016.90",
        type="article",
        versions=[Version(year=2015, arxiv="1512.03385", kind="preprint")],
    ),
    Work(
        id="W2",
        title="Deep learning",
        authors=[Author("Yann LeCun"), Author("Yoshua Bengio"), Author("Geoffrey E. Hinton")],
        year=2015,
        venue="Nature",
        doi="10.1038/nature14539",
        pmid="26017442",
        type="review",
    ),
    Work(
        id="W3",
        title="Long Short-Term Memory",
        authors=[Author("Sepp Hochreiter"), Author("Jürgen Schmidhuber")],
        year=1997,
        venue="Neural Computation",
        doi="10.1162/neco.1997.9.8.1735",
        pmid="9377276",
        pmcid="PMC1234567",
    ),
    # Two distinct works sharing a title: only other metadata can tell them apart.
    Work(
        id="W4",
        title="A Survey of Graph Neural Networks",
        authors=[Author("Ana Novak")],
        year=2020,
        venue="Journal of Graphs",
    ),
    Work(
        id="W5",
        title="A Survey of Graph Neural Networks",
        authors=[Author("Bo Chen")],
        year=2021,
        venue="Graph Letters",
    ),
    Work(
        id="W6",
        title="Adam: A Method for Stochastic Optimization",
        authors=[Author("Diederik P. Kingma"), Author("Jimmy Ba")],
        year=2014,
        venue="arXiv (Cornell University)",
        doi="10.48550/arxiv.1412.6980",
        arxiv="1412.6980",
        type="preprint",
    ),
    Work(
        id="W7",
        title="Efficient Estimation of Word Representations in Vector Space",
        authors=[
            Author("Tomáš Mikolov", raw_name="Tomas Mikolov"),
            Author("Kai Chen"),
            Author("Greg S. Corrado"),
            Author("Jeffrey Dean"),
        ],
        year=2013,
        venue="arXiv (Cornell University)",
        arxiv="1301.3781",
        type="preprint",
    ),
]


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> ReferencesTask:
    path = tmp_path_factory.mktemp("idx") / "world.index"
    build_index_from_works(WORKS, path, redirects=[Redirect("W99", "W2"), Redirect("W98", None)])
    return ReferencesTask(WorldIndex.open(path), today_year=2026)


def run(task: ReferencesTask, **data: object) -> tuple[dict[str, str], dict[str, object]]:
    line = task.check(Item("x", dict(data), "t.jsonl", 1))
    assert line.error is None, line.error
    assert line.result is not None
    assert validate_result("references", line.result) == []
    return line.result, line.details


def ref(result: dict[str, str]) -> str:
    return result["reference_grounding"].split(".", 1)[0]


def test_faithful_apa_is_yes(task: ReferencesTask) -> None:
    res, details = run(
        task,
        claim="ResNets won ILSVRC 2015.",
        full_citation=(
            "He, K., Zhang, X., Ren, S., & Sun, J. (2016). Deep residual learning for image recognition. "
            "In 2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR). https://doi.org/10.1109/CVPR.2016.90"
        ),
    )
    assert ref(res) == "Yes", res
    assert res["hallucination"] == "No" and res["abstention"] == "No"
    assert details["match"]["work_id"] == "W1"  # type: ignore[index]


def test_swapped_authors_are_no(task: ReferencesTask) -> None:
    res, _ = run(
        task,
        full_citation="Zhang, X., He, K., Ren, S., & Sun, J. (2016). Deep residual learning for "
        "image recognition. CVPR.",
    )
    assert ref(res) == "No" and "order" in res["reference_grounding"]
    assert res["content_grounding"] == DEPENDENCY_CONTENT and res["hallucination"] == "Yes"


def test_wrong_year_names_both_years(task: ReferencesTask) -> None:
    res, _ = run(
        task,
        metadata={
            "title": "Deep learning",
            "authors": ["LeCun, Y.", "Bengio, Y.", "Hinton, G."],
            "year": 2016,
            "venue": "Nature",
        },
    )
    assert ref(res) == "No"
    assert "2016" in res["reference_grounding"] and "2015" in res["reference_grounding"]


def test_real_doi_on_another_title_is_no(task: ReferencesTask) -> None:
    res, details = run(
        task,
        full_citation="LeCun Y, Bengio Y, Hinton G. Dropout in convolutional networks. "
        "Nature. 2015;521:436-444. doi:10.1038/nature14539",
    )
    assert ref(res) == "No" and "Title" in res["reference_grounding"]
    assert details["match"]["work_id"] == "W2"  # type: ignore[index]


def test_contradictory_identifiers(task: ReferencesTask) -> None:
    res, _ = run(task, metadata={"doi": "10.1038/nature14539", "pmid": "9377276"})
    assert ref(res) == "No" and "Identifier conflict" in res["reference_grounding"]


def test_ambiguous_title_lists_candidates(task: ReferencesTask) -> None:
    res, _ = run(task, metadata={"title": "A survey of graph neural networks"})
    assert ref(res) == "No" and "Ambiguous" in res["reference_grounding"]
    assert "W4" in res["reference_grounding"] and "W5" in res["reference_grounding"]


def test_ambiguity_resolved_by_stated_author(task: ReferencesTask) -> None:
    res, details = run(
        task,
        metadata={
            "title": "A survey of graph neural networks",
            "authors": ["B. Chen"],
            "year": 2021,
        },
    )
    assert ref(res) == "Yes", res
    assert details["match"]["work_id"] == "W5"  # type: ignore[index]


def test_preprint_year_accepted_only_for_preprint_citation(task: ReferencesTask) -> None:
    pre, _ = run(
        task,
        full_citation="He K, Zhang X, Ren S, Sun J. Deep Residual Learning for Image Recognition. "
        "arXiv preprint arXiv:1512.03385. 2015.",
    )
    assert ref(pre) == "Yes", pre
    pub, _ = run(
        task,
        metadata={
            "title": "Deep Residual Learning for Image Recognition",
            "year": 2015,
            "venue": "CVPR",
            "authors": ["Kaiming He", "Xiangyu Zhang", "Shaoqing Ren", "Jian Sun"],
        },
    )
    assert ref(pub) == "No"


def test_name_forms_are_not_differences(task: ReferencesTask) -> None:
    res, _ = run(
        task,
        full_citation=r"@article{m, title={Efficient estimation of word representations in vector "
        r"space}, author={Mikolov, Tom{\'a}{\v{s}} and Chen, Kai and Corrado, Greg and "
        r"Dean, Jeff}, journal={arXiv preprint arXiv:1301.3781}, year={2013}}",
    )
    assert ref(res) == "Yes", res


def test_pmcid_without_prefix_and_pmid(task: ReferencesTask) -> None:
    res, _ = run(task, metadata={"pmcid": "1234567", "title": "Long short-term memory"})
    assert ref(res) == "Yes", res
    res2, _ = run(task, metadata={"pmid": "26017442", "title": "Long short-term memory"})
    assert ref(res2) == "No"


def test_merged_openalex_id_followed(task: ReferencesTask) -> None:
    res, details = run(task, metadata={"url": "https://openalex.org/W99", "title": "Deep learning"})
    match = details["match"]
    assert match["work_id"] == "W2" and "W99 was merged into W2" in match["notes"]  # type: ignore[index]
    # the cited id is not the record's id: a merged id is reported, not silently accepted
    assert ref(res) == "No" and "W99" in res["reference_grounding"]


def test_deleted_openalex_id_is_reported(task: ReferencesTask) -> None:
    res, details = run(task, metadata={"url": "https://openalex.org/W98"})
    assert ref(res) == "No"
    assert "W98 was deleted from OpenAlex" in details["match"]["notes"]  # type: ignore[index]


def test_not_in_world_is_no(task: ReferencesTask) -> None:
    res, _ = run(
        task,
        full_citation="Smith, A. (2021). Universal graph transformers for molecules. J. Chem. Learn.",
    )
    assert ref(res) == "No" and "Not found" in res["reference_grounding"]


def test_et_al_checks_only_named_authors(task: ReferencesTask) -> None:
    ok, _ = run(
        task, full_citation="He, K. et al. Deep residual learning for image recognition. CVPR 2016."
    )
    assert ref(ok) == "Yes", ok
    bad, _ = run(
        task,
        full_citation="Ren, S. et al. Deep residual learning for image recognition. CVPR 2016.",
    )
    assert ref(bad) == "No"


def test_full_citation_and_metadata_conflict(task: ReferencesTask) -> None:
    res, details = run(
        task,
        full_citation="Hochreiter S, Schmidhuber J. Long short-term memory. Neural Comput. "
        "1997;9(8):1735-80.",
        metadata={"year": 1998},
    )
    assert ref(res) == "No" and "inconsistent" in res["reference_grounding"]
    assert details["conflicts"]


def test_abstention_short_circuits(task: ReferencesTask) -> None:
    res, _ = run(
        task,
        claim="I would need to check the paper to confirm this.",
        metadata={"title": "Deep learning"},
    )
    assert res["abstention"] == "Yes" and res["reference_grounding"].startswith("N/A")
    assert res["hallucination"] == "No"


@pytest.mark.parametrize(
    "data",
    [
        {"metadata": {"url": "https://en.wikipedia.org/wiki/Eiffel_Tower"}},
        {"full_citation": "https://en.wikipedia.org/wiki/Eiffel_Tower"},
        # the "Sources:" list of a generated report
        {"full_citation": "1. https://www.who.int/news-room/fact-sheets/detail/malaria"},
    ],
)
def test_a_bare_web_address_is_a_verification_error(
    task: ReferencesTask, data: dict[str, Any]
) -> None:
    # opening the page is the only check there is, and an offline run cannot: N/A, not "No"
    res, details = run(task, claim="The tower is 330 m tall.", **data)
    assert validate_result("references", res) == []
    assert res["reference_grounding"].startswith(
        "N/A. The citation names only a web address (https://"
    )
    assert res["content_grounding"].startswith("N/A.")
    assert (res["hallucination"], res["verification_error"]) == ("No", "Yes")
    assert details["grounded"] is False


EIFFEL_PAGE = """<html><head><title>Eiffel Tower</title><script>var menu = 1;</script></head>
<body><nav>Main page | Contents | Random article</nav><h1>Eiffel Tower</h1>
<p>The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.</p>
<p>The tower is 330 metres (1,083 ft) tall, about the same height as an 81-storey building.</p>
</body></html>"""


def test_a_web_address_whose_page_is_in_the_source_store(
    task: ReferencesTask, tmp_path: Path
) -> None:
    """The "Sources:" of a generated report, with the pages saved: the page is the page, and
    the claim is judged against its text (never its menus or scripts)."""
    from citejudge.judge.backends.scripted import ScriptedBackend, ScriptRule
    from citejudge.judge.core import Judge
    from citejudge.sources import SourceStore
    from citejudge.tasks.references import ContentStage

    store = tmp_path / "store"
    (store / "pages").mkdir(parents=True)
    (store / "pages" / "eiffel.html").write_text(EIFFEL_PAGE, encoding="utf-8")
    (store / "index.jsonl").write_text(
        json.dumps(
            {"url": "https://en.wikipedia.org/wiki/Eiffel_Tower", "file": "pages/eiffel.html"}
        )
        + "\n",
        encoding="utf-8",
    )
    with_store = ReferencesTask(task.world, today_year=2026, store=SourceStore.open(store))
    items = [
        Item(
            "tall",
            {
                "claim": "The tower is 330 metres tall.",
                "full_citation": "http://www.en.wikipedia.org/wiki/Eiffel_Tower/",
            },
            "t.jsonl",
            1,
        ),
        Item(
            "old",
            {
                "claim": "The tower opened in 1920.",
                "metadata": {"url": "https://en.wikipedia.org/wiki/Eiffel_Tower"},
            },
            "t.jsonl",
            2,
        ),
        Item(
            "other",
            {"claim": "x", "metadata": {"url": "https://example.org/unsaved"}},
            "t.jsonl",
            3,
        ),
    ]
    lines = [with_store.check(it) for it in items]
    assert [ref(ln.result or {}) for ln in lines] == ["Yes", "Yes", "N/A"]
    assert (
        "saved in the local source store (pages/eiffel.html)"
        in (lines[0].result or {})["reference_grounding"]
    )
    backend = ScriptedBackend(
        [
            ScriptRule(
                ("330 metres tall", "330 metres (1,083 ft)"),
                '{"label": "SUPPORTED", "missing": ""}',
                "ClaimSupport",
            ),
            ScriptRule(
                ("opened in 1920", "330 metres (1,083 ft)"),
                '{"label": "NOT_SUPPORTED", "missing": "1920"}',
                "ClaimSupport",
            ),
        ]
    )
    ContentStage(task.world, Judge(backend), store).apply(list(zip(items, lines, strict=True)))
    assert [(ln.result or {})["content_grounding"].split(".")[0] for ln in lines] == [
        "Yes",
        "No",
        "N/A",
    ]
    assert (lines[1].result or {})["hallucination"] == "Yes"
    assert lines[0].details["content"]["evidence"] == "store:pages/eiffel.html"
    prompts = [p for call in backend.calls for p in call]
    assert prompts and not any("var menu" in p or "Random article" in p for p in prompts)
    for ln in lines:
        assert validate_result("references", ln.result or {}) == []


@pytest.mark.parametrize(
    "data",
    [
        {"metadata": {"url": "https://doi.org/10.1234/nothing.here"}},  # a DOI: looked up
        # a paper's address (a scholarly host, a PDF) or a paper's venue: the world should
        # hold it, and it does not
        {
            "metadata": {
                "url": "https://openreview.net/forum?id=abc",
                "title": "A title nobody wrote",
            }
        },
        {"full_citation": "A title nobody wrote. https://www.cs.example.edu/~me/paper.pdf"},
        {
            "full_citation": "Smith, J. (2020). A title nobody wrote. Journal of Things, 3, 1-9. "
            "https://example.org/p"
        },
    ],
)
def test_a_web_address_with_something_to_look_up_is_looked_up(
    task: ReferencesTask, data: dict[str, Any]
) -> None:
    res, _ = run(task, **data)
    assert ref(res) == "No" and res["verification_error"] == "No", res


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"full_citation": "et al."},
        {"full_citation": "x" * 1_000_000},
        {"full_citation": "\x00\x01\x02\xff\ufffd" * 100},
        {"metadata": {"title": "Long short-term memory", "year": "in press"}},
        {"metadata": {"title": "Long short-term memory", "year": "n.d."}},
        {"metadata": {"title": "Long short-term memory", "year": "1997a"}},
        {"metadata": {"doi": "10.1162/ neco.1997.9.8.1735"}},
        {"metadata": {"doi": "10.1162\u2010neco.1997.9.8.1735"}},
        {"metadata": {"doi": "10.1162/neco\u20131997\u20109\u20108\u20101735"}},
        {"metadata": {"title": 42, "authors": {"a": 1}}},
        {"claim": ["not", "a", "string"], "metadata": {"title": "Deep learning"}},
        {
            "full_citation": {
                "title": "Deep learning",
                "author": [{"family": "LeCun", "given": "Yann"}],
            }
        },
    ],
)
def test_bad_input_never_crashes(task: ReferencesTask, data: dict[str, object]) -> None:
    line = task.check(Item("bad", data, "bad.jsonl", 7))
    if line.result is None:
        assert line.error and line.error["message"] and line.error["line"] == 7
    else:
        assert validate_result("references", line.result) == []


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"metadata": {"title": 5}}, "metadata.title"),
        ({"metadata": {"authors": [[1, 2], {"a": 1}], "year": "abc"}}, "metadata.authors[0]"),
        (
            {"metadata": {"title": "Deep learning", "authors": ["Yann LeCun", 3]}},
            "metadata.authors[1]",
        ),
        ({"metadata": {"title": "Deep learning", "year": [2015]}}, "metadata.year"),
        ({"metadata": {"title": "Deep learning", "year": "abc"}}, "metadata.year"),
        ({"metadata": {"title": "Deep learning", "doi": 10.1038}}, "metadata.doi"),
        ({"metadata": "Deep learning"}, "metadata"),
        ({"full_citation": 12}, "full_citation"),
    ],
)
def test_wrong_types_are_input_errors_naming_the_field(
    task: ReferencesTask, data: dict[str, object], field: str
) -> None:
    line = task.check(Item("t", data, "in.jsonl", 4))
    assert line.result is None and line.error is not None
    assert (
        line.error["kind"] == "input" and line.error["field"] == field and line.error["line"] == 4
    )
    assert field in line.error["message"]


def test_a_year_that_is_not_a_year_is_an_input_error(tmp_path: Path) -> None:
    # tests/fixtures/metadata_years.jsonl: years that are not years ("abc", "Autumn", 19997) and
    # the forms a year is written in ("1997a", "1997-11-15", "Nov. 1997", "n.d.", blank)
    from citejudge.cli import main

    index = tmp_path / "world.index"
    build_index_from_works(WORKS, index)
    src = Path(__file__).parent / "fixtures" / "metadata_years.jsonl"
    out = tmp_path / "out.jsonl"
    args = ["check", "references", str(src), "--index", str(index), "--out", str(out)]
    assert main([*args, "--no-llm", "-q", "--workers", "1"]) == 0
    lines = {d["id"]: d for d in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    for n, key in enumerate(("word", "season", "typo"), start=1):
        err = lines[key]["error"]
        assert lines[key]["result"] is None and err is not None, key
        assert (err["kind"], err["field"], err["line"]) == ("input", "metadata.year", n)
        assert err["file"] == str(src) and "is not a year" in err["message"]
    for key in ("plain", "string", "letter", "date", "month", "undated", "blank"):
        assert lines[key]["error"] is None, (key, lines[key]["error"])
        assert lines[key]["result"]["reference_grounding"].startswith("Yes"), key


def test_empty_item_names_the_field(task: ReferencesTask) -> None:
    line = task.check(Item("e", {}, "in.jsonl", 3))
    assert line.result is None and line.error is not None
    assert line.error["field"] == "full_citation" and line.error["file"] == "in.jsonl"


def test_year_forms(task: ReferencesTask) -> None:
    for year, expected in [("1997a", "Yes"), ("n.d.", "Yes"), ("in press", "No")]:
        res, _ = run(
            task,
            metadata={
                "title": "Long short-term memory",
                "authors": ["Hochreiter, S.", "Schmidhuber, J."],
                "year": year,
            },
        )
        assert ref(res) == expected, (year, res)


def test_doi_with_spaces_and_confusables_resolve(task: ReferencesTask) -> None:
    for doi in [
        "10.1162/ neco.1997.9.8.1735",
        "doi: 10.1162/neco.1997.9.8.1735.",
        "https://dx.doi.org/10.1162/NECO.1997.9.8.1735",
        "10.1162/neco.1997\u200b.9.8.1735",
    ]:
        _, details = run(task, metadata={"doi": doi})
        assert details["match"]["work_id"] == "W3", (doi, details)  # type: ignore[index]


def test_output_file_round_trip(task: ReferencesTask, tmp_path: Path) -> None:
    res, _ = run(
        task,
        metadata={
            "title": "Deep learning",
            "authors": "LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey",
            "year": 2015,
            "venue": "Nature",
        },
    )
    assert ref(res) == "Yes", res


def test_matching_only_index_same_verdicts_and_says_it_has_no_text(tmp_path: Path) -> None:
    """``--fields matching`` drops abstracts: reference grounding is unchanged, and content
    grounding names the index as the reason it cannot check (never a guessed "No")."""
    from dataclasses import replace as dc_replace

    from msgspec.structs import replace

    from citejudge.judge.backends.scripted import ScriptedBackend
    from citejudge.judge.core import Judge
    from citejudge.tasks.references import NO_TEXT_INDEX, ContentStage

    works = [replace(w, abstract=f"{w.title} is studied here in depth.") for w in WORKS]
    full, lean = tmp_path / "all.index", tmp_path / "matching.index"
    build_index_from_works(works, full)
    build_index_from_works(works, lean, fields="matching")
    a, b = WorldIndex.open(full), WorldIndex.open(lean)
    assert a.has_text and not b.has_text
    assert b.get("W1") is not None and b.get("W1").abstract is None  # type: ignore[union-attr]
    item = Item(
        "x",
        {
            "claim": "ResNets are deep.",
            "full_citation": (
                "He, K., Zhang, X., Ren, S., & Sun, J. (2016). Deep residual learning for image recognition. CVPR."
            ),
        },
        "t.jsonl",
        1,
    )
    lines = [ReferencesTask(ix, today_year=2026).check(item) for ix in (a, b)]
    assert lines[0].result == lines[1].result and lines[0].details == lines[1].details
    ln = dc_replace(lines[1])
    backend = ScriptedBackend(rules=[])
    ContentStage(b, judge=Judge(backend)).apply([(item, ln)])
    assert not any(backend.calls)  # nothing was asked: there is no text to judge
    assert ln.result is not None
    assert ln.result["content_grounding"] == NO_TEXT_INDEX.format(wid="W1")
    assert ln.result["verification_error"] == "Yes"


@pytest.mark.parametrize(
    "data",
    [
        # the reference list of a DocBook specification and of a generated report
        {"full_citation": "The GNOME desktop, http://www.gnome.org"},
        {
            "full_citation": "Key words for use in RFCs to Indicate Requirement Levels, "
            "http://www.ietf.org/rfc/rfc2119.txt?number=2119"
        },
        {
            "full_citation": "World Health Organization. (2023). Malaria fact sheet. "
            "https://www.who.int/news-room/fact-sheets/detail/malaria"
        },
        {"metadata": {"url": "https://example.org/p", "title": "A title nobody wrote"}},
    ],
)
def test_a_web_page_cited_with_its_title_is_a_verification_error(
    task: ReferencesTask, data: dict[str, Any]
) -> None:
    """A web page's citation that no scholarly record matches is not a hallucination: opening
    the page is the check, and an offline run cannot (the bare-address rule, with a title)."""
    res, details = run(task, claim="x", **data)
    assert validate_result("references", res) == []
    assert res["reference_grounding"].startswith("N/A. The citation cites the web page (http"), res
    assert (res["hallucination"], res["verification_error"]) == ("No", "Yes")
    assert details["web_page"] is True and details["grounded"] is False


def test_a_web_page_cited_with_its_title_is_read_from_the_source_store(
    task: ReferencesTask, tmp_path: Path
) -> None:
    from citejudge.sources import SourceStore

    store = tmp_path / "store"
    (store / "pages").mkdir(parents=True)
    (store / "pages" / "rfc2119.txt").write_text(
        "Key words for use in RFCs to Indicate Requirement Levels. The key word MUST means "
        "that the definition is an absolute requirement of the specification.",
        encoding="utf-8",
    )
    url = "http://www.ietf.org/rfc/rfc2119.txt?number=2119"
    (store / "index.jsonl").write_text(
        json.dumps({"url": url, "file": "pages/rfc2119.txt"}) + "\n", encoding="utf-8"
    )
    with_store = ReferencesTask(task.world, today_year=2026, store=SourceStore.open(store))
    line = with_store.check(
        Item(
            "rfc",
            {"claim": "MUST means an absolute requirement.", "full_citation": f"RFC 2119. {url}"},
            "t.jsonl",
            1,
        )
    )
    assert ref(line.result or {}) == "Yes", line.result
    assert line.details["match"] == {
        "status": "source_store",
        "url": url,
        "file": "store:pages/rfc2119.txt",
    }
