"""The ground-floor text functions: the sentence splitter, the scorer's evidence windows, language detection."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import citejudge.text
from citejudge.text import (
    detect_language,
    evidence_units,
    evidence_windows,
    split_sentences,
    split_units,
)

TEXT_PKG = Path(citejudge.text.__file__).resolve().parent


def test_split_sentences_keeps_abbreviations_and_numbers_inside() -> None:
    text = "Smith et al. showed X in 2019. The effect was 12.5% (Fig. 2). Dr. No agreed."
    assert split_sentences(text) == [
        "Smith et al. showed X in 2019.",
        "The effect was 12.5% (Fig. 2).",
        "Dr. No agreed.",
    ]
    assert split_sentences("We used e.g. Adam. It converged.") == [
        "We used e.g. Adam.",
        "It converged.",
    ]
    # web pages (WiCE): a month, a case name, a title, "U.S." and page numbers end no sentence
    text = (
        "The Library of Congress announced Wednesday, Dec. 12, 2018, the films. "
        "Brown v. Board of Education was decided by the U.S. Supreme Court. "
        "Rep. Fred Upton agreed. See vol. 287, pp. 224-228. It ended."
    )
    assert split_sentences(text) == [
        "The Library of Congress announced Wednesday, Dec. 12, 2018, the films.",
        "Brown v. Board of Education was decided by the U.S. Supreme Court.",
        "Rep. Fred Upton agreed.",
        "See vol. 287, pp. 224-228.",
        "It ended.",
    ]


def test_split_sentences_czech_and_whitespace() -> None:
    text = "Síť má 60 milionů parametrů.\n\nTrénovala se   šest dnů, tj. týden. Např. Novák to potvrdil."
    assert split_sentences(text) == [
        "Síť má 60 milionů parametrů.",
        "Trénovala se šest dnů, tj. týden.",
        "Např. Novák to potvrdil.",
    ]
    assert split_sentences("") == [] and split_sentences(" \n ") == []
    assert split_sentences("no final stop") == ["no final stop"]


def test_split_sentences_drops_a_closing_quote_after_the_stop() -> None:
    # Kept as it has always been (changing it changes results): the quote after the stop is dropped.
    assert split_sentences('He said "It works." Then he left.') == [
        'He said "It works.',
        "Then he left.",
    ]


_PROSE = st.lists(
    st.sampled_from(
        [
            "Smith",
            "et",
            "al.",
            "The",
            "effect",
            "was",
            "12.5%",
            "(Fig.",
            "2).",
            "Dr.",
            "No",
            "agreed.",
            "it",
            "works!",
            "Why?",
            "Síť",
            "tj.",
            '"Yes."',
            "\n",
            "  ",
        ]
    ),
    max_size=40,
).map(" ".join)


@given(_PROSE)
def test_sentences_are_non_empty_pieces_of_the_collapsed_text_in_order(text: str) -> None:
    collapsed = " ".join(text.split())
    pos = 0
    for s in split_sentences(text):
        assert s and s == s.strip()
        at = collapsed.find(s, pos)
        assert at >= 0
        pos = at + len(s)


def test_evidence_windows_merge_short_pieces_and_never_come_back_empty() -> None:
    text = (
        "The first sentence is here. Another sentence follows it! And 3 more come after this? Ok."
    )
    assert evidence_windows(text) == [
        "The first sentence is here.",
        "Another sentence follows it!",
        "And 3 more come after this? Ok.",
    ]
    assert evidence_windows("single") == ["single"]
    assert evidence_windows("") == [""]
    # no abbreviation rule: the scorer's calibrations were fitted on exactly this split
    assert evidence_windows("Smith et al. Showed that the effect is large. Yes.") == [
        "Smith et al.",
        "Showed that the effect is large. Yes.",
    ]


@given(_PROSE)
def test_evidence_windows_keep_every_word(text: str) -> None:
    assert " ".join(" ".join(evidence_windows(text)).split()) == " ".join(text.split())


def test_detect_language() -> None:
    assert detect_language("Jaké je hlavní město Francie? Hlavním městem je Paříž.") == "cs"
    assert detect_language("What is the capital of France? It is Paris.") == "en"
    assert detect_language("") == "en"  # a tie goes to English


def test_text_imports_nothing_from_citejudge() -> None:
    """The ground floor: any layer may import it, so it imports no other part of the package."""
    for path in TEXT_PKG.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert (
                    not name.startswith("citejudge")
                    or name.startswith("citejudge.text")
                    or name == "citejudge.errors"
                ), f"{path.name} imports {name}"


# --- long texts: split_units / evidence_units ------------------------------------------------------

# The shape of a real web page as a crawler saves it (WiCE's pages): a title line, menu entries,
# Markdown headings, a list, prose lines, a cookie banner. Written for this test.
_PAGE = """(meta data) TITLE: About Us – Example Trade News
Skip to content
Example Trade News
Home | News | Reviews | About
# About Us
Example Trade News is the voice of the home entertainment industry.
We cover the moment a film leaves the screen. We publish a monthly magazine.
### Meet the Team:
Jane Q. Doe, Publisher and Editorial Director, Example Trade News:
Jane Q. Doe has covered the industry for nearly three decades.
- print edition
- a daily digest sent to 12,000 readers each morning.
This site uses cookies to improve your experience.
© 2024 Example Media. All rights reserved."""


def test_split_units_never_merges_lines_of_a_page() -> None:
    units = split_units(_PAGE)
    assert "Skip to content" in units and "# About Us" in units
    assert "We cover the moment a film leaves the screen." in units
    assert "We publish a monthly magazine." in units
    assert not any("Skip to content" in u and "Example" in u for u in units)


def test_evidence_units_drop_menus_headings_and_banners() -> None:
    ev = evidence_units(_PAGE)
    assert ev == [
        "(meta data) TITLE: About Us – Example Trade News",
        "Example Trade News is the voice of the home entertainment industry.",
        "We cover the moment a film leaves the screen.",
        "We publish a monthly magazine.",
        "Jane Q. Doe, Publisher and Editorial Director, Example Trade News:",
        "Jane Q. Doe has covered the industry for nearly three decades.",
        "- a daily digest sent to 12,000 readers each morning.",
    ]
    # a short text made only of "boilerplate-like" units is still evidence
    assert evidence_units("Aspirin") == ["Aspirin"]


def test_split_units_joins_hard_wrapped_prose_and_line_break_hyphens() -> None:
    wrapped = (
        "We study the effect of regular-\n"
        "ization on deep networks trained with stochastic gradient descent and show\n"
        "that it helps in every setting we tried, from small convolutional networks\n"
        "to large transformers; the state-of-the-\n"
        "art results hold for all widths. A second sentence ends the paragraph.\n"
        "\n"
        "## Methods\n"
        "We train with Adam."
    )
    assert split_units(wrapped) == [
        "We study the effect of regularization on deep networks trained with stochastic"
        " gradient descent and show that it helps in every setting we tried, from small"
        " convolutional networks to large transformers; the state-of-the-art results hold"
        " for all widths.",
        "A second sentence ends the paragraph.",
        "## Methods",
        "We train with Adam.",
    ]


def test_split_units_of_one_line_is_split_sentences() -> None:
    text = "Smith et al. reported 5 cases. The rest were mild."
    assert split_units(text) == split_sentences(text)
    assert split_units("") == [] and evidence_units(" \n ") == []


@given(
    st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60), max_size=8)
)
def test_split_units_keep_every_word(lines: list[str]) -> None:
    text = "\n".join(lines)
    # joining may glue a hyphenated word; every other word survives in order
    words = [w for w in " ".join(split_units(text)).split() if not w.endswith("-")]
    assert all(w in text.replace("\n", " ") or "-" in w for w in words)


def test_split_sentences_ends_at_markers_glued_after_the_stop() -> None:
    # Wikipedia's text puts the marker after the full stop: "problem.[1] Its …"
    text = (
        "LSTM is a recurrent network aimed at the vanishing gradient problem.[1] Its relative "
        "insensitivity to gap length is its advantage.[2][3] It was proposed in 1997.[4, 5] Done."
    )
    assert split_sentences(text) == [
        "LSTM is a recurrent network aimed at the vanishing gradient problem.[1]",
        "Its relative insensitivity to gap length is its advantage.[2][3]",
        "It was proposed in 1997.[4, 5]",
        "Done.",
    ]
    # a bracket that is no marker, and a marker before the stop, split as before
    assert split_sentences("See Fig. [a] here. We used it [1]. Then more.") == [
        "See Fig. [a] here.",
        "We used it [1].",
        "Then more.",
    ]
