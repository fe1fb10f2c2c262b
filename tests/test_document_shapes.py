"""Real shapes of reference entries and cite commands the document readers used to misread."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.documents import read_document
from citejudge.documents._plain import linked_title_first
from citejudge.ids import extract_urls
from citejudge.readers.freetext import parse_citation_string
from test_documents import world as world  # the demo world's index (a fixture)
from test_docx_fields import check_document

# A generated reading list: each entry opens with its linked title, the authors after it.
READING_LIST = """# Sequence models: a reading list

Deep learning learns layered representations from raw data [1]. Adam trains such networks with
adaptive steps [2]. Memory cells keep errors flowing back through time [3]. Attention replaced
recurrence in sequence transduction [4]. Agents learn to play games from pixels [5].

## References

1. [Deep learning](https://doi.org/10.1038/nature14539) — Y. LeCun, Y. Bengio, G. Hinton (2015)
2. [Adam: A Method for Stochastic Optimization](https://arxiv.org/abs/1412.6980), Kingma and Ba, ICLR 2015
3. [Long Short-Term Memory](https://doi.org/10.1162/neco.1997.9.8.1735), Sepp Hochreiter, Jürgen Schmidhuber, Neural Computation 1997
4. [Attention is all you need](https://arxiv.org/abs/1706.03762) — Vaswani et al. (2017)
5. [Human-level control through deep reinforcement learning](https://doi.org/10.1038/nature14236) — Volodymyr Mnih, Koray Kavukcuoglu, David Silver et al. (2015)
"""


def test_linked_titles_with_the_authors_after_them(tmp_path: Path, world: Path) -> None:
    """'[Title](https://doi.org/…) — A. Author, B. Author (2021)' and '[Title](url), Authors,
    Venue 2021': the link text is the title, the names after it the authors (they were read into
    the title, and the DOI's record then differed in its title)."""
    path = tmp_path / "reading-list.md"
    path.write_text(READING_LIST, encoding="utf-8")
    doc = read_document(path)
    got = [(r.title, r.authors, r.year) for r in doc.references]
    assert got == [
        ("Deep learning", ["Y. LeCun", "Y. Bengio", "G. Hinton"], 2015),
        ("Adam: A Method for Stochastic Optimization", ["Kingma", "Ba"], 2015),
        ("Long Short-Term Memory", ["Sepp Hochreiter", "Jürgen Schmidhuber"], 1997),
        ("Attention is all you need", ["Vaswani"], 2017),
        (
            "Human-level control through deep reinforcement learning",
            ["Volodymyr Mnih", "Koray Kavukcuoglu", "David Silver"],
            2015,
        ),
    ]
    assert doc.references[0].text == (
        "Y. LeCun; Y. Bengio; G. Hinton (2015). “Deep learning”. https://doi.org/10.1038/nature14539"
    )
    assert parse_citation_string(doc.references[1].text).venue == "ICLR"
    assert parse_citation_string(doc.references[3].text).et_al
    lines = check_document(path, world)
    verdicts = [ln["result"]["reference_grounding"] for ln in lines]
    # the authors are checked too (they were lost, or read into the title: "No. Title mismatch")
    assert verdicts[0].startswith("Yes. Matches W9000000004 via doi; checked doi, title, authors")
    assert verdicts[2].startswith("Yes. Matches W9000000008 via doi; checked doi, title, authors")
    assert verdicts[4].startswith("Yes. Matches W9000000007 via doi; checked doi, title, authors")


@pytest.mark.parametrize(
    "entry",
    [
        # the existing shape: title, then a full stop (the parser reads it as it is)
        "[Deep learning](https://www.nature.com/articles/nature14539). LeCun, Bengio, Hinton. *Nature*, 2015.",
        # what follows the link is a venue, not names
        "[Deep learning](https://doi.org/10.1038/nature14539), Nature 521, 436–444 (2015)",
        "[Deep learning](https://doi.org/10.1038/nature14539) — a review by three pioneers (2015)",
        # a venue or a name? left as written
        "[Deep learning](https://doi.org/10.1038/nature14539), Nature, 2015",
        # a venue, a blog or a publisher after the link (a generated reading list): no names
        "[Deep learning](https://doi.org/10.1038/nature14539) — Nature (2015)",
        "[Scaling laws](https://openai.com/research/scaling) — OpenAI Blog (2023)",
        "[Attention is all you need](https://arxiv.org/abs/1706.03762) — NeurIPS (2017)",
        "[Deep learning](https://doi.org/10.1038/x), Nature Communications, Springer 2019",
        "[Deep learning](https://doi.org/10.1038/nature14539) — Nature, Springer (2015)",
        # no link first
        "Y. LeCun et al. [Deep learning](https://doi.org/10.1038/nature14539) — Nature (2015)",
        "LeCun, Y., Bengio, Y., & Hinton, G. (2015). Deep learning. Nature, 521, 436–444.",
    ],
)
def test_other_entries_stay_as_written(entry: str) -> None:
    assert linked_title_first(entry) == entry


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_characters="[]()\n"), min_size=2, max_size=40),
    st.text(max_size=80),
)
def test_linked_title_first_keeps_title_and_address(title: str, rest: str) -> None:
    entry = f"[{title}](https://example.org/x) — {rest}"
    out = linked_title_first(entry)
    assert out == entry or (
        " ".join(title.split()).rstrip(".") in out and out.endswith(" https://example.org/x")
    )


@pytest.mark.parametrize(
    ("entry", "url"),
    [
        (
            "R. Rivest. The MD5 message-digest algorithm. RFC 1321, 1992. ftp://ftp.rfc-editor.org/in-notes/rfc1321.txt",
            "ftp://ftp.rfc-editor.org/in-notes/rfc1321.txt",
        ),
        (
            "Doe, A. (1998). Genome data set. Available at FTP://ftp.ncbi.nlm.nih.gov/genomes/README.txt.",
            "FTP://ftp.ncbi.nlm.nih.gov/genomes/README.txt",
        ),
        (
            "Smith, J. (2001). The GCC manual. Free Software Foundation. https://ftp.gnu.org/gnu/gcc/manual.pdf",
            "https://ftp.gnu.org/gnu/gcc/manual.pdf",
        ),
    ],
)
def test_ftp_addresses_are_urls(entry: str, url: str) -> None:
    """An FTP address in a citation (RFCs, data sets, old software manuals) is its URL."""
    work = parse_citation_string(entry)
    assert work.urls == [url]
    assert "ftp:" not in (work.title or "").lower() and "ftp:" not in (work.venue or "").lower()


def test_ftp_needs_its_scheme() -> None:
    assert extract_urls("mirrored on ftp.gnu.org and sftp servers, see ftp:/broken") == []


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["http", "https", "ftp", "FTP"]),
    st.from_regex(r"[a-z]{1,12}(\.[a-z]{2,6}){1,2}(/[A-Za-z0-9_\-]{1,10}){0,3}", fullmatch=True),
)
def test_urls_of_every_scheme_read_alike(scheme: str, rest: str) -> None:
    assert extract_urls(f"See {scheme}://{rest}. Accessed 2020.") == [f"{scheme}://{rest}"]


BIB = """@article{hochreiter1997, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen},
 title={Long Short-Term Memory}, journal={Neural Computation}, year={1997}}
@article{lecun2015, author={LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey},
 title={Deep learning}, journal={Nature}, year={2015}}
@article{kingma2014, author={Kingma, Diederik P. and Ba, Jimmy},
 title={Adam: A Method for Stochastic Optimization}, journal={arXiv:1412.6980}, year={2014}}
"""


def test_narrative_multicites_name_every_work(tmp_path: Path) -> None:
    r"""'\Textcites{a}{b} showed …' prints every work's authors; the claim kept only the first's."""
    (tmp_path / "refs.bib").write_text(BIB)
    tex = tmp_path / "p.tex"
    tex.write_text(
        "\\documentclass{article}\\usepackage{biblatex}\\addbibresource{refs.bib}\n"
        "\\begin{document}\n"
        "\\Textcites[see][p.~3]{hochreiter1997}[p.~5]{lecun2015} showed that memory helps.\n"
        "\\textcites(pre)(post){hochreiter1997}{lecun2015}{kingma2014} trained such networks.\n"
        "\\citet{lecun2015,kingma2014} reviewed them.\n"
        "\\Textcite{kingma2014} proposed Adam.\n"
        "Networks learn \\parencites{hochreiter1997}{lecun2015}.\n"
        "\\printbibliography\n\\end{document}\n",
    )
    doc = read_document(tex)
    assert [(s.entries, s.claim) for s in doc.sentences] == [
        ([1, 2], "Hochreiter and Schmidhuber and LeCun et al. showed that memory helps."),
        (
            [1, 2, 3],
            "Hochreiter and Schmidhuber, LeCun et al. and Kingma and Ba trained such networks.",
        ),
        ([2, 3], "LeCun et al. and Kingma and Ba reviewed them."),
        ([3], "Kingma and Ba proposed Adam."),
        ([1, 2], "Networks learn."),
    ]


@pytest.mark.parametrize(
    ("rest", "authors"),
    [
        (" — Hinton (2006)", "Hinton"),
        (" — Rice, J. and Church, K. (2009)", "Rice, J. and Church, K."),
        (" — Andrew Ng (2004)", "Andrew Ng"),
        (", Yann LeCun, Nature 2015", "Yann LeCun"),
    ],
)
def test_a_single_person_or_names_that_are_also_words_are_still_authors(
    rest: str, authors: str
) -> None:
    # (family names that are also publishers' or venues' words: Rice, Church; one author alone)
    out = linked_title_first("[Deep learning](https://doi.org/10.1038/nature14539)" + rest)
    assert out.startswith(f"{authors} (") and "“Deep learning”" in out


def test_an_organisation_after_the_link_is_no_author() -> None:
    entry = "[Scaling](https://research.google/pubs/x) — Google Research (2020)"
    assert linked_title_first(entry) == entry
