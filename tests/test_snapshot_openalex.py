"""OpenAlex Work -> Work conversion: schema quirks and the real records in ../shared."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.ids import norm_doi, norm_openalex, norm_pmcid, norm_pmid
from citejudge.index import WorldIndex, build_index
from citejudge.index.codec import Fields
from citejudge.readers import openalex as oa
from citejudge.records import Author, ReadIssue, Version, Work
from citejudge.snapshot import (
    OpenAlexAbstractError,
    OpenAlexRecordError,
    Part,
    abstract_from_inverted_index,
    convert_openalex,
    decode_openalex_line,
    read_part,
)

SHARED = Path(__file__).parents[2] / "shared" / "data"
WORKS_JSONL = SHARED / "openalex" / "works.jsonl"


def base(**over: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": "https://openalex.org/W123",
        "doi": "https://doi.org/10.1000/ABC.Def",
        "title": "A title",
        "display_name": "A title",
        "publication_year": 2020,
        "ids": {"openalex": "https://openalex.org/W123", "doi": "https://doi.org/10.1000/abc.def"},
        "language": "en",
        "type": "article",
        "primary_location": {
            "landing_page_url": "https://doi.org/10.1000/abc.def",
            "source": {"display_name": "Journal of Tests", "host_organization_name": "Test Press"},
            "version": "publishedVersion",
        },
        "authorships": [
            {
                "author": {
                    "display_name": "Ada Lovelace",
                    "orcid": "https://orcid.org/0000-0002-1825-0097",
                },
                "raw_author_name": "A. Lovelace",
            },
            {
                "author": {"display_name": "Charles Babbage", "orcid": None},
                "raw_author_name": "Charles Babbage",
            },
        ],
        "is_retracted": False,
        "updated_date": "2025-03-04T01:02:03.456",
        "abstract_inverted_index": {"Hello": [0], "world": [1, 3], "again": [2]},
    }
    rec.update(over)
    return rec


def test_basic_fields() -> None:
    w = convert_openalex(base(), source="f.jsonl")
    assert w.id == "W123"
    assert w.doi == "10.1000/abc.def"
    assert w.title == "A title"
    assert w.year == 2020
    assert w.venue == "Journal of Tests"
    assert "Test Press" in w.venue_alt
    assert w.authors == [
        Author(name="Ada Lovelace", raw_name="A. Lovelace", orcid="0000-0002-1825-0097"),
        Author(name="Charles Babbage"),
    ]
    assert w.abstract == "Hello world again world"
    assert w.updated == "2025-03-04"
    assert w.language == "en" and w.type == "article" and w.source == "f.jsonl"
    assert (
        Version(year=2020, venue="Journal of Tests", doi="10.1000/abc.def", kind="published")
        in w.versions
    )


def test_bytes_and_dict_agree() -> None:
    rec = base()
    assert decode_openalex_line(json.dumps(rec).encode()) == convert_openalex(rec)


def test_null_title_falls_back_to_display_name() -> None:
    assert convert_openalex(base(title=None, display_name="Shown name")).title == "Shown name"
    assert convert_openalex(base(title=None, display_name=None)).title is None
    assert convert_openalex(base(title="   ", display_name=None)).title is None


def test_html_and_mathml_in_title_are_stripped() -> None:
    t = "Growth of <i>E. coli</i> in H<sub>2</sub>O &amp; <mml:math><mml:mi>x</mml:mi></mml:math> more"
    w = convert_openalex(base(title=t))
    assert w.title is not None
    assert "<" not in w.title and "&amp;" not in w.title
    assert w.title.startswith("Growth of E. coli in H2O &")
    assert w.title.endswith("more")


def test_pmcid_without_prefix_and_as_url_pmid_as_url_mag_str_or_int() -> None:
    ids = {
        "openalex": "W123",
        "pmcid": "8292407",
        "pmid": "https://pubmed.ncbi.nlm.nih.gov/34285252",
        "mag": "3184217783",
    }
    w = convert_openalex(base(ids=ids))
    assert (w.pmcid, w.pmid, w.mag) == ("PMC8292407", "34285252", "3184217783")
    ids2 = {"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/8292407", "mag": 3184217783}
    w2 = convert_openalex(base(ids=ids2))
    assert (w2.pmcid, w2.mag) == ("PMC8292407", "3184217783")


def test_arxiv_from_doi_and_from_locations() -> None:
    w = convert_openalex(base(doi="https://doi.org/10.48550/arXiv.2310.01362", ids={}))
    assert w.doi == "10.48550/arxiv.2310.01362" and w.arxiv == "2310.01362"
    loc = {
        "landing_page_url": "https://arxiv.org/abs/1411.5279v2",
        "pdf_url": None,
        "source": {
            "display_name": "arXiv (Cornell University)",
            "host_organization_name": "Cornell University",
        },
        "version": "submittedVersion",
    }
    rec = base()
    rec["locations"] = [rec["primary_location"], loc]
    w2 = convert_openalex(rec)
    assert w2.arxiv == "1411.5279"
    assert (
        Version(venue="arXiv (Cornell University)", arxiv="1411.5279", kind="preprint")
        in w2.versions
    )
    assert "arXiv (Cornell University)" in w2.venue_alt
    oai = {
        "id": "pmh:oai:arXiv.org:hep-th/9901001",
        "landing_page_url": None,
        "source": None,
        "version": None,
    }
    rec3 = base()
    rec3["locations"] = [rec3["primary_location"], oai]
    assert convert_openalex(rec3).arxiv == "hep-th/9901001"


def test_missing_venue_fallbacks() -> None:
    rec = base(
        primary_location={"source": None, "landing_page_url": "https://x.org/1", "version": None}
    )
    rec["locations"] = [
        rec["primary_location"],
        {"source": {"display_name": "Other Journal"}, "version": None},
    ]
    assert convert_openalex(rec).venue == "Other Journal"
    old = base(
        primary_location=None,
        host_venue={"display_name": "Old Schema Journal", "publisher": "Old Press"},
    )
    w = convert_openalex(old)
    assert w.venue == "Old Schema Journal" and "Old Press" in w.venue_alt
    raw = base(
        primary_location={"source": None, "raw_source_name": "Raw Proceedings", "version": None}
    )
    assert convert_openalex(raw).venue == "Raw Proceedings"
    none = base(primary_location={"source": None, "raw_source_name": "", "version": None})
    assert convert_openalex(none).venue is None


def test_inverted_index_as_json_string_and_v3() -> None:
    inv = json.dumps({"Parquet": [0], "rows": [1], "say": [2], "hi": [3]})
    assert convert_openalex(base(abstract_inverted_index=inv)).abstract == "Parquet rows say hi"
    v3 = {"IndexLength": 2, "InvertedIndex": {"v3": [0], "text": [1]}}
    w = convert_openalex(base(abstract_inverted_index=None, abstract_inverted_index_v3=v3))
    assert w.abstract == "v3 text"
    assert convert_openalex(base(abstract_inverted_index=None)).abstract is None
    assert abstract_from_inverted_index("") is None
    assert abstract_from_inverted_index("{not json") is None
    assert abstract_from_inverted_index({"gap": [0], "here": [5]}) == "gap here"
    # absurd positions are skipped (they made a list that long, or raised OverflowError)
    far = {"kept": [0], "far": [oa.MAX_POSITION], "huge": [2**70], "negative": [-1]}
    assert abstract_from_inverted_index(far) == "kept"
    assert convert_openalex(base(abstract_inverted_index=far)).abstract == "kept"


def test_retracted_and_author_without_display_name() -> None:
    rec = base(
        is_retracted=True,
        authorships=[{"author": None, "raw_author_name": "Raw Only"}, {"author": {}}],
    )
    w = convert_openalex(rec)
    assert w.is_retracted is True
    assert w.authors == [Author(name="Raw Only")]


def test_record_without_id_and_bad_types_raise() -> None:
    with pytest.raises(OpenAlexRecordError, match="id"):
        convert_openalex(base(id=None, ids={}))
    with pytest.raises(OpenAlexRecordError):
        convert_openalex(base(authorships="not a list"))
    with pytest.raises(OpenAlexRecordError):
        decode_openalex_line(b"{not json")
    with pytest.raises(OpenAlexRecordError):
        decode_openalex_line(b"[1, 2]")


def test_the_c_reader_is_built() -> None:
    # setup.py builds citejudge._native where a C compiler is at hand (every machine this
    # project installs on has one); without it, reading abstracts is twice as slow.
    assert oa._inverted_abstract is not None, "citejudge._native was not built (no C compiler?)"


def test_numeric_strings_are_accepted() -> None:
    assert convert_openalex(base(publication_year="2019")).year == 2019


@pytest.mark.shared
@pytest.mark.skipif(not WORKS_JSONL.exists(), reason="../shared data absent")
def test_shared_works_jsonl_reads_cleanly() -> None:
    out = list(read_part(Part(path=WORKS_JSONL, format="openalex")))
    works = [o for o in out if isinstance(o, Work)]
    issues = [o for o in out if isinstance(o, ReadIssue)]
    assert issues == []
    assert len(works) == 492
    assert len({w.id for w in works}) == 492
    assert sum(w.abstract is not None for w in works) == 446
    assert sum(w.title is None for w in works) <= 1
    assert all(w.doi is None or w.doi == w.doi.lower() for w in works)
    # conversion rate, for the report (not asserted tightly: machines differ)
    lines = WORKS_JSONL.read_bytes().splitlines()
    t = time.perf_counter()
    for line in lines:
        decode_openalex_line(line)
    rate = len(lines) / (time.perf_counter() - t)
    assert rate > 500


# --- fast paths of the ingest hot path agree with the plain implementations --------------------


def _abstract_reference(index: dict[str, list[int]]) -> str | None:
    """The plain definition: each word at each of its positions (the later word wins a shared
    position), positions read in order, gaps skipped; then the markup/whitespace clean-up."""
    placed: dict[int, str] = {}
    for word, places in index.items():
        for p in places:
            placed[p] = word
    text = " ".join(placed[p] for p in sorted(placed))
    if "<" in text or "&" in text or "\n" in text or "  " in text:
        return oa._clean(text)
    return text.strip() or None


_WORDS = st.text(
    alphabet=st.sampled_from(list("abcXYZ019 <>&;\n\t\xa0é_-.")) | st.characters(codec="utf-8"),
    min_size=0,
    max_size=8,
)
_INVERTED = st.dictionaries(
    _WORDS, st.lists(st.integers(min_value=0, max_value=40), max_size=4), max_size=30
)


def _well_formed(words: list[str]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for pos, w in enumerate(words):
        index.setdefault(w, []).append(pos)
    return index


@settings(max_examples=400, deadline=None)
@given(_INVERTED)
def test_abstract_reconstruction_equals_reference(index: dict[str, list[int]]) -> None:
    # gaps, repeated positions, positions past the end, empty position lists
    expected = _abstract_reference(index)
    assert abstract_from_inverted_index(index) == expected
    assert abstract_from_inverted_index(json.dumps(index)) == expected
    assert abstract_from_inverted_index({"IndexLength": 0, "InvertedIndex": index}) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=60))
def test_abstract_reconstruction_of_well_formed_index(words: list[str]) -> None:
    index = _well_formed(words)
    assert abstract_from_inverted_index(index) == _abstract_reference(index)
    # through the typed snapshot decoder, as ingest does it
    line = json.dumps(base(abstract_inverted_index=index))
    assert decode_openalex_line(line).abstract == (_abstract_reference(index) or None)


_URLISH = st.text(
    alphabet=st.sampled_from([*"0123456789./%2fFabcXYZ()[];:,'\"-_ \t\n", "\u2010", "١", "²"])
    | st.characters(codec="utf-8"),
    max_size=25,
)


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(["https://doi.org/", "https://doi.org/10.", "https://doi.org/10.1234/", ""]),
    _URLISH,
    st.sampled_from(["", ".", ")", ".png", ".JPEG", "%2F", " ", "\n"]),
)
def test_doi_fast_path_equals_norm_doi(prefix: str, body: str, suffix: str) -> None:
    value = prefix + body + suffix
    assert oa._doi(value) == norm_doi(value)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            "https://openalex.org/W",
            "https://pubmed.ncbi.nlm.nih.gov/",
            "https://www.ncbi.nlm.nih.gov/pmc/articles/",
            "",
        ]
    ),
    _URLISH,
)
def test_id_fast_paths_equal_ids_module(prefix: str, body: str) -> None:
    value = prefix + body
    assert oa._openalex(value) == norm_openalex(value)
    assert oa._pmid(value) == norm_pmid(value)
    assert oa._pmcid(value) == norm_pmcid(value)


def test_id_fast_paths_on_openalex_forms() -> None:
    assert oa._doi("https://doi.org/10.1038/Nature14539") == "10.1038/nature14539"
    assert oa._doi("https://doi.org/10.1038/nature14539.") == norm_doi("10.1038/nature14539.")
    assert oa._openalex("https://openalex.org/W2741809807") == "W2741809807"
    assert oa._pmid("https://pubmed.ncbi.nlm.nih.gov/000123") == "123"
    assert oa._pmid(123) == "123"
    assert oa._pmcid("https://www.ncbi.nlm.nih.gov/pmc/articles/00") == "PMC0"
    assert oa._pmcid(7) == "PMC7"


# A record whose abstract alone is malformed (a number, a list, positions as strings): the work
# is kept without its abstract and the fault is a warning naming the line and the field, in a
# full build as in a matching one (which does not read the abstract, so has nothing to report).
BAD_ABSTRACTS = [5, [1, 2], {"deep": ["x"]}, {"IndexLength": 2, "InvertedIndex": {"a": "0"}}]


@pytest.mark.parametrize("bad", BAD_ABSTRACTS)
def test_bad_abstract_keeps_the_work(bad: Any) -> None:
    for decode in (
        lambda: decode_openalex_line(json.dumps(base(abstract_inverted_index=bad))),
        lambda: convert_openalex(base(abstract_inverted_index=bad)),
    ):
        with pytest.raises(OpenAlexAbstractError, match=r"abstract.*\$\.abstract") as err:
            decode()
        assert err.value.work.id == "W123" and err.value.work.title == "A title"
        assert err.value.work.abstract is None
        assert err.value.work == decode_openalex_line(
            json.dumps(base(abstract_inverted_index=None))
        )


def test_bad_abstract_and_another_bad_field_still_rejects_the_record() -> None:
    with pytest.raises(OpenAlexRecordError, match=r"\$\.publication_year") as err:
        decode_openalex_line(json.dumps(base(abstract_inverted_index=5, publication_year=[1])))
    assert not isinstance(err.value, OpenAlexAbstractError)


def test_read_part_reports_a_bad_abstract_as_a_warning_and_keeps_the_work(tmp_path: Path) -> None:
    lines = [base(id=f"https://openalex.org/W{i}", ids={}) for i in (1, 2, 3)]
    lines[1]["abstract_inverted_index"] = {"deep": ["x"]}
    jsonl = tmp_path / "part.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    for abstract in (True, False):
        out = list(read_part(Part(path=jsonl, format="openalex"), abstract=abstract))
        works = [o for o in out if isinstance(o, Work)]
        issues = [o for o in out if isinstance(o, ReadIssue)]
        assert [w.id for w in works] == ["W1", "W2", "W3"]
        assert works[1].abstract is None
        assert works[0].abstract == ("Hello world again world" if abstract else None)
        if abstract:
            assert len(issues) == 1 and issues[0].kind == "warning" and issues[0].line == 2
            assert issues[0].file == str(jsonl) and "$.abstract_inverted_index" in issues[0].message
        else:
            assert issues == []  # not read, not checked
    listing = tmp_path / "page.json"
    listing.write_text(json.dumps({"results": lines}))
    out = list(read_part(Part(path=listing, format="openalex")))
    assert [o.id for o in out if isinstance(o, Work)] == ["W1", "W2", "W3"]
    (issue,) = [o for o in out if isinstance(o, ReadIssue)]
    assert issue.kind == "warning" and issue.message.startswith("item 1: bad abstract")


@pytest.mark.parametrize("fields", ["all", "matching"])
def test_index_keeps_a_work_whose_abstract_is_bad(tmp_path: Path, fields: Fields) -> None:
    recs = [base(id=f"https://openalex.org/W{i}", ids={}, title=f"Title {i}") for i in (1, 2)]
    recs[0]["abstract_inverted_index"] = 5
    src = tmp_path / "works.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in recs))
    report = build_index([src], tmp_path / "w.index", workers=1, fields=fields)
    ix = WorldIndex.open(tmp_path / "w.index")
    one, two = ix.get("W1"), ix.get("W2")
    assert one is not None and one.title == "Title 1" and one.abstract is None
    assert two is not None and (two.abstract is not None) == (fields == "all")
    assert ix.ids_by_title_key("title1") == ["W1"]
    kinds = [(i.kind, i.line) for i in report.issues]
    assert kinds == ([("warning", 1)] if fields == "all" else [])
