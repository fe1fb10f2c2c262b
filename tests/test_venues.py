from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citejudge.match.venues import (
    _GENERIC_WORDS,
    VenueCheck,
    _abbrev_ids,
    _aligns,
    _strip_org,
    _table,
    canonical_venue_ids,
    compare_venue,
    is_repository_doi,
    is_repository_name,
    is_venue_name,
)
from citejudge.text.venue_names import venue_tokens

MATCH = [
    ("Proceedings of the 40th International Conference on Machine Learning", "ICML"),
    (
        "Proceedings of the 40th International Conference on Machine Learning, ICML 2023, Honolulu, Hawaii, USA",
        "International Conference on Machine Learning",
    ),
    ("J. Mach. Learn. Res.", "Journal of Machine Learning Research"),
    ("J Mach Learn Res", "JMLR"),
    ("Proc. Natl. Acad. Sci. U.S.A.", "Proceedings of the National Academy of Sciences"),
    ("Phys. Rev. Lett.", "Physical Review Letters"),
    (
        "IEEE Trans. Pattern Anal. Mach. Intell.",
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
    ),
    ("IEEE Trans. Pattern Anal. Mach. Intell.", "TPAMI"),
    ("Advances in Neural Information Processing Systems 30", "NeurIPS"),
    ("NIPS", "NeurIPS"),
    ("IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)", "CVPR"),
    ("Machine Learning", "Mach. Learn."),
    ("Knowledge Discovery and Data Mining", "KDD"),
    ("arXiv preprint arXiv:2104.01404", "CoRR"),
    ("The Lancet", "Lancet"),
    ("PLOS ONE", "PLoS ONE"),
    ("Proceedings of the AAAI Conference on Artificial Intelligence", "AAAI"),
    ("Annual Meeting of the Association for Computational Linguistics", "ACL"),
    ("NAACL-HLT", "NAACL"),
    ("Nat. Commun.", "Nature Communications"),
    ("N Engl J Med", "New England Journal of Medicine"),
    ("Int. J. Comput. Vis.", "International Journal of Computer Vision"),
    ("The Web Conference", "WWW"),
    ("Journal of Biol. Chem.", "Journal of Biological Chemistry"),
    # physics and astronomy as arXiv papers cite them (unarXive, INSPIRE, ADS) against the
    # names OpenAlex gives
    ("Mon. Not. R. Astron. Soc.", "Monthly Notices of the Royal Astronomical Society"),
    ("MNRAS", "Monthly Notices of the Royal Astronomical Society"),
    ("ApJ", "The Astrophysical Journal"),
    ("A&A", "Astronomy & Astrophysics"),
    ("JHEP", "Journal of High Energy Physics"),
    ("JCAP", "Journal of Cosmology and Astroparticle Physics"),
    ("Phys. Rept.", "Physics Reports"),
    ("PTEP", "Progress of Theoretical and Experimental Physics"),
    ("Physica D", "Physica D: Nonlinear Phenomena"),
    ("J. Stat. Mech.", "Journal of Statistical Mechanics: Theory and Experiment"),
    ("Fortsch. Phys.", "Fortschritte der Physik"),
    ("Phys. Rev. D", "Physical Review D, Particles, fields, gravitation, and cosmology"),
    (
        "Nucl. Instrum. Meth. A",
        "Nuclear Instruments and Methods in Physics Research Section A: Accelerators, "
        "Spectrometers, Detectors and Associated Equipment",
    ),
    ("Nucl. Phys. B", "Nuclear Physics B"),
    ("Commun. Math. Phys", "Communications in Mathematical Physics"),
    # single letters and an ampersand, however spaced or spelt
    ("R & D Management", "R&D Management"),
    ("R and D Management", "R&D Management"),
    ("Texas A&M Law Review", "Texas A and M Law Review"),
]


@pytest.mark.parametrize(("cited", "record"), MATCH)
def test_match_both_directions(cited: str, record: str) -> None:
    assert compare_venue(cited, [record]).status == "match"
    assert compare_venue(record, [cited]).status == "match"


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Nature", "Nature Communications"),
        ("ICML", "AAAI"),
        ("ICML Workshop on Uncertainty and Robustness", "ICML"),
        ("Findings of EMNLP", "EMNLP"),
        ("Symposium on Neural Scaling Laws", "ICML"),
        ("International Conference on Quantum Machine Learning", "ICML"),
        ("Journal of Neural Architecture and Optimization", "CVPR"),
        ("Journal of Machine Learning Research", "Journal of Machine Learning"),
        ("Physical Review Letters", "Physical Review B"),
        ("PRD", "Physical Review Letters"),
        ("ApJ", "Astronomy and Astrophysics"),
        ("A&A", "The Astronomical Journal"),
        ("Astron. J.", "The Astrophysical Journal"),
        ("Physica A", "Physica D: Nonlinear Phenomena"),
        ("JHEP", "Journal of Cosmology and Astroparticle Physics"),
    ],
)
def test_mismatch(cited: str, record: str) -> None:
    r = compare_venue(cited, [record])
    assert r.status == "mismatch", r
    assert r.reason


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Trans.", "IEEE Transactions on Pattern Analysis and Machine Intelligence"),
        ("J. Phys.", "Journal of Physics A: Mathematical and Theoretical"),
        ("JCP", "Journal of Chemical Physics"),
    ],
)
def test_ambiguous(cited: str, record: str) -> None:
    r = compare_venue(cited, [record])
    assert r.status == "ambiguous" and not r.ok


def test_publisher_and_alt_names() -> None:
    assert compare_venue("Springer", ["Machine Learning", "Springer"]).ok
    assert compare_venue("", ["ICML"]).reason == "no venue cited"
    assert compare_venue("ICML", []).status == "mismatch"
    assert isinstance(compare_venue("ICML", ["ICML"]), VenueCheck)
    assert compare_venue("ICML", ["ICML"]).to_dict()["status"] == "match"
    assert canonical_venue_ids("NeurIPS 2020") == frozenset({"neurips"})


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé", min_size=1, max_size=10)


@settings(max_examples=200, deadline=None)
@given(st.lists(_word, min_size=1, max_size=7))
@example(["vol"])  # generic words only: "The vol 2021" names no particular venue
@example(["vol", "x"])
@example(["fortieth"])  # edition words only: no tokens, yet the name is itself
def test_reflexive_and_case(words: list[str]) -> None:
    v = " ".join(words)
    if any(w not in {"the", "proceedings", "proc", "of", "in"} for w in words):
        assert compare_venue(v, [v]).ok
        assert compare_venue(v.upper(), [v]).ok
    # with words added around it, a venue whose words are all generic ("Journal", "Vol") or
    # editions ("Fortieth") is no longer the record's name as written and may name no
    # particular venue: only the others are asserted
    if any(t not in _GENERIC_WORDS for t in venue_tokens(v)):
        assert compare_venue("The " + v + " 2021", [v]).ok


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.text(alphabet="bcdfghklmnprstvz", min_size=5, max_size=10), min_size=2, max_size=5)
)
def test_iso4_style_abbreviation(words: list[str]) -> None:
    full = " ".join(w.capitalize() for w in words)
    abbr = " ".join(w[:4].capitalize() + "." for w in words)
    assert compare_venue(abbr, [full]).ok
    # dropping a content word is not an abbreviation
    assert not compare_venue(" ".join(w.capitalize() for w in words[1:]), [full]).ok


# --------------------------------------------------------------------------- what a record's name is

_name_word = st.text(alphabet="bcdfghklmnprstvz", min_size=4, max_size=9)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_name_word, min_size=1, max_size=5), st.sampled_from(["http://", "https://", "www."])
)
@example(["ageconsearch", "umn", "edu", "record"], "http://")
def test_a_url_or_a_placeholder_is_no_venue_name(words: list[str], scheme: str) -> None:
    assert not is_venue_name(scheme + ".".join(words) + "/paper.pdf")
    assert is_venue_name(" ".join(w.capitalize() for w in words))
    for placeholder in ("(No Title)", "[no title]", "Unknown", " - ", "1234"):
        assert not is_venue_name(placeholder)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_name_word, min_size=2, max_size=5),
    st.sampled_from(["Series", "Part", "Section"]),
    st.sampled_from("ABCDE"),
    st.sampled_from("ABCDE"),
    st.lists(_name_word, min_size=1, max_size=3),
    st.lists(_name_word, min_size=1, max_size=3),
)
@example(["bbbb", "bbbb"], "Series", "A", "B", ["cvpr"], ["cvpr"])  # an acronym matched first
def test_a_series_is_compared_on_its_letter_not_its_qualifier(
    words: list[str], part: str, a: str, b: str, qa: list[str], qb: list[str]
) -> None:
    journal = "Journal of " + " ".join(w.capitalize() for w in words)
    cited = f"{journal}: {part} {a} ({' '.join(qa).capitalize()})"
    record = f"{journal} {part} {b} ({' '.join(qb).capitalize()})"
    assert compare_venue(cited, [record]).ok is (a == b)


@pytest.mark.parametrize(
    "name",
    [
        "arXiv (Cornell University)",
        "SSRN Electronic Journal",
        "RePEc: Research Papers in Economics",
        "AgEcon Search (University of Minnesota, USA)",
        "HAL (Le Centre pour la Communication Scientifique Directe)",
        "UCL Discovery (University College London)",
        "Infoscience (Ecole Polytechnique Fédérale de Lausanne)",
        "CERN Document Server (European Organization for Nuclear Research)",
        "Data Archiving and Networked Services (DANS)",
        "Kyoto University Research Information Repository (Kyoto University)",
        "medRxiv : the preprint server for health sciences",
        "PubMed",
    ],
)
def test_repositories_by_name(name: str) -> None:
    assert is_repository_name(name)


@pytest.mark.parametrize(
    "name", ["Nature", "Journal of Hal Studies", "Econometrica", "Cornell University", "ICML"]
)
def test_venues_that_are_no_repository(name: str) -> None:
    assert not is_repository_name(name)


def test_repository_dois() -> None:
    assert is_repository_doi("10.48550/arxiv.2106.01234")
    assert is_repository_doi("10.1101/2024.04.01.587000")  # bioRxiv
    assert is_repository_doi("10.2139/ssrn.4714562")
    assert not is_repository_doi("10.1101/gr.123456.111")  # Genome Research: same prefix
    assert not is_repository_doi("10.1109/jcdl57899.2023.00026")


def _abbrev_ids_everywhere(venue: str) -> frozenset[str]:
    """:func:`_abbrev_ids` trying every row of the table (no index)."""
    toks = venue_tokens(venue)
    return frozenset(
        vid
        for vid, full in _table()
        if len(full) > 1 and (_aligns(toks, full) or _aligns(_strip_org(toks), _strip_org(full)))
    )


_abbrev_word = st.sampled_from(
    ["J.", "Int.", "Conf.", "Proc.", "IEEE", "ACM", "Mach.", "Learn.", "Res.", "Comput.", "Vis.",
     "Trans.", "Neural", "Inf.", "Process.", "Syst.", "Nat.", "Commun.", "Phys.", "Rev.", "Lett.",
     "of", "the", "and", "Artif.", "Intell.", "Assoc.", "Linguistics", "on", "Sci.", "Med."]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_abbrev_word, min_size=1, max_size=6))
@example(["IEEE", "Trans.", "Pattern", "Anal.", "Mach.", "Intell."])
@example(["ACM"])
@example(["of", "the"])
def test_the_abbreviation_index_finds_what_every_row_finds(words: list[str]) -> None:
    venue = " ".join(words)
    assert _abbrev_ids(venue) == _abbrev_ids_everywhere(venue)
