from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citejudge.match.venues import _GENERIC_WORDS, VenueCheck, canonical_venue_ids, compare_venue
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
