"""The C reader of inverted indexes (citejudge._native) against the Python reader.

``decode_openalex_line`` takes the C path when the module is built and falls back to msgspec
and Python for any shape the C reader leaves alone; these tests check that the two paths give
the same Works and the same errors, on hand-made shapes, random indexes and the real records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citejudge.index import build
from citejudge.index.lookup import key_hash
from citejudge.readers import openalex as oa
from citejudge.records import Version, Work
from citejudge.snapshot import OpenAlexRecordError, decode_openalex_line

try:
    from citejudge._native import inverted_abstract
except ImportError:  # reported by test_the_c_reader_is_built
    inverted_abstract = None

pytestmark = pytest.mark.skipif(inverted_abstract is None, reason="citejudge._native not built")
WORKS_JSONL = Path(__file__).parents[2] / "shared" / "data" / "openalex" / "works.jsonl"


def _outcome(line: bytes) -> tuple[str, Any]:
    """What decoding ``line`` gives: the Work, or the error's type, message and kept Work."""
    try:
        return "work", decode_openalex_line(line, "part_000.gz")
    except OpenAlexRecordError as exc:
        return type(exc).__name__, (str(exc), getattr(exc, "work", None))


def _python_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oa, "_inverted_abstract", None)
    monkeypatch.setattr(oa, "_native_convert", None)
    monkeypatch.setattr(oa, "_clean_spaces", oa._clean_spaces_py)


def _both(line: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    with_c = _outcome(line)
    _python_only(monkeypatch)
    try:
        plain = _outcome(line)
    finally:
        monkeypatch.undo()
    return with_c, plain


def _line(abstract_json: str, **over: Any) -> bytes:
    head = json.dumps({"id": "https://openalex.org/W7", "title": "T", **over})
    return (head[:-1] + ', "abstract_inverted_index": ' + abstract_json + "}").encode()


# --- the C function itself -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"null", None),
        (b" null ", None),
        (b"{}", None),
        (b'{"a": []}', None),
        (b'{"b": [1], "a": [0]}', "a b"),
        (b'{"gap": [0], "here": [5]}', "gap here"),  # positions past the count (real records)
        (b'{"x": [0, 2], "y": [1], "z": [2]}', "x y z"),  # a later word takes a position
        (b'{\n  "a" : [ 0 ] ,\t"b":[1]\r\n}', "a b"),
        (b'{"caf\\u00e9": [0], "\\ud83d\\ude00": [1], "q\\"\\\\\\/": [2]}', 'café 😀 q"\\/'),
        ('{"naïve": [0], "Ωmega": [1]}'.encode(), "naïve Ωmega"),
        (b'{"tab\\there": [0]}', "tab\there"),
        (b'{"": [0], "b": [1]}', " b"),
    ],
)
def test_rebuilds_the_usual_shapes(raw: bytes, text: str | None) -> None:
    assert inverted_abstract(raw) == text


@pytest.mark.parametrize(
    "raw",
    [
        b'"{\\"a\\": [0]}"',  # the index as a JSON string
        b'{"IndexLength": 1, "InvertedIndex": {"a": [0]}}',  # the MAG form
        b'{"a": [-1]}',
        b'{"a": [1.0]}',
        b'{"a": [1e2]}',
        b'{"a": [01]}',
        b'{"a": ["1"]}',
        b'{"a": [true]}',
        b'{"a": [1000000]}',  # far past the count
        b'{"a": [1048576]}',  # past MAX_POSITION (which the Python path skips)
        b'{"a": [0], "a": [1]}',  # a key twice (a dict keeps one)
        b'{"a": [0], "\\u0061": [1]}',  # the same key spelt another way
        b'{"\\ud800": [0]}',  # a lone surrogate
        b'{"\\udc00x": [0]}',
        b'{"\xff": [0]}',  # not UTF-8
        b'{"\xed\xa0\x80": [0]}',  # an encoded surrogate
        b'{"\xc0\xaf": [0]}',  # overlong
        b'{"a\x01": [0]}',  # a raw control character
        b'{"a": [0],}',
        b'{"a": [0]',
        b'{"a" [0]}',
        b'{"a": [0 1]}',
        b'{"a": [0]} x',
        b'{"\\x": [0]}',
        b'{"\\u12": [0]}',
        b"[]",
        b"",
    ],
)
def test_leaves_other_shapes_to_the_general_reader(raw: bytes) -> None:
    with pytest.raises(ValueError):
        inverted_abstract(raw)


# --- the record reader with and without it -------------------------------------------------

_TEXT = st.text(
    alphabet=st.sampled_from(list('abcXYZ019 <>&;"\\\n\t\xa0é_-./')) | st.characters(codec="utf-8"),
    max_size=8,
)
_POSITION = st.integers(min_value=-3, max_value=60) | st.sampled_from([10**6, 2**70])
_INVERTED = st.dictionaries(_TEXT, st.lists(_POSITION, max_size=4), max_size=25)


@settings(max_examples=400, deadline=None)
@given(_INVERTED, st.booleans(), st.sampled_from([None, 1, 2]))
@example({"gap": [0], "here": [5]}, True, None)
@example({"w": list(range(300_000)), "far": [oa.MAX_POSITION + 5]}, True, None)
@example({"IndexLength": [0], "InvertedIndex": [1]}, True, None)
def test_reader_agrees_with_the_python_path(
    index: dict[str, list[int]], ascii_only: bool, indent: int | None
) -> None:
    raw = json.dumps(index, ensure_ascii=ascii_only, indent=indent)
    mp = pytest.MonkeyPatch()
    with_c, plain = _both(_line(raw), mp)
    assert with_c == plain


@pytest.mark.parametrize(
    "raw",
    [
        '{"a": [0], "a": [1]}',
        '{"a": ["x"]}',
        '{"a": "not a list"}',
        "[1, 2]",
        "7",
        '"{\\"s\\": [0]}"',
        '{"a": [0]',
        '{"IndexLength": 2, "InvertedIndex": {"v": [0], "w": [1]}}',
        '{"a": [-1], "b": [0]}',
        '{"a": [2.5]}',
    ],
)
def test_odd_abstracts_give_the_same_work_or_error(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_c, plain = _both(_line(raw), monkeypatch)
    assert with_c == plain
    # and with another field bad too (the record is rejected either way, with one message)
    with_c, plain = _both(_line(raw, publication_year=[1]), monkeypatch)
    assert with_c == plain
    assert with_c[0] == "OpenAlexRecordError"


def test_abstract_v3_and_plain_abstract_still_read(monkeypatch: pytest.MonkeyPatch) -> None:
    v3 = {"IndexLength": 2, "InvertedIndex": {"v3": [0], "text": [1]}}
    line = _line("null", abstract_inverted_index_v3=v3)
    with_c, plain = _both(line, monkeypatch)
    assert with_c == plain
    assert with_c[1].abstract == "v3 text"
    with_c, plain = _both(_line("{}", abstract="  Plain  text "), monkeypatch)
    assert with_c == plain
    assert with_c[1].abstract == "Plain text"


@pytest.mark.shared
@pytest.mark.skipif(not WORKS_JSONL.exists(), reason="../shared data absent")
def test_real_records_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [ln for ln in WORKS_JSONL.read_bytes().splitlines() if ln.strip()]
    fast = [decode_openalex_line(ln, "works.jsonl") for ln in lines]
    fast_matching = [decode_openalex_line(ln, "works.jsonl", abstract=False) for ln in lines]
    _python_only(monkeypatch)
    plain = [decode_openalex_line(ln, "works.jsonl") for ln in lines]
    plain_matching = [decode_openalex_line(ln, "works.jsonl", abstract=False) for ln in lines]
    assert fast == plain
    assert fast_matching == plain_matching
    assert sum(w.abstract is not None for w in fast) == 446
    assert all(w.abstract is None for w in fast_matching)


# --- title block hashes ----------------------------------------------------------------------

_TITLE_WORD = (
    st.sampled_from(sorted(build.STOPWORDS))
    | st.text(alphabet=st.sampled_from(list("abcxyz019éωß")), min_size=1, max_size=12)
    | st.text(alphabet="ab", min_size=9, max_size=45)  # about MAX_TOKEN bytes and past it
    | st.text(alphabet="é", min_size=9, max_size=25)  # two bytes a character
    | st.characters(codec="utf-8", exclude_categories=["Zs", "Zl", "Zp", "Cc", "Cs"])
)
_SEPARATOR = st.sampled_from(
    [" ", " ", " ", "  ", "\t", "\xa0", "\u3000", "\n", "\x1f", "\x85", "\u2028"]
)


@st.composite
def _titles(draw: st.DrawFn) -> str:
    words = draw(st.lists(_TITLE_WORD, max_size=12))
    out = draw(st.sampled_from(["", " "]))
    for w in words:
        out += w + draw(_SEPARATOR)
    return out


@settings(max_examples=600, deadline=None)
@given(_titles())
@example("deep learning for the masses")
@example("the of and")
@example("x" * 40 + " alpha beta gamma")
@example("alpha beta gamma delta epsilon zeta")
def test_block_hashes_equal_the_hashed_keys(title: str) -> None:
    assert build._title_block_hashes is not None
    assert build._title_block_hashes(title) == [key_hash(k) for k in build.title_blocks(title)]


def test_block_hashes_of_a_very_long_title_fall_back() -> None:
    assert build._title_block_hashes is not None
    title = " ".join(f"word{i}" for i in range(600))
    with pytest.raises(ValueError):
        build._title_block_hashes(title)
    work = Work(id="W1", title=title)
    folded = build.fold_title(title)
    assert build.key_hashes(work, folded) == [key_hash(k) for k in build.work_keys(work, folded)]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([None, "", "A study of things", "Deep learning for the masses: a survey"]),
    st.sampled_from([None, "10.1/x"]),
    st.sampled_from([None, "2101.00001"]),
    st.sampled_from([None, "123"]),
    st.lists(st.sampled_from([None, "10.48550/arxiv.2101.00002", "10.2/y"]), max_size=2),
)
def test_key_hashes_equal_the_hashed_work_keys(
    title: str | None, doi: str | None, arxiv: str | None, pmid: str | None, vdois: list[str | None]
) -> None:
    work = Work(
        id="W1",
        title=title,
        doi=doi,
        arxiv=arxiv,
        pmid=pmid,
        versions=[Version(doi=d) for d in vdois],
    )
    folded = build.fold_title(title) if title else ""
    assert build.key_hashes(work, folded) == [key_hash(k) for k in build.work_keys(work, folded)]


_ID_TEXT = st.sampled_from(
    ["10.1/x", "10.1/X", "10.2/y", "", "2101.00001", "123", "PMC5", "é/ü", "ω", "\ud800", "a b"]
)
_ID_VALUE = st.none() | _ID_TEXT | st.text(max_size=6)


@st.composite
def _keyed_works(draw: st.DrawFn) -> tuple[Work, str]:
    """A work whose ids repeat across its versions, with odd values now and then."""
    versions = draw(
        st.lists(st.builds(Version, doi=_ID_VALUE, arxiv=_ID_VALUE), max_size=4)
        | st.just([Version(doi=f"10.9/{i}") for i in range(70)])  # more than C tracks
    )
    work = Work(
        id=draw(st.sampled_from(["W1", "", "Wé", "W\ud800"])),
        title=None,
        doi=draw(_ID_VALUE | st.just("10.48550/arxiv.2101.00002")),
        arxiv=draw(_ID_VALUE),
        pmid=draw(_ID_VALUE | st.just(123)),  # (an int: what the Python path makes of it)
        pmcid=draw(_ID_VALUE),
        versions=versions,
    )
    folded = draw(_titles() | st.sampled_from(["", "   ", "a\ud800 b c d", "x " * 600]))
    return work, folded


def _hashed(work: Work, folded: str) -> tuple[str, Any]:
    """What the Python path makes of a work's keys: the hashes, or the error's type."""
    try:
        return "hashes", [key_hash(k) for k in build.work_keys(work, folded)]
    except (TypeError, UnicodeEncodeError) as exc:
        return "error", type(exc).__name__


@settings(max_examples=1500, deadline=None)
@given(_keyed_works())
@example((Work(id="W1", doi="10.1/x", versions=[Version(doi="10.1/x")]), "a b c"))
@example((Work(id="W1", doi="10.48550/arxiv.2101.00002", arxiv="2101.00002"), ""))
def test_c_key_hashes_are_the_python_ones_or_left_to_python(case: tuple[Work, str]) -> None:
    work, folded = case
    assert build._key_hashes is not None
    got = build._key_hashes(work, folded)
    want = _hashed(work, folded)
    if got is not None:
        assert ("hashes", got) == want
    try:
        assert ("hashes", build.key_hashes(work, folded)) == want
    except (TypeError, UnicodeEncodeError) as exc:
        assert want == ("error", type(exc).__name__)


def test_c_key_hashes_take_the_usual_works() -> None:
    """Plain ids and titles are hashed in C (None would send every work to Python)."""
    assert build._key_hashes is not None
    work = Work(
        id="W2741809807",
        doi="10.1038/nature14539",
        arxiv="1512.03385",
        pmid="26017442",
        pmcid="PMC123",
        versions=[Version(doi="10.1038/nature14539"), Version(arxiv="1512.03385", doi="10.5/z")],
    )
    folded = "deep learning for the masses"
    got = build._key_hashes(work, folded)
    assert got == [key_hash(k) for k in build.work_keys(work, folded)]
    assert len(got) == 7 + len(build.title_blocks(folded))
    # an arXiv DOI names an arXiv id that the Python path derives: left to it
    assert build._key_hashes(Work(id="W1", doi="10.48550/arxiv.1512.03385"), "") is None


@pytest.mark.parametrize("change", ["empty", "cut", "grow"])
def test_c_key_hashes_survive_a_getter_that_changes_the_versions(change: str) -> None:
    """A version whose ``doi`` getter changes the list being walked (a review's find: C read
    the size once and held no reference to the item, so this crashed)."""

    class Plain:
        def __init__(self, **kw: Any) -> None:
            self.__dict__.update(kw)

    class Meddling:
        arxiv = None

        @property
        def doi(self) -> str:
            if change == "empty":
                del work.versions[:]
            elif change == "cut":
                del work.versions[1:]
            elif len(work.versions) < 4:
                work.versions.append(Plain(doi="10.7/added", arxiv=None))
            return "10.1/x"

    def fresh() -> list[Any]:
        return [Meddling(), *(Plain(doi=f"10.{i}/y", arxiv=None) for i in (2, 3))]

    work = Plain(id="W1", doi=None, arxiv=None, pmid=None, pmcid=None, versions=fresh())
    assert build._key_hashes is not None
    got = build._key_hashes(work, "")
    work.versions = fresh()
    assert got == [key_hash(k) for k in build.work_keys(work, "")]  # type: ignore[arg-type]


# --- whitespace clean-up -----------------------------------------------------------------------

_SPACES = [" ", "  ", "\t", "\n", "\r", "\xa0", "\u2028", "\u3000", "\x0b", "\x1c", "\x85"]
_NOT_PRINTABLE = ["\x00", "\x7f", "\u200b", "\ufeff", "\U000e0001", "\ud800"]


@settings(max_examples=800, deadline=None)
@given(
    st.lists(
        st.sampled_from(_SPACES + _NOT_PRINTABLE)
        | st.text(alphabet=st.sampled_from(list("ab é<&;ω")), max_size=5)
        | st.text(max_size=4),
        max_size=12,
    ).map("".join)
)
@example("")
@example("  ")
@example("a  b")
@example("a\tb")
@example("a\x00\tb")
@example("\u2028a\u2028")
@example("a\u2028\u2028b")
@example("é  ω\U0001f600")
@example("caf\xe9  \x80 x\xad")  # one byte a character, not ASCII (the fast first pass)
@example("\xa0\x85 na\xefve\x85")
@example("\u2013 \u2013  x")  # two bytes a character
def test_clean_spaces_equals_the_python_clean_up(text: str) -> None:
    from citejudge._native import clean_spaces

    assert clean_spaces(text) == oa._clean_spaces_py(text)


def test_clean_spaces_keeps_a_clean_string_as_is() -> None:
    from citejudge._native import clean_spaces

    text = "Already clean"
    assert clean_spaces(text) is text
    assert clean_spaces(" x ") == "x"
    with pytest.raises(TypeError):
        clean_spaces(b"bytes")  # type: ignore[arg-type]


def test_a_repeated_index_is_read_from_its_last_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The one known difference (see decode_openalex_line): with an ill-typed earlier copy, the
    # general path keeps the work without its abstract; the C path reads the last copy.
    line = _line('5, "abstract_inverted_index": {"a": [0]}')
    with_c, plain = _both(line, monkeypatch)
    assert with_c[0] == "work"
    assert with_c[1].abstract == "a"
    assert plain[0] == "OpenAlexAbstractError"
    # two well-typed copies: both read the last one
    with_c, plain = _both(_line('{"b": [0]}, "abstract_inverted_index": {"a": [0]}'), monkeypatch)
    assert with_c == plain
    assert with_c[1].abstract == "a"


def test_a_failed_configuration_keeps_the_last_one() -> None:
    from citejudge import _native

    title = "alpha an beta gamma"
    before = _native.title_block_hashes(title)
    with pytest.raises(ValueError):
        _native.configure_blocks(["zzzz"] * 5 + ["x" * 5000], 3, 5, 40)
    assert _native.title_block_hashes(title) == before
    assert before == [key_hash(k) for k in build.title_blocks(title)]


def test_a_build_without_the_module_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from citejudge.index import build_index

    world = tmp_path / "works.jsonl"
    world.write_bytes(_line('{"a": [0]}') + b"\n")
    with caplog.at_level("WARNING", logger="citejudge.index.build"):
        assert build_index([world], tmp_path / "on.index").works == 1
    assert "Python speed" not in caplog.text
    monkeypatch.setenv("CITEJUDGE_NO_NATIVE", "1")  # (as a process started with it has)
    monkeypatch.setattr(build, "_title_block_hashes", None)
    monkeypatch.setattr(build, "_key_hashes", None)
    _python_only(monkeypatch)
    with caplog.at_level("WARNING", logger="citejudge.index.build"):
        assert build_index([world], tmp_path / "off.index").works == 1
    assert "turned off (CITEJUDGE_NO_NATIVE)" in caplog.text


# --- record conversion -------------------------------------------------------------------------
# The C converter runs _convert's plain steps and calls its Python helpers for the rest; these
# records mix the usual forms with every one that takes a helper or a different branch.

_TEXT = st.sampled_from(
    [
        "Nature",
        "  Nature  ",
        "Cell\nReports",
        "A &amp; B",
        "<i>E. coli</i> growth",
        "",
        "  ",
        "Revue d\u2019\xe9conomie",
        "Zeitschrift f\xfcr  Physik",
        "\u0391\u03b2 \u03b3",
        "arXiv",
        "bioRxiv (Cold Spring Harbor Laboratory)",
        "Same Name",
    ]
) | st.text(alphabet=st.sampled_from(list("ab \t\n<&;é\xa0ω")), max_size=8)
_MAYBE_TEXT = st.none() | _TEXT
_DOIS = st.sampled_from(
    [
        "https://doi.org/10.1038/nature12373",
        "https://doi.org/10.1038/NATURE12373",
        "https://doi.org/10.1101/2020.03.01.123456v2.full.pdf",
        "https://doi.org/10.3389/x.1/full",
        "https://doi.org/10.1000/x.png",
        "https://doi.org/10.1000/a%2Fb",
        "https://doi.org/10.1000/a.",
        "https://doi.org/10.48550/arxiv.2310.01362",
        "https://doi.org/10.123/short",
        "https://doi.org/10.1234567890/long",
        "https://doi.org/10.1000/",
        "https://doi.org/",
        "https://doi.org/10.1000/x?via=y",
        "https://doi.org/10.1371/a&type=printable",
        "http://dx.doi.org/10.1000/xyz",
        "10.1000/bare",
        "https://doi.org/10.1000/caf\xe9",
        "https://doi.org/10.1000/a b",
        "",
        "not a doi",
    ]
)
_IDS = st.sampled_from(
    [
        "https://openalex.org/W2741809807",
        "https://openalex.org/W",
        "https://openalex.org/w12",
        "W123",
        "https://openalex.org/W12x",
        "https://openalex.org/W\u0661\u0662",
        "",
        "nonsense",
    ]
)
_URLS = st.none() | st.sampled_from(
    [
        "https://doi.org/10.1038/nature12373",
        "https://arxiv.org/abs/2310.01362v2",
        "http://ARXIV.ORG/pdf/1411.5279",
        "https://example.org/paper.pdf",
        "https://doi.org/10.1000/other",
        "https://DOI.ORG/10.1000/Other",
        "https://dоi.org/10.1000/cyrillic",
        "https://www.biorxiv.org/content/10.1101/2020.01.01.1",
        "https://x.org/arxiv-mirror/1411.5279",
        "",
    ]
)
_SOURCE = st.none() | st.fixed_dictionaries(
    {},
    optional={
        "display_name": _MAYBE_TEXT | st.just("arXiv (Cornell University)"),
        "host_organization_name": _MAYBE_TEXT,
        "abbreviated_title": _MAYBE_TEXT,
        "type": st.sampled_from(["journal", "repository", "ebook platform", "", None]),
    },
)
_LOCATION = st.fixed_dictionaries(
    {},
    optional={
        "id": st.none() | st.sampled_from(["pmh:oai:arXiv.org:1411.5279", "doi:10.1/x", ""]),
        "source": _SOURCE,
        "landing_page_url": _URLS,
        "pdf_url": _URLS,
        "version": st.none()
        | st.sampled_from(["publishedVersion", "submittedVersion", "acceptedVersion", "", "x"]),
        "raw_source_name": _MAYBE_TEXT,
    },
)
_ORCIDS = st.none() | st.sampled_from(
    [
        "https://orcid.org/0000-0002-1825-0097",
        "0000-0002-1825-009x",
        "0000-0002-1825-009",
        "x 0000-0002-1825-0097 0000-0001-0000-000X",
        "\u0660\u0660\u0660\u0660-0002-1825-0097",
        "",
    ]
)
_AUTHORSHIP = st.fixed_dictionaries(
    {},
    optional={
        "author": st.none()
        | st.fixed_dictionaries({}, optional={"display_name": _MAYBE_TEXT, "orcid": _ORCIDS}),
        "raw_author_name": _MAYBE_TEXT,
    },
)
_RECORD = st.fixed_dictionaries(
    {"id": _IDS},
    optional={
        "doi": st.none() | _DOIS,
        "title": _MAYBE_TEXT,
        "display_name": _MAYBE_TEXT,
        "publication_year": st.none() | st.integers(1900, 2030),
        "ids": st.none()
        | st.fixed_dictionaries(
            {},
            optional={
                "openalex": _IDS,
                "doi": st.none() | _DOIS,
                "pmid": st.none()
                | st.sampled_from(["https://pubmed.ncbi.nlm.nih.gov/31415", "0012", 31415, ""]),
                "pmcid": st.none()
                | st.sampled_from(["https://www.ncbi.nlm.nih.gov/pmc/articles/7", "PMC12", 12]),
                "mag": st.none() | st.sampled_from(["2741809807", 2741809807, " 12 ", "x"]),
            },
        ),
        "language": st.none() | st.sampled_from(["en", ""]),
        "type": st.none() | st.sampled_from(["article", "preprint", ""]),
        "primary_location": st.none() | _LOCATION,
        "locations": st.none() | st.lists(_LOCATION, max_size=3),
        "host_venue": st.none()
        | st.fixed_dictionaries(
            {},
            optional={
                "display_name": _MAYBE_TEXT,
                "publisher": _MAYBE_TEXT,
                "url": _URLS,
                "abbreviated_title": _MAYBE_TEXT,
            },
        ),
        "authorships": st.none() | st.lists(_AUTHORSHIP, max_size=4),
        "is_retracted": st.none() | st.booleans(),
        "updated_date": st.none() | st.sampled_from(["2024-01-15T10:00:00", "2024", ""]),
        "abstract_inverted_index": st.none()
        | st.sampled_from([{"A": [0], "study": [1]}, {"x<b>": [0]}, {"a": [0, 2], "b": [1]}]),
        "abstract_inverted_index_v3": st.none()
        | st.sampled_from([{"IndexLength": 1, "InvertedIndex": {"V3": [0]}}, "{}"]),
        "abstract": _MAYBE_TEXT,
    },
)


def _converted(record: dict[str, Any], *, abstract: bool = True) -> tuple[Any, Any]:
    """(C, Python) conversions of the record, each a Work or the error's type and message.

    ``abstract=False``: decoded without its abstract, as ``index build --fields matching`` reads.
    """
    line = json.dumps(record).encode()
    if abstract:
        rec: Any = oa._RAW_DECODER.decode(line)
        inverted = oa._inverted_abstract(rec.abstract_inverted_index)
    else:
        rec, inverted = oa._META_DECODER.decode(line), None

    def run(convert: Any, *extra: Any) -> Any:
        try:
            return convert(rec, "part_000.gz", inverted, *extra)
        except Exception as exc:  # the two must fail alike too
            return type(exc).__name__, str(exc)

    return run(oa._native_convert, abstract), run(oa._convert)


@settings(max_examples=1500, deadline=None)
@given(_RECORD, st.booleans())
def test_the_c_converter_gives_the_python_work(record: dict[str, Any], abstract: bool) -> None:
    with_c, plain = _converted(record, abstract=abstract)
    if with_c is None:  # no id of the usual form: the Python path says what is wrong
        assert plain == ("OpenAlexRecordError", plain[1])
    else:
        assert with_c == plain
        assert list(with_c.venue_kinds.items()) == list(plain.venue_kinds.items())  # (order too)
        assert abstract or with_c.abstract is None


def test_the_c_converter_on_a_preprint_with_a_published_twin() -> None:
    """The shape of a real record: arXiv location, journal location, DOI given twice."""
    record = {
        "id": "https://openalex.org/W3",
        "doi": "https://doi.org/10.1038/S41586-021-03819-2",
        "title": "Highly  accurate protein structure prediction with <i>AlphaFold</i>",
        "publication_year": 2021,
        "ids": {
            "openalex": "https://openalex.org/W3",
            "pmid": "https://pubmed.ncbi.nlm.nih.gov/34265844",
        },
        "primary_location": {
            "landing_page_url": "https://doi.org/10.1038/s41586-021-03819-2",
            "source": {"display_name": "Nature", "host_organization_name": "Springer Nature"},
            "version": "publishedVersion",
        },
        "locations": [
            {
                "landing_page_url": "https://doi.org/10.1038/s41586-021-03819-2",
                "source": {"display_name": "Nature", "host_organization_name": "Springer Nature"},
                "version": "publishedVersion",
            },
            {
                "landing_page_url": "https://arxiv.org/abs/2107.00001",
                "source": {"display_name": "arXiv (Cornell University)"},
                "version": "submittedVersion",
            },
        ],
        "authorships": [
            {
                "author": {
                    "display_name": "John Jumper",
                    "orcid": "https://orcid.org/0000-0001-6169-6580",
                },
                "raw_author_name": "John  Jumper",
            },
            {"author": None, "raw_author_name": "Richard Evans"},
        ],
        "updated_date": "2024-03-01T00:00:00.000000",
    }
    with_c, plain = _converted(record)
    assert with_c == plain
    assert _converted(record, abstract=False)[0] == plain  # (it has no abstract)
    assert isinstance(with_c, Work)
    assert with_c.title == "Highly accurate protein structure prediction with AlphaFold"
    assert with_c.arxiv == "2107.00001"
    assert [v.kind for v in with_c.versions] == ["published", "preprint"]
    assert with_c.authors[0].raw_name is None  # (the same name once its spaces are cleaned)
    assert with_c.authors[0].orcid == "0000-0001-6169-6580"
    assert with_c.venue_alt == ["arXiv (Cornell University)", "Springer Nature"]


def test_the_c_converter_leaves_a_record_without_an_id_to_python() -> None:
    raw = oa._RAW_DECODER.decode(b'{"id": "nonsense", "title": "T"}')
    assert oa._native_convert(raw, None, None, True) is None
    with pytest.raises(OpenAlexRecordError, match="without a valid OpenAlex id"):
        decode_openalex_line(b'{"id": "nonsense", "title": "T"}')
