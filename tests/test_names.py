from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.match.names import (
    AuthorCheck,
    PersonName,
    compare_authors,
    is_placeholder,
    parse_person,
    same_person,
)
from citejudge.records import Author


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Jeff Dean", "Jeffrey Dean"),
        ("Tomas Mikolov", "Tomáš Mikolov"),
        ("Greg Corrado", "Greg S. Corrado"),
        ("Devlin, Jacob", "Jacob Devlin"),
        ("J. Devlin", "Jacob Devlin"),
        ("Devlin J", "Jacob Devlin"),
        ("Devlin, J.", "Jacob Devlin"),
        ("Ming-Wei Chang", "M.-W. Chang"),
        ("Mingwei Chang", "Ming-Wei Chang"),
        ("Zhang Wei", "Wei Zhang"),
        ("Jiawei He", "Jiawei He 0002"),
        ("CALIANDRO, G. A.", "Giuseppe A. Caliandro"),
        ("Koch S von", "Sebastian von Koch"),
        ("Ludwig van Beethoven", "Beethoven, L. van"),
        ("Simon Peyton Jones", "Peyton Jones, S."),
        ("S. P. Jones", "Simon Peyton Jones"),
        ('Micha{\\"e}l Defferrard', "Michaël Defferrard"),
        ("{\\L}ukasz Kaiser", "Łukasz Kaiser"),
        ("Alexander Nichol", "Alexander Quinn Nichol"),
        ("Martin Luther King Jr.", "King, Martin Luther, Jr."),
        ("Bob Smith", "Robert Smith"),
        ("JOHN SMITH", "John Smith"),
        ("Smith JA", "J. A. Smith"),
        ("Francesco d&apos;Amore", "Francesco d'Amore 0001"),
        ("Alberto Marchetti-Spaccamela", "A. Marchetti-Spaccamela"),
        ("Hernández-Lobato, José Miguel", "José Miguel Hernández-Lobato"),
        ("Plato", "Plato"),
    ],
)
def test_same_person(cited: str, record: str) -> None:
    assert same_person(cited, Author(record))


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("K. Devlin", "Jacob Devlin"),
        ("Jacob Devin", "Jacob Devlin"),
        ("John Smith", "Jane Smith"),
        ("Paul F. Christiano", "Paul G. Christiano"),
        ("Zhang Wei", "Wei Zhao"),
        ("Smith JB", "J. A. Smith"),
        ("Yi Yang", "Yi Tay"),
    ],
)
def test_different_person(cited: str, record: str) -> None:
    assert not same_person(cited, Author(record))


def test_raw_name_used() -> None:
    assert same_person("Mikolov T", Author("T. Mikolov", raw_name="Tomáš Mikolov"))
    assert same_person("Tomáš Mikolov", Author("Tomas Mikolov-X", raw_name="Mikolov, Tomáš"))


def test_parse_forms() -> None:
    p = parse_person("Koch S von")
    assert (p.family, p.family_full, p.initials, p.particles) == (
        "koch",
        "vonkoch",
        ("s",),
        ("von",),
    )
    p = parse_person("M.-W. Chang")
    assert p.family == "chang" and p.initials == ("m", "w")
    p = parse_person("Jiawei He 0002")
    assert p.family == "he" and p.given == ("jiawei",)
    p = parse_person("King, Martin Luther, Jr.")
    assert p.suffix == "jr" and p.family == "king" and p.given == ("martin", "luther")
    assert isinstance(p, PersonName) and p.to_dict()["family"] == "king"


def _a(*names: str) -> list[Author]:
    return [Author(n) for n in names]


REC = _a("Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova")


def test_compare_authors_ok() -> None:
    r = compare_authors(["Devlin, J.", "Chang, M.-W.", "Lee, K.", "Toutanova, K."], False, REC)
    assert r.ok, r.reason
    assert compare_authors(["J. Devlin", "M. Chang"], True, REC).ok
    assert compare_authors(["J. Devlin", "others"], False, REC).ok
    assert compare_authors([], False, REC).ok


def test_compare_authors_mismatches() -> None:
    r = compare_authors(["Jacob Devlin", "Kristina Toutanova"], False, REC)
    assert not r.ok and r.reason.startswith("cited 2 authors, record has 4")
    r = compare_authors(
        ["Ming-Wei Chang", "Jacob Devlin", "Kenton Lee", "Kristina Toutanova"], False, REC
    )
    assert not r.ok and r.reason.startswith("author order differs")
    r = compare_authors(
        ["Jacob Devlin", "X. Smith", "Kenton Lee", "Kristina Toutanova"], False, REC
    )
    assert not r.ok and r.reason == "author 2 'X. Smith' not in record"
    r = compare_authors(["John Doe", "Jane Smith"], False, REC)
    assert not r.ok and r.reason == "placeholder author 'John Doe'"
    r = compare_authors(["Jacob Devlin", "Kenton Lee"], True, REC)
    assert not r.ok and "first 2" in r.reason
    r = compare_authors(
        ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova", "A. Bee"], False, REC
    )
    assert not r.ok and r.reason == "author 5 'A. Bee' not in record"
    assert isinstance(r, AuthorCheck) and r.to_dict()["ok"] is False


def test_compare_authors_truncated_record() -> None:
    rec = [*_a("A. Chowdhery", "S. Narang"), Author("others")]
    assert compare_authors(["Aakanksha Chowdhery", "Sharan Narang", "Jacob Devlin"], False, rec).ok
    assert not compare_authors(["Aakanksha Chowdhery", "Bob Narang"], False, rec).ok


def test_long_list_prefix() -> None:
    rec = [Author(f"Author{i:03d} Person{i:03d}") for i in range(150)]
    cited = [f"A. Person{i:03d}" for i in range(20)]
    assert compare_authors(cited, True, rec).ok
    assert not compare_authors(cited, False, rec).ok


def test_placeholder() -> None:
    for n in ["John Doe", "Jane Smith", "Author One", "A. Author", "Anonymous", "et al"]:
        assert is_placeholder(n), n
    assert not is_placeholder("Jacob Devlin")


_given = st.text(alphabet="abcdefghijklmnoprstuvwyz", min_size=2, max_size=9).map(str.capitalize)
# generational suffixes the name parser reads as such, never as a family name ("Junior, A.")
_SUFFIX_WORDS = {"ii", "iii", "iv", "jr", "sr", "v", "junior", "senior"}
_family = (
    st.text(alphabet="abcdefghijklmnoprstuvwyzéöñ", min_size=2, max_size=11)
    .map(str.capitalize)
    .filter(lambda f: f.lower() not in _SUFFIX_WORDS)
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_given, min_size=1, max_size=3), _family)
def test_formats_match(given_names: list[str], family: str) -> None:
    full = " ".join([*given_names, family])
    initials = " ".join(g[0] + "." for g in given_names)
    forms = [
        full,
        f"{family}, {' '.join(given_names)}",
        f"{family}, {initials}",
        f"{initials} {family}",
        f"{given_names[0]} {family}",
        f"{family} {''.join(g[0].upper() for g in given_names)}",
        f"{full} 0001",
    ]
    for f in forms:
        assert same_person(f, Author(full)), f
    other = "Q" if given_names[0][0] != "Q" else "Z"
    assert not same_person(f"{other}. {family}", Author(full))
    assert compare_authors([full], False, [Author(full)]).ok


# APA 7 for 21 authors and more: the first 19, an ellipsis, the last (the shape of a real
# 21-author record of the shared sample, names made up here)
_TWENTY_ONE = [Author(name=f"Given{i} Family{chr(65 + i)}") for i in range(21)]


def _apa(names: list[Author]) -> list[str]:
    return [f"Family{n.name[-1]}, G." for n in names]


def test_an_ellipsis_before_the_last_author() -> None:
    cited = [*_apa(_TWENTY_ONE[:19]), "…", *_apa(_TWENTY_ONE[-1:])]
    got = compare_authors(cited, True, _TWENTY_ONE)
    assert got.ok and "last 1" in got.reason, got.reason
    # the author after the ellipsis must be the record's last
    wrong_last = [*_apa(_TWENTY_ONE[:19]), "…", *_apa(_TWENTY_ONE[19:20])]
    assert not compare_authors(wrong_last, True, _TWENTY_ONE).ok
    # the names before it the record's first, in order
    swapped = [*_apa(_TWENTY_ONE[1:2]), *_apa(_TWENTY_ONE[:1]), *_apa(_TWENTY_ONE[2:19]), "…"]
    swapped += _apa(_TWENTY_ONE[-1:])
    assert not compare_authors(swapped, True, _TWENTY_ONE).ok
    # more names than the record has
    assert not compare_authors(cited, True, _TWENTY_ONE[:15]).ok


def test_an_ellipsis_in_a_parsed_apa_list() -> None:
    from citejudge.match.parse import parse_citation_string

    text = (
        "Vaswani, A., Shazeer, N., Parmar, N., Uszkoreit, J., Jones, L., Gomez, A. N., . . . "
        "Polosukhin, I. (2017). Attention is all you need. Advances in Neural Information "
        "Processing Systems, 30."
    )
    cited = parse_citation_string(text)
    assert cited.authors[-2:] == ["…", "Polosukhin, I."] and cited.et_al
    record = [
        Author(name=n)
        for n in (
            "Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit", "Llion Jones",
            "Aidan N. Gomez", "Łukasz Kaiser", "Illia Polosukhin",
        )
    ]  # fmt: skip
    assert compare_authors(cited.authors, cited.et_al, record).ok


@pytest.mark.parametrize(
    ("cited", "record", "same"),
    [
        ("LeCun Y.", "Yann LeCun", True),
        ("Hochreiter S.", "Sepp Hochreiter", True),
        ("Smith J. A.", "John A. Smith", True),
        ("Иванов И. И.", "Иван Иванович Иванов", True),
        ("LeCun Y.", "Geoffrey Hinton", False),
        ("Smith J. A.", "Jane Smith", True),  # initials checked as far as the record gives them
        ("Smith K.", "John A. Smith", False),
    ],
)
def test_dotted_initials_after_the_family_name(cited: str, record: str, same: bool) -> None:
    assert same_person(cited, Author(name=record)) is same
