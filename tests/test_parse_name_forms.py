"""Author lists as real reference strings write them: French and German forms, PDF glue, APA 7.

French bibliographies write the family name in capitals with the given name in brackets
("LECUN (Yann), BENGIO (Yoshua) et HINTON (Geoffrey)"); German business and economics styles
separate names with slashes ("LeCun, Y./Bengio, Y./Hinton, G."). Both came back as one unread
name, and the reference "No" for an author mismatch.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.match.parse import parse_citation_string
from citejudge.readers.freetext._authors import split_author_string


@pytest.mark.parametrize(
    ("text", "authors"),
    [
        (
            "LECUN (Yann), BENGIO (Yoshua) et HINTON (Geoffrey), « Deep learning », Nature, "
            "vol. 521, 2015, p. 436-444.",
            ["LECUN, Yann", "BENGIO, Yoshua", "HINTON, Geoffrey"],
        ),
        (
            "LeCun, Y./Bengio, Y./Hinton, G. (2015): Deep learning, in: Nature, Jg. 521, Nr. 7553, "
            "S. 436–444.",
            ["LeCun, Y.", "Bengio, Y.", "Hinton, G."],
        ),
    ],
)
def test_french_and_german_author_lists(text: str, authors: list[str]) -> None:
    cited = parse_citation_string(text)
    assert cited.authors == authors
    assert cited.title == "Deep learning" and cited.year == 2015


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("MARTIN (J.-P.) et DUPONT (Marie)", ["MARTIN, J.-P.", "DUPONT, Marie"]),
        ("DE LA FONTAINE (Jean) and MOLIERE (J.-B.)", ["DE LA FONTAINE, Jean", "MOLIERE, J.-B."]),
        ("DUPONT (Jean-Pierre)", ["DUPONT, Jean-Pierre"]),
        (
            "Bonhomme (Fl.), Guillin (S.), Lehner (R. P.)",
            ["Bonhomme, Fl.", "Guillin, S.", "Lehner, R. P."],
        ),
        (
            "Dierkes, Meinolf/Ute Hoffmann/Lutz Marz",
            ["Dierkes, Meinolf", "Ute Hoffmann", "Lutz Marz"],
        ),
        ("Müller, K./Schmidt, H.-J./Weber, A.", ["Müller, K.", "Schmidt, H.-J.", "Weber, A."]),
        # brackets that hold no given name stay as they were: a year, a place, a role
        ("Smith (2019)", ["Smith (2019)"]),
        ("Glareana (Switzerland)", ["Glareana (Switzerland)"]),
        ("FITNE (Producer)", ["FITNE (Producer)"]),
        # slashes inside a name or an acronym are not separators
        ("ISO/IEC", ["ISO/IEC"]),
    ],
)
def test_name_forms(text: str, names: list[str]) -> None:
    assert split_author_string(text, all_names=True) == names
    assert split_author_string(text) == names


@pytest.mark.parametrize(
    "role", ["Ed.", "Eds.", "Éd.", "Hrsg.", "Hg.", "Hgg.", "dir.", "Dir.", "Trad."]
)
def test_a_role_in_brackets_is_no_given_name(role: str) -> None:
    # "Laudage, Johannes und Matthias Schrör (Hgg.)": the editors' mark stays theirs
    for text in (f"SMITH ({role})", f"Schrör ({role})"):
        assert not any(n.endswith(f", {role}") for n in split_author_string(text, all_names=True))


_FAMILY = st.sampled_from(
    ["DUPONT", "MARTIN", "LEFÈVRE", "BOURDIEU", "HINTON", "NGUYEN", "DE LA FONTAINE", "VAN DAM"]
)
_GIVEN = st.sampled_from(["Jean", "Marie", "Yann", "J.-P.", "Anne-Sophie", "Élodie", "P.", "Luc"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_FAMILY, _GIVEN), min_size=2, max_size=5))
def test_bracketed_given_names_in_order(people: list[tuple[str, str]]) -> None:
    """Every "FAMILY (Given)" of a list comes back once, in order, as "FAMILY, Given".

    (A list of one is left out: the splitter reads a lone "DE LA FONTAINE, Jean" as two names,
    as it did before these forms were read.)
    """
    parts = [f"{f} ({g})" for f, g in people]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " et " + parts[-1]
    assert split_author_string(text, all_names=True) == [f"{f}, {g}" for f, g in people]


@pytest.mark.parametrize(
    ("text", "authors"),
    [
        # initials glued to the name, as PDF text and OCR give them
        (
            "Y.LeCun, Y.Bengio and G.Hinton, Deep learning, Nature 521 (2015) 436-444.",
            ["Y. LeCun", "Y. Bengio", "G. Hinton"],
        ),
        (
            "J. W. Steed and J. L.Atwood, Supramolecular Chemistry, Wiley & Sons, Chichester, 2000",
            ["J. W. Steed", "J. L. Atwood"],
        ),
        # APA 7's ellipsis before the last author, printed as spaced dots
        (
            "Nishimoto, N., Kanakura, Y., Aozasa, K., Johkoh, T., Nakamura, M., Nakano, S., . . . "
            "Kishimoto, T. (2005). Humanized anti-interleukin-6 receptor antibody treatment of "
            "multicentric castleman disease. Blood, 106(8), 2627-2632.",
            [
                "Nishimoto, N.",
                "Kanakura, Y.",
                "Aozasa, K.",
                "Johkoh, T.",
                "Nakamura, M.",
                "Nakano, S.",
                "…",
                "Kishimoto, T.",
            ],
        ),
    ],
)
def test_glued_initials_and_spaced_ellipses(text: str, authors: list[str]) -> None:
    cited = parse_citation_string(text)
    assert cited.authors == authors
    assert cited.et_al is ("Nishimoto" in text)


def test_glued_initials_in_a_venue_or_url_stay() -> None:
    cited = parse_citation_string(
        "J. Smith (2001) A title. J.Am.Chem.Soc. 12, 3-4. https://x.org/A.Smith,"
    )
    assert cited.authors == ["J. Smith"]
    assert cited.urls == ["https://x.org/A.Smith"]


def test_gost_reference() -> None:
    """GOST 7.1/7.0.5 (Russian and neighbouring countries' papers): dotted initials after the
    family name, " // " before the journal, " — " between the fields."""
    cited = parse_citation_string(
        "Hochreiter S., Schmidhuber J. Long short-term memory // Neural Computation. — 1997. — "
        "Vol. 9, no. 8. — P. 1735–1780."
    )
    assert cited.authors == ["Hochreiter S.", "Schmidhuber J."]
    assert (cited.title, cited.venue, cited.year) == (
        "Long short-term memory",
        "Neural Computation",
        1997,
    )
