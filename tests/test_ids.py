"""Identifier normalisation: DOIs taken from landing-page and PDF URLs, per publisher pattern."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citejudge.ids import extract_dois, norm_doi, strip_landing_suffix


@pytest.mark.parametrize(
    ("url", "doi"),
    [
        (
            "https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/full",
            "10.3389/fpsyg.2020.01234",
        ),
        (
            "https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/abstract",
            "10.3389/fpsyg.2020.01234",
        ),
        (
            "https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/pdf",
            "10.3389/fpsyg.2020.01234",
        ),
        (
            "https://www.biorxiv.org/content/10.1101/2020.03.01.123456v1",
            "10.1101/2020.03.01.123456",
        ),
        (
            "https://www.biorxiv.org/content/10.1101/2020.03.01.123456v3.full.pdf",
            "10.1101/2020.03.01.123456",
        ),
        (
            "https://www.medrxiv.org/content/10.1101/2020.04.01.20050385v2.abstract",
            "10.1101/2020.04.01.20050385",
        ),
        ("https://www.biorxiv.org/content/10.1101/123456v2.article-info", "10.1101/123456"),
        (
            "https://onlinelibrary.wiley.com/doi/epdf/10.1002/anie.201900001",
            "10.1002/anie.201900001",
        ),
        (
            "https://onlinelibrary.wiley.com/doi/full/10.1002/anie.201900001",
            "10.1002/anie.201900001",
        ),
        ("https://dl.acm.org/doi/pdf/10.1145/3292500.3330701", "10.1145/3292500.3330701"),
        (
            "https://link.springer.com/content/pdf/10.1007/s00000-020-0000-0.pdf",
            "10.1007/s00000-020-0000-0",
        ),
        (
            "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0123456",
            "10.1371/journal.pone.0123456",
        ),
        (
            "https://journals.plos.org/plosone/article/file?id=10.1371/journal.pone.0123456&type=printable",
            "10.1371/journal.pone.0123456",
        ),
        ("https://doi.org/10.1093/nar/gkz1001#sec1", "10.1093/nar/gkz1001"),
        ("https://doi.org/10.1093/nar/gkz1001?utm_source=x", "10.1093/nar/gkz1001"),
        (
            "https://www.tandfonline.com/doi/abs/10.1080/00031305.2015.1000000",
            "10.1080/00031305.2015.1000000",
        ),
    ],
)
def test_doi_from_landing_page_url(url: str, doi: str) -> None:
    assert extract_dois(url) == [doi]


@pytest.mark.parametrize(
    "doi",
    [
        "10.1002/(sici)1097-0258(19980815/30)17:15/16<1661::aid-sim968>3.0.co;2-2",
        "10.1890/1540-9295(2003)001[0455:pttu]2.0.co;2",
        "10.1016/j.cell.2019.01.001",
        "10.1101/2020.03.01.123456",
        "10.5555/fullerene.2020",
    ],
)
def test_real_dois_are_left_alone(doi: str) -> None:
    assert norm_doi(doi) == doi
    assert strip_landing_suffix(doi) == doi


@given(
    st.from_regex(r"10\.\d{4,6}/[a-z0-9.\-]{1,20}(/full|/pdf|\.pdf|/abstract|v\d)?", fullmatch=True)
)
def test_strip_landing_suffix_is_idempotent(doi: str) -> None:
    once = strip_landing_suffix(doi)
    assert strip_landing_suffix(once) == once


def _strip_by_rules_only(doi: str) -> str:
    """strip_landing_suffix without its shortcut for DOIs no tail can end (the reference)."""
    from citejudge import ids

    s = ids._URL_TAIL.sub("", doi) if ("?" in doi or "#" in doi or "&type=" in doi) else doi
    for _ in range(2):
        s = ids._LANDING_TAIL.sub("", s)
        s = ids._RXIV_VERSION.sub(r"\1", s)
    return s


@given(
    st.from_regex(
        r"10\.(1101|\d{4,6})/[a-z0-9.\-+]{1,20}(/full|/pdf|\.pdf|/abstract|v\d|\.full\.pdf|/figures-only|\?x=1|&type=printable)?[0-9a-z]?",
        fullmatch=True,
    )
)
def test_strip_landing_suffix_shortcut_agrees_with_the_rules(doi: str) -> None:
    assert strip_landing_suffix(doi) == _strip_by_rules_only(doi)


@pytest.mark.parametrize(
    ("url", "scholarly"),
    [
        ("https://openreview.net/forum?id=abc", True),
        ("https://www.nature.com/articles/nature14539", True),
        ("https://pubmed.ncbi.nlm.nih.gov/9377276/", True),
        ("https://papers.nips.cc/paper/7181-attention", True),
        ("https://www.cs.toronto.edu/~hinton/absps/JMLRdropout.pdf", True),  # a paper's file
        ("not a url", True),  # nothing is excused on what cannot be read
        ("http://www.gnome.org", False),
        ("http://www.ietf.org/rfc/rfc2119.txt?number=2119", False),
        ("https://www.who.int/news-room/fact-sheets/detail/malaria", False),
        ("https://en.wikipedia.org/wiki/Eiffel_Tower", False),
        ("https://fakenature.com/x", False),  # a host is matched by its labels, not its text
    ],
)
def test_is_scholarly_url(url: str, scholarly: bool) -> None:
    from citejudge.ids import is_scholarly_url

    assert is_scholarly_url(url) is scholarly


def test_publisher_addresses_that_spell_a_doi() -> None:
    from citejudge.ids import extract_publisher_dois

    text = (
        "https://www.nature.com/articles/nature14539?utm_source=chatgpt.com "
        "https://www.nature.com/articles/s41586-020-2012-7 "
        "https://www.thelancet.com/journals/lancet/article/PIIS0140-6736(20)30183-5/fulltext "
        "https://www.bmj.com/content/368/bmj.m1091"
    )
    assert extract_publisher_dois(text) == [
        "10.1038/nature14539",
        "10.1038/s41586-020-2012-7",
        "10.1016/s0140-6736(20)30183-5",
        "10.1136/bmj.m1091",
    ]
    # other pages of the same sites spell no DOI
    assert extract_publisher_dois("https://www.nature.com/nature/volumes/521/issues/7553") == []
    assert extract_publisher_dois("https://www.bmj.com/about-bmj") == []


@pytest.mark.parametrize(
    ("url", "clean"),
    [
        (
            "https://arxiv.org/abs/1412.6980?utm_source=chatgpt.com",
            "https://arxiv.org/abs/1412.6980",
        ),
        ("https://x.org/p?id=3&utm_medium=a&utm_campaign=b#s2", "https://x.org/p?id=3#s2"),
        ("https://x.org/p?fbclid=abc", "https://x.org/p"),
        ("https://x.org/p?id=3", "https://x.org/p?id=3"),
        ("https://x.org/p", "https://x.org/p"),
    ],
)
def test_strip_tracking(url: str, clean: str) -> None:
    from citejudge.ids import strip_tracking

    assert strip_tracking(url) == clean


@given(st.text(alphabet="ab=&?#utm_/.:", max_size=40))
def test_strip_tracking_is_idempotent_and_keeps_the_rest(url: str) -> None:
    from citejudge.ids import strip_tracking

    once = strip_tracking(url)
    assert strip_tracking(once) == once
    assert once.startswith(url.partition("?")[0])
    kept = url.partition("?")[2].partition("#")[0].split("&")
    assert all(p in once for p in kept if p and not p.startswith("utm_"))
