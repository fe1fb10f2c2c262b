"""The parser's fast paths give what the slow forms they skip give (issue 27 item 3).

Each shortcut (a prefilter before a case-insensitive pattern, ASCII or printable text passed
through, ``str.split`` for ``re.split(r"\\s+")``) is checked against the plain expression on
any text, with the characters that make the shortcuts tricky drawn often: the non-ASCII letters
that case-insensitive matching pairs with ASCII ones ("ı", "İ", "ſ", the Kelvin sign),
compatibility forms that NFKC turns into ASCII ("ﬁ", fullwidth letters, "⒑"), control and
zero-width characters, and the words the patterns look for.
"""

from __future__ import annotations

import re
import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge import ids
from citejudge.readers._text import (
    _CONTROL_RE,
    _ET_AL_RE,
    _PREPRINT_RE,
    _WS_RE,
    _clean,
    _mentions_preprint,
)
from citejudge.readers.freetext._authors import (
    _drop_ellipses,
    _drop_et_al,
    _drop_marks,
    _has_et_al,
    _words,
)
from citejudge.readers.freetext._parser import _CONTAINER_EDS_RE, _EDS_MARK_RE, _eds_mark_may_end
from citejudge.readers.freetext._vocab import _AUTHOR_MARK_RE, _ELLIPSIS_RE
from citejudge.text.normalize import _CONFUSABLES, fold_confusables, may_match_ci

_PIECES = [
    "arXiv:1706.03762",
    "ArXiv",
    "arxıv",
    "ARXİV",
    "bioRxiv",
    "ſsrn",
    "SSRN",
    "Research  Square",
    "preprints.org",
    "Preprint",
    "OSF preprints",
    "PMID: 123456",
    "pmid",
    "pubmed.ncbi.nlm.nih.gov/998877",
    "PMCID: PMC12345",
    "pmc 4567",
    "doi:10.1000/xyz",
    "⒑1000/abc",
    "https://doi.org/10.5555/q",
    "httpſ://example.org/a",
    "HTTPS://EXAMPLE.ORG",
    "openalex.org/W123",
    "OPENALEX.ORG/works/w42",
    "Ｐｍｉｄ: 42",
    "ﬁeld",
    "\u212a",
    "\u00a0",
    "\u2010",
    "\u200b",
    "\x0c",
    "\x85",
    "\t\n",
    "  ",
    "Smith, J.",
    "É",
]


def _mixed(pieces: list[str]) -> st.SearchStrategy[str]:
    """Strings joined from up to 8 of ``pieces`` and short random texts."""
    return st.lists(st.one_of(st.sampled_from(pieces), st.text(max_size=5)), max_size=8).map(
        "".join
    )


_TEXT = _mixed(_PIECES)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_clean_is_the_two_substitutions(text: str) -> None:
    assert _clean(text) == _WS_RE.sub(" ", _CONTROL_RE.sub(" ", text)).strip()


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_fold_confusables_is_nfkc_then_the_table(text: str) -> None:
    assert fold_confusables(text) == unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_preprint_prefilter_never_hides_a_match(text: str) -> None:
    assert _mentions_preprint(text) == bool(_PREPRINT_RE.search(text))


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_identifier_prefilters_never_hide_a_match(text: str) -> None:
    folded = unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)
    m = ids._PMID_IN_TEXT.search(folded)
    assert ids.extract_pmid(text) == (ids.norm_pmid(m.group(1)) if m else None)
    m = ids._PMCID_IN_TEXT.search(folded)
    assert ids.extract_pmcid(text) == (
        ids.norm_pmcid((m.group(1) or m.group(2)).replace(" ", "")) if m else None
    )
    m = ids._ARXIV_IN_TEXT.search(folded)
    assert ids.extract_arxiv(text) == (ids.norm_arxiv(m.group(1)) if m else None)
    m = ids._OPENALEX_IN_TEXT.search(text)
    assert ids.extract_openalex(text) == (m.group(1).upper() if m else None)
    assert ids.extract_urls(text) == [
        ids._strip_trailing(u) for u in ids._URL_IN_TEXT.findall(folded)
    ]
    dois: list[str] = []
    for m in ids._DOI_IN_TEXT.finditer(folded.replace("](", " ](")):
        d = ids.norm_doi(m.group(1))
        if d and d not in dois:
            dois.append(d)
    assert ids.extract_dois(text) == dois


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_words_is_the_whitespace_split(text: str) -> None:
    assert _words(text) == [w for w in re.split(r"\s+", text.strip()) if w]


def test_may_match_ci_defers_to_the_pattern_on_exotic_letters() -> None:
    # "ı" matches "i" case-insensitively: the lower-cased text holds no "arxiv", the pattern does
    assert re.search("arxiv", "arxıv", re.I)
    assert may_match_ci("arxıv", ("arxiv",))
    assert not may_match_ci("a journal article", ("arxiv",))
    assert may_match_ci("ArXiv", ("arxiv",))


_NAMES = _mixed(
    [
        "et al.",
        "ET AL",
        "et.al",
        "and others",
        "a kol.",
        "u. a.",
        "U.A.",
        "…",
        "...",
        "*",
        "†",
        "Doe, J.",
        "Roe*",
        "Smith†,",
        " ",
        ", ",
        "Alı",
        "ſ",
        "Ｅｔ ａｌ",
    ]
)


@settings(max_examples=400, deadline=None)
@given(_NAMES)
def test_author_list_cleaners_are_the_substitutions(text: str) -> None:
    assert _has_et_al(text) == bool(_ET_AL_RE.search(text))
    assert _drop_et_al(text) == _ET_AL_RE.sub("", text)
    assert _drop_ellipses(text) == _ELLIPSIS_RE.sub(" ", text)
    assert bool(_ELLIPSIS_RE.search(text)) == ("…" in text or "..." in text)
    assert _drop_marks(text) == _AUTHOR_MARK_RE.sub(r"\1", text)


_EDITED = _mixed(
    [
        "Doe, J.",
        " (eds.)",
        ", Eds.",
        " ED",
        " editor",
        "Editors.)",
        " Hrsg.",
        " hg",
        " coords.",
        " (dir.)",
        " Éds.",
        " éd",
        "ed",
        " ſ",
        "ı",
        "\n",
        " .",
        ")",
        ":",
        ",",
        "Ahmed",
        "Reed",
        "(",
        " In",
        "Proceedings",
    ]
)


@settings(max_examples=400, deadline=None)
@given(_EDITED)
def test_editor_mark_shortcuts_are_the_substitutions(text: str) -> None:
    assert (_EDS_MARK_RE.sub("", text) if _eds_mark_may_end(text) else text) == _EDS_MARK_RE.sub(
        "", text
    )
    assert (
        _CONTAINER_EDS_RE.sub("", text, count=1) if "(" in text else text
    ) == _CONTAINER_EDS_RE.sub("", text, count=1)


def test_only_e_acute_pairs_with_e_acute() -> None:
    # the editor words' one non-ASCII letter: lower() finds every case-insensitive match of it
    assert [hex(c) for c in range(sys.maxunicode + 1) if re.fullmatch("é", chr(c), re.I)] == [
        "0xc9",
        "0xe9",
    ]
