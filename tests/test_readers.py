"""The readers: a world record and a citation read from the same entry agree field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

from citejudge.readers import (
    bibtex_entry_to_work,
    csl_item_to_work,
    find_fulltext,
    parse_bibtex_entry,
    parse_csl_item,
    read_bibtex_string,
    split_bibtex_names,
)
from citejudge.readers.bibtex import bibtex_names
from citejudge.readers.csl import csl_name
from citejudge.records import Author, Work
from citejudge.sources import SourceStore
from citejudge.tasks.content import find_evidence

# DBLP exports HTML entities (&apos;) and dotted capitals; both sides must decode them alike.
BIB = r"""@inproceedings{roos2025,
  author = {Daan Roos and {\.I}smail {\.I}lkan Ceylan and Francesco d&apos;Amore 0001 and others},
  title = {Calibrating &quot;Cheap Signals&quot; in {P}eer {R}eview},
  booktitle = {Advances in Neural Information Processing Systems},
  publisher = {Curran Associates},
  year = {2025},
  doi = {10.1000/ABC},
  eprint = {2501.00001},
  archivePrefix = {arXiv}
}"""


def test_bibtex_world_record_and_citation_agree() -> None:
    (work,) = list(read_bibtex_string(BIB, "lib.bib"))
    cited = parse_bibtex_entry(BIB)
    assert isinstance(work, Work)
    assert work.title == cited.title == 'Calibrating "Cheap Signals" in Peer Review'
    names = ["Daan Roos", "İsmail İlkan Ceylan", "Francesco d'Amore"]
    assert cited.authors == names and cited.et_al
    assert [a.name for a in work.authors] == [
        *names,
        "others",
    ]  # the world keeps the truncation marker
    assert work.authors[2].raw_name == "Francesco d'Amore 0001"
    assert (
        (work.year, work.doi, work.arxiv)
        == (cited.year, cited.doi[0], cited.arxiv)
        == (2025, "10.1000/abc", "2501.00001")
    )
    assert work.venue == cited.venue == "Advances in Neural Information Processing Systems"
    assert work.venue_alt == ["Curran Associates"] and cited.publisher == "Curran Associates"


def test_bibtex_names_split_on_and_with_non_ascii_capitals() -> None:
    # "İ".lower() is two characters: splitting must not look for " and " in a lower-cased copy
    assert split_bibtex_names(
        "{İ}smail Ceylan and Luca Ambrogioni and {Jan-Willem} van de Meent"
    ) == [
        "{İ}smail Ceylan",
        "Luca Ambrogioni",
        "{Jan-Willem} van de Meent",
    ]
    names, et_al = bibtex_names("Doe, Jane and et al.")
    assert names == [Author(name="Doe, Jane")] and et_al


def test_bibtex_url_is_not_a_venue() -> None:
    text = r"@misc{x, title={A Tool}, author={Doe, Jane}, howpublished={\url{https://github.com/x/y}}, year={2020}}"
    assert parse_bibtex_entry(text).venue is None
    assert (
        bibtex_entry_to_work(
            "x", "misc", {"title": "A Tool", "howpublished": r"\url{https://github.com/x/y}"}
        ).venue
        is None
    )


CSL = {
    "id": "gogh",
    "type": "article-journal",
    "title": "Letters <i>to</i> Theo",
    "author": [
        {"family": "Gogh", "given": "Vincent", "non-dropping-particle": "van"},
        {"family": "King", "given": "Martin Luther", "suffix": "Jr."},
        {"literal": "The Consortium"},
    ],
    "published-print": {"date-parts": [[1888, 5]]},
    "container-title-short": "J. Lett.",
    "DOI": "10.1000/XYZ",
    "PMID": 999,
}


def test_csl_world_record_and_citation_agree() -> None:
    work, cited = csl_item_to_work(CSL), parse_csl_item(CSL)
    names = ["van Gogh, Vincent", "King, Martin Luther, Jr.", "The Consortium"]
    assert [a.name for a in work.authors] == cited.authors == names
    assert work.title == cited.title == "Letters to Theo"
    assert work.year == cited.year == 1888  # no "issued": the print date
    # the short title when no full one is given (a citation's venue loses trailing punctuation)
    assert (work.venue, cited.venue) == ("J. Lett.", "J. Lett")
    assert (work.doi, work.pmid) == (cited.doi[0], cited.pmid) == ("10.1000/xyz", "999")


def test_csl_names() -> None:
    assert csl_name(
        {
            "family": "Fontaine",
            "given": "Jean",
            "dropping-particle": "de",
            "non-dropping-particle": "La",
        }
    ) == ("La Fontaine, Jean de")
    assert csl_name({"family": "Plato"}) == "Plato"
    assert csl_name(7) is None


@pytest.fixture
def fulltext_dir(tmp_path: Path) -> Path:
    (tmp_path / "W1.txt").write_text("Full text of W1.", encoding="utf-8")
    (tmp_path / "10.1000_abc.md").write_text("Full text by DOI.", encoding="utf-8")
    (tmp_path / "W3.txt").write_text("   \n", encoding="utf-8")  # blank: not a full text
    return tmp_path


def test_one_fulltext_lookup_for_content_and_sources(fulltext_dir: Path) -> None:
    store = SourceStore.open(fulltext_dir)
    cases = [
        (Work(id="W1"), ("Full text of W1.", "W1.txt")),
        (Work(id="W2", doi="10.1000/abc"), ("Full text by DOI.", "10.1000_abc.md")),
        (Work(id="W3"), None),
        (Work(id="../W1"), None),  # an id that is a path is never a file name
    ]
    for work, expected in cases:
        assert find_fulltext(fulltext_dir, work) == expected
        evidence = find_evidence(work, fulltext_dir)
        stored = store.text_for_work(work)
        if expected is None:
            assert evidence is None and stored is None
        else:
            assert evidence is not None and stored is not None
            assert evidence.text == stored.text == expected[0]
            assert evidence.source == stored.origin == f"fulltext:{expected[1]}"


def test_full_texts_as_pdf_and_html(tmp_path: Path) -> None:
    """A folder of the cited papers as the user has them: a PDF, a saved article page; a PDF
    without a text layer (a scan) is skipped for the next file."""
    pytest.importorskip("reportlab")
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "W1.pdf"), pagesize=A4)
    c.drawString(72, 750, "Long short-term memory learns to bridge time lags")
    c.drawString(72, 736, "in excess of 1000 discrete time steps.")
    c.showPage()
    c.drawString(72, 750, "Second page: constant error carousels.")
    c.save()
    (tmp_path / "10.1038_nature14539.html").write_text(
        "<html><head><script>var x = 1;</script><style>p {}</style></head><body>"
        "<p>Deep learning allows computational models &amp; layers to learn.</p></body></html>",
        encoding="utf-8",
    )
    scan = canvas.Canvas(str(tmp_path / "W3.pdf"), pagesize=A4)
    scan.rect(72, 700, 100, 50)
    scan.save()
    (tmp_path / "10.1000_scan.txt").write_text("The text beside the scan.", encoding="utf-8")

    text, name = find_fulltext(tmp_path, Work(id="W1")) or ("", "")
    assert name == "W1.pdf"
    assert "bridge time lags" in text and "constant error carousels" in text
    text, name = find_fulltext(tmp_path, Work(id="W2", doi="10.1038/nature14539")) or ("", "")
    assert name == "10.1038_nature14539.html"
    assert "models & layers to learn" in text and "var x" not in text
    assert find_fulltext(tmp_path, Work(id="W3", doi="10.1000/scan")) == (
        "The text beside the scan.",
        "10.1000_scan.txt",
    )


def test_full_texts_named_by_a_reference_manager(tmp_path: Path) -> None:
    """Zotero's attachment names: "<first creator> - <year> - <title, cut, ':' left out>"."""
    (tmp_path / "Hochreiter and Schmidhuber - 1997 - Long Short-Term Memory.txt").write_text(
        "LSTM text.", encoding="utf-8"
    )
    cut = "Adam A Method for Stochastic Optimization of Noisy Objectives with Adaptive Moment Estimation an"
    (tmp_path / f"Kingma and Ba - 2014 - {cut}.md").write_text("Adam text.", encoding="utf-8")
    (tmp_path / "LeCun et al. - 2016 - Deep learning.txt").write_text("x", encoding="utf-8")
    lstm = Work(id="W1", title="Long Short-Term Memory", year=1997)
    adam = Work(
        id="W2",
        title="Adam: A Method for Stochastic Optimization of Noisy Objectives with Adaptive "
        "Moment Estimation and Bias Correction",
        year=2014,
    )
    assert find_fulltext(tmp_path, lstm) == (
        "LSTM text.",
        "Hochreiter and Schmidhuber - 1997 - Long Short-Term Memory.txt",
    )
    assert find_fulltext(tmp_path, adam) == ("Adam text.", f"Kingma and Ba - 2014 - {cut}.md")
    # another year, or another title, is another work
    assert find_fulltext(tmp_path, Work(id="W3", title="Deep learning", year=2015)) is None
    assert (
        find_fulltext(tmp_path, Work(id="W4", title="Long Short-Term Memory Networks", year=1997))
        is None
    )
