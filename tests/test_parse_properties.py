"""Property tests of the citation parser: total, canonical DOIs, DOIs found in any surrounding text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.ids import norm_doi
from citejudge.match.citation import CitedWork
from citejudge.match.parse import parse_bibtex_entry, parse_citation_string, parse_metadata
from citejudge.readers.freetext._crf import join_line_breaks

_DOI = st.builds(
    lambda prefix, suffix: f"10.{prefix}/{suffix}",
    st.integers(min_value=1000, max_value=999_999_999),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._/()", min_size=1, max_size=30).filter(
        lambda s: s[-1].isalnum() and not s.startswith("/")
    ),
)
# Surrounding text: anything, but the DOI is separated from it by whitespace.
_CONTEXT = st.text(max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_never_raises(text: str) -> None:
    w = parse_citation_string(text)
    assert isinstance(w, CitedWork)
    assert all(norm_doi(d) == d for d in w.doi)


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list('@{}=,"\\ abtitleauthorand0123456789\n')), max_size=400)
)
def test_bibtex_never_raises(text: str) -> None:
    assert isinstance(parse_bibtex_entry("@article{" + text), CitedWork)
    assert isinstance(parse_citation_string("@misc{" + text), CitedWork)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["title", "authors", "year", "venue", "doi", "pmid", "pmcid", "arxiv", "url"]
        ),
        st.one_of(
            st.none(),
            st.integers(),
            st.text(max_size=50),
            st.lists(st.text(max_size=10)),
            st.dictionaries(st.text(max_size=5), st.integers()),
        ),
    )
)
def test_metadata_never_raises(meta: dict[str, object]) -> None:
    assert isinstance(parse_metadata(meta), CitedWork)


@settings(max_examples=300, deadline=None)
@given(_DOI, _CONTEXT, _CONTEXT)
def test_inserted_doi_is_found(doi: str, before: str, after: str) -> None:
    canonical = norm_doi(doi)
    if canonical is None:  # the generated string is not a DOI after canonicalisation
        return
    w = parse_citation_string(f"{before} {canonical} {after}")
    # the DOI itself, or (a documented repair) the DOI continued by a following " .digits" token
    glued = after.startswith(".") or (canonical.endswith(".") and after[:1].isdigit())
    assert canonical in w.doi or (glued and any(d.startswith(canonical) for d in w.doi))
    assert all(norm_doi(d) == d for d in w.doi)


_LINES = st.lists(st.text(alphabet="abcAB-‐ é’'1.,\t", max_size=12), min_size=1, max_size=5).map(
    "\n".join
)


@settings(max_examples=300, deadline=None)
@given(_LINES, st.frozensets(st.sampled_from(["ab-ab", "a-b", "cross-validation"])))
def test_join_line_breaks_only_removes_breaks_and_their_hyphens(
    text: str, compounds: frozenset[str]
) -> None:
    out = join_line_breaks(text, compounds)

    # the same characters but for whitespace and hyphens: no letter is lost or invented
    def core(s: str) -> str:
        return "".join(ch for ch in s if not ch.isspace() and ch != "-")

    assert core(out) == core(text)
    assert out.count("\n") <= text.count("\n")
    assert join_line_breaks(text.replace("\n", " "), compounds) == text.replace("\n", " ")
