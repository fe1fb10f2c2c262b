"""Citation parsing: strings in every common style, BibTeX, CSL-JSON and item metadata.

The examples are real papers typed by hand (their metadata is fact).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.ids import norm_doi
from citejudge.match.citation import CitedWork
from citejudge.match.parse import (
    parse_bibtex_entry,
    parse_citation_string,
    parse_csl_item,
    parse_item_citation,
    parse_metadata,
    split_author_string,
    strip_dblp_suffix,
)

# --------------------------------------------------------------------------- styles


def test_apa() -> None:
    w = parse_citation_string(
        "LeCun, Y., Bengio, Y., & Hinton, G. (2015). Deep learning. *Nature*, 521(7553), 436–444. "
        "https://doi.org/10.1038/nature14539"
    )
    assert w.form == "string"
    assert w.authors == ["LeCun, Y.", "Bengio, Y.", "Hinton, G."]
    assert (w.year, w.title, w.venue) == (2015, "Deep learning", "Nature")
    assert w.volume == "521" and w.pages == "436–444"
    assert w.doi == ["10.1038/nature14539"]
    assert not w.et_al and not w.is_preprint


def test_apa_elided_author_list_is_et_al() -> None:
    w = parse_citation_string(
        "Jin, L., Wang, Y., Iwaasa, A. D., Xu, Z., Schellenberg, M. P., Zhang, Y. G., … McAllister, T. A. (2012). "
        "Effect of condensed tannins on ruminal degradability of purple prairie clover (Dalea purpurea Vent.) "
        "harvested at two growth stages. Animal Feed Science and Technology, 176(1-4), 17–25."
    )
    assert w.authors[0] == "Jin, L." and w.authors[-1] == "McAllister, T. A."
    assert w.et_al
    assert w.title is not None and w.title.startswith("Effect of condensed tannins")
    assert w.venue == "Animal Feed Science and Technology"


def test_mla() -> None:
    w = parse_citation_string(
        'LeCun, Yann, Yoshua Bengio, and Geoffrey Hinton. "Deep Learning." Nature 521.7553 (2015): 436-444.'
    )
    assert w.authors == ["LeCun, Yann", "Yoshua Bengio", "Geoffrey Hinton"]
    assert (w.year, w.title, w.venue) == (2015, "Deep Learning", "Nature")


def test_chicago() -> None:
    w = parse_citation_string(
        "LeCun, Yann, Yoshua Bengio, and Geoffrey Hinton. 2015. “Deep Learning.” Nature 521 (7553): 436–44."
    )
    assert w.authors == ["LeCun, Yann", "Yoshua Bengio", "Geoffrey Hinton"]
    assert (w.year, w.title, w.venue, w.volume) == (2015, "Deep Learning", "Nature", "521")


def test_harvard() -> None:
    w = parse_citation_string(
        "LeCun, Y., Bengio, Y. and Hinton, G., 2015. Deep learning. Nature, 521(7553), pp.436-444."
    )
    assert w.authors == ["LeCun, Y.", "Bengio, Y.", "Hinton, G."]
    assert (w.year, w.title, w.venue, w.pages) == (2015, "Deep learning", "Nature", "436-444")


def test_harvard_quoted_title_may_begin_with_a_small_letter() -> None:
    # Cite Them Right puts the title in curly single quotes; "mTOR", "p53", "de novo" titles
    # begin with a small letter (the quote follows the year's parenthesis)
    w = parse_citation_string(
        "Laplante, M. and Sabatini, D.M. (2012) ‘mTOR signaling in growth control and disease’, "
        "Cell, 149(2), pp. 274–293."
    )
    assert w.authors == ["Laplante, M.", "Sabatini, D.M."]
    assert (w.year, w.title, w.venue) == (
        2012,
        "mTOR signaling in growth control and disease",
        "Cell",
    )
    # ...or with a digit (OpenAlex has such titles: "18–19 November 2008 ...", "2001 ...")
    w = parse_citation_string(
        "Lu, C., Liu, X. and Jia, Z. (2020) ‘2019-nCoV transmission through the ocular surface "
        "must not be ignored’, The Lancet, 395(10224), p. e39."
    )
    assert w.title == "2019-nCoV transmission through the ocular surface must not be ignored"
    assert (w.year, w.venue) == (2020, "The Lancet")
    # a phrase quoted inside an unquoted title (a word before the quote) is no title
    w = parse_citation_string(
        "Okada H, Kuhn C, Feillet H, Bach JF. The ‘hygiene hypothesis’ for autoimmune and "
        "allergic diseases: an update. Clin Exp Immunol. 2010;160(1):1-9."
    )
    assert w.title == "The ‘hygiene hypothesis’ for autoimmune and allergic diseases: an update"
    assert (w.year, w.venue) == (2010, "Clin Exp Immunol")
    # ...nor a small-letter phrase opening a title (a word follows its closing quote)
    w = parse_citation_string(
        "Jones A, Smith B. ‘omics’ approaches to cancer biology. Nat Rev Cancer. 2010;10:1-9."
    )
    assert w.title == "‘omics’ approaches to cancer biology"
    assert (w.year, w.venue) == (2010, "Nat Rev Cancer")


def test_ieee() -> None:
    w = parse_citation_string(
        '[1] J. Devlin, M.-W. Chang, K. Lee, and K. Toutanova, "BERT: Pre-training of deep bidirectional '
        'transformers for language understanding," in *Proc. NAACL-HLT*, 2019, pp. 4171–4186.'
    )
    assert w.authors == ["J. Devlin", "M.-W. Chang", "K. Lee", "K. Toutanova"]
    assert (
        w.title
        == "BERT: Pre-training of deep bidirectional transformers for language understanding"
    )
    assert w.venue == "Proc. NAACL-HLT"
    assert (w.year, w.pages) == (2019, "4171–4186")


def test_vancouver() -> None:
    w = parse_citation_string(
        "Devlin J, Chang MW, Lee K, Toutanova K. BERT: pre-training of deep bidirectional transformers for "
        "language understanding. Proc NAACL. 2019;1:4171-86."
    )
    assert w.authors == ["Devlin J", "Chang MW", "Lee K", "Toutanova K"]
    assert (
        w.title
        == "BERT: pre-training of deep bidirectional transformers for language understanding"
    )
    assert (w.venue, w.year, w.volume, w.pages) == ("Proc NAACL", 2019, "1", "4171-86")


def test_vancouver_et_al() -> None:
    w = parse_citation_string(
        "Kelley KE, Hernandez-Diaz S, Chaplin EL, et al. Identification of phthalates in medications and "
        "dietary supplement formulations in the United States and Canada. Environ Health Perspect. "
        "2012;120(3):379–84. doi: 10.1289/ehp.1103998 ."
    )
    assert w.authors == ["Kelley KE", "Hernandez-Diaz S", "Chaplin EL"]
    assert w.et_al
    assert w.title is not None and w.title.startswith("Identification of phthalates")
    assert w.venue == "Environ Health Perspect"
    assert w.doi == ["10.1289/ehp.1103998"]
    assert w.year == 2012


def test_acs() -> None:
    w = parse_citation_string(
        "(1) Shea, M. J.; Compton, R. N. Physical Review B 1993, 47, 9967–9970."
    )
    assert w.authors == ["Shea, M. J.", "Compton, R. N."]
    assert w.title is None
    assert (w.venue, w.year, w.volume, w.pages) == ("Physical Review B", 1993, "47", "9967–9970")


def test_aip() -> None:
    w = parse_citation_string("1 M.J. Shea and R.N. Compton, Physical Review B 47, 9967 (1993).")
    assert w.authors == ["M.J. Shea", "R.N. Compton"]
    assert (w.venue, w.year, w.volume, w.pages) == ("Physical Review B", 1993, "47", "9967")
    assert w.title is None


def test_elsevier_without_titles() -> None:
    w = parse_citation_string(
        "[1] X. Wang, S. Guo, L. Zhao, Bulletin of the Korean Chemical Society 34 (2013) 3829."
    )
    assert w.authors == ["X. Wang", "S. Guo", "L. Zhao"]
    assert (w.venue, w.year, w.volume) == ("Bulletin of the Korean Chemical Society", 2013, "34")


def test_plain() -> None:
    w = parse_citation_string(
        "Yann LeCun, Yoshua Bengio, Geoffrey Hinton. Deep learning. Nature. 2015."
    )
    assert w.authors == ["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"]
    assert (w.title, w.venue, w.year) == ("Deep learning", "Nature", 2015)


def test_markdown() -> None:
    w = parse_citation_string(
        "[BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding]"
        "(https://arxiv.org/abs/1810.04805)\n\n- Jacob Devlin, Ming-Wei Chang, Kenton Lee, Kristina Toutanova"
    )
    assert (
        w.title
        == "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"
    )
    assert w.authors == ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"]
    assert w.arxiv == "1810.04805" and w.is_preprint
    assert w.urls == ["https://arxiv.org/abs/1810.04805"]


def test_book_with_publisher() -> None:
    w = parse_citation_string(
        "Rogers, E. M. (1995). Diffusion of innovations. New York: Free Press."
    )
    assert w.authors == ["Rogers, E. M."]
    assert (w.year, w.title, w.publisher) == (1995, "Diffusion of innovations", "Free Press")


def test_preprint_string() -> None:
    w = parse_citation_string(
        "Vaswani, A., et al. (2017). Attention is all you need. arXiv preprint arXiv:1706.03762v5."
    )
    assert w.authors == ["Vaswani, A."] and w.et_al
    assert w.arxiv == "1706.03762" and w.is_preprint
    assert w.title == "Attention is all you need"


@pytest.mark.parametrize(
    "tail",
    ["arXiv:1706.03762v5 [cs.CL].", "arXiv:1706.03762 [cs.CL]", "arXiv: 1706.03762v5 [stat.ML]."],
)
def test_arxiv_category_after_the_id_is_no_venue(tail: str) -> None:
    # the listing's category tag arXiv's own citation export writes after the id
    w = parse_citation_string(f"Vaswani, A., et al. (2017). Attention is all you need. {tail}")
    assert w.arxiv == "1706.03762" and w.is_preprint and w.title == "Attention is all you need"
    assert not w.venue or "[" not in w.venue


def test_bibtex_string_delegates() -> None:
    w = parse_citation_string(
        "@article{lecun2015, title={Deep learning}, author={LeCun, Yann and Bengio, Yoshua}, year={2015}}"
    )
    assert w.form == "bibtex" and w.title == "Deep learning" and w.year == 2015


# --------------------------------------------------------------------------- identifiers


@pytest.mark.parametrize(
    "written",
    [
        "doi:10.1038/nature14539",
        "doi: 10.1038/nature14539.",
        "DOI 10.1038/NATURE14539",
        "https://doi.org/10.1038/nature14539",
        "http://dx.doi.org/10.1038/nature14539",
        "dx.doi.org/10.1038/nature14539",
        "(10.1038/nature14539)",
        "10.1038/nature14539;",
    ],
)
def test_doi_forms(written: str) -> None:
    w = parse_citation_string(
        f"LeCun Y, Bengio Y, Hinton G. Deep learning. Nature. 2015;521:436-44. {written}"
    )
    assert w.doi == ["10.1038/nature14539"]


def test_doi_unicode_confusables() -> None:
    w = parse_citation_string("Some Author. A title. doi:10.1016/j.cell\u20102019\u200b.01.001")
    assert w.doi == ["10.1016/j.cell-2019.01.001"]
    w = parse_citation_string("A. Author, Title, 10.1000\u2044xyz\u2013123")
    assert w.doi == ["10.1000/xyz-123"]


def test_doi_repairs() -> None:
    assert parse_citation_string(
        "J Neuroscience 24(20):4832. doi: 10.1523/jneurosci. 0300-04.2004"
    ).doi == ["10.1523/jneurosci.0300-04.2004"]
    assert parse_citation_string("Future Cardiol 11(1):27–37. doi:10.2217/fca .14.82").doi == [
        "10.2217/fca.14.82"
    ]
    sici = "doi:10.1002/(SICI)1098-2264(199910)26:2<142::AID-GCC6>3.0.CO;2-B"
    assert parse_citation_string(f"Genes Chromosomes Cancer 26(2):142–150. {sici}").doi == [
        "10.1002/(sici)1098-2264(199910)26:2<142::aid-gcc6>3.0.co;2-b"
    ]
    # a year after a DOI that ends a sentence is not glued on
    assert parse_citation_string("X. Title. doi:10.1000/abc. 2009.").doi == ["10.1000/abc"]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("arXiv:1810.04805", "1810.04805"),
        ("arXiv:1810.04805v2", "1810.04805"),
        ("arXiv preprint arXiv:1810.04805", "1810.04805"),
        ("https://arxiv.org/abs/1810.04805v1", "1810.04805"),
        ("https://arxiv.org/pdf/1810.04805.pdf", "1810.04805"),
        ("arXiv:hep-th/9901001", "hep-th/9901001"),
        # an old id's subject class is not part of it (OpenAlex has arxiv.org/abs/math/0309136)
        ("arXiv:math.GT/0309136v1", "math/0309136"),
        ("https://doi.org/10.48550/arXiv.1810.04805", "1810.04805"),
    ],
)
def test_arxiv_forms(written: str, expected: str) -> None:
    w = parse_citation_string(f"Devlin, J. (2018). BERT. {written}")
    assert w.arxiv == expected
    assert w.is_preprint


# Real shapes of arXiv papers' bibliographies (unarXive, Crossref's physics strings): the eprint
# printed without a label, by REVTeX after the year, in brackets after the pages, and DBLP's
# "CoRR abs/…" volume; the id read into the title goes.
@pytest.mark.parametrize(
    ("text", "arxiv", "title"),
    [
        (
            "P. Huembeli, G. Carleo, and A. Mezzacapo, Entanglement forging with generative "
            "neural network models (2022), 2205.00933 .",
            "2205.00933",
            "Entanglement forging with generative neural network models",
        ),
        ("M. Hamanaka, Nucl. Phys. B 741 (2006) 368 [hep-th/0601209].", "hep-th/0601209", None),
        (
            "I. Gelfand, S. Gelfand, V. Retakh and R. Wilson, Adv. Math. 193 (2005) 56 "
            "[math.QA/0208146].",
            "math/0208146",
            None,
        ),
        (
            "He, K., Zhang, X., Ren, S., Sun, J.: Deep residual learning for image recognition. "
            "CoRR abs/1512.03385 (2015)",
            "1512.03385",
            "Deep residual learning for image recognition",
        ),
        (
            "LEP collaboration, A. Rosca, Fermiophobic Higgs bosons at LEP, hep-ex/0212038 "
            "[ SPIRES ].",
            "hep-ex/0212038",
            "Fermiophobic Higgs bosons at LEP",
        ),
        (
            "M. Amiri and A. Rejali, BSE- properties of vector-valued group algebras, "
            "arXiv:2206.11237 [math.FA], (2022).",
            "2206.11237",
            "BSE- properties of vector-valued group algebras",
        ),
    ],
)
def test_arxiv_ids_without_a_label(text: str, arxiv: str, title: str | None) -> None:
    w = parse_citation_string(text)
    assert w.arxiv == arxiv and w.is_preprint
    if title:
        assert w.title == title


@pytest.mark.parametrize(
    "text",
    [
        # a DOI a PDF broke up: its tail looks like a new id after a full stop
        "De Haan L, Zoomers A (2005) Exploring the frontiers of livelihoods research. Development "
        "and Change 36, 27– 47. doi: 10.1111/ j. 0012-155X. 2005.00401. x",
        "Tamuz, O., Mazeh, T., & Zucker, S. 2005, , 356, 1466, doi: 10.1111/j.1365-2966.2004.08585.x",
        "Smith, J. (2012). Heat flow. Report 1234.5678, pp. 1–9.",  # no month 34
        "Smith, J. (2012). Heat flow. J. Heat 12, 2012.1234.",  # four digits after 2015
        "Smith, J. (2012). Heat flow. and/9901001.",  # not an archive of arXiv
        # a page range that lost its dash in OCR, after the comma
        "Smith J, Jones K. Cancer outcomes. J Chem, 2012, 33(4), 1203.1215.",
    ],
)
def test_numbers_that_are_no_arxiv_id(text: str) -> None:
    assert parse_citation_string(text).arxiv is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789./-[](), abshepthmav", max_size=40))
def test_an_unlabelled_arxiv_id_is_written_and_canonical(text: str) -> None:
    from citejudge.ids import extract_arxiv_unlabelled, norm_arxiv

    found = extract_arxiv_unlabelled(text)
    if found is not None:
        assert norm_arxiv(found) == found
        assert found.split("/")[-1] in text


@pytest.mark.parametrize(
    "written",
    ["PMCID: PMC6713186", "PMC6713186", "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6713186/"],
)
def test_pmcid_forms(written: str) -> None:
    w = parse_citation_string(f"Smith J. A paper. J Things. 2019;1:1-2. {written}")
    assert w.pmcid == "PMC6713186"


def test_pmid_and_openalex() -> None:
    w = parse_citation_string(
        "Smith J. A paper. J Things. 2019. PMID: 31452104. https://openalex.org/W2100837269"
    )
    assert w.pmid == "31452104"
    assert w.openalex == "W2100837269"


# --------------------------------------------------------------------------- et al. and years


@pytest.mark.parametrize(
    "authors",
    [
        "Smith, J., et al.",
        "Smith, J. et al",
        "Smith J, et al.",
        "Smith, J. and others",
        "Smith, J., …",
        "Novák, J. a kol.",
    ],
)
def test_et_al_variants(authors: str) -> None:
    w = parse_citation_string(
        f"{authors} (2019). A title of the paper. Journal of Things, 1(2), 3–4."
    )
    assert w.et_al, authors
    assert w.authors and w.authors[0].startswith(("Smith", "Novák"))
    assert w.year == 2019


@pytest.mark.parametrize(
    ("year", "raw", "value"),
    [
        ("2019a", "2019a", 2019),
        ("in press", "in press", None),
        ("n.d.", "n.d.", None),
        ("forthcoming", "forthcoming", None),
    ],
)
def test_year_variants(year: str, raw: str, value: int | None) -> None:
    w = parse_citation_string(f"Smith, J. ({year}). A title of the paper. Journal of Things.")
    assert w.year_raw == raw
    assert w.year == value
    assert w.authors == ["Smith, J."]
    assert w.title == "A title of the paper"


def test_no_year_warns() -> None:
    w = parse_citation_string("Smith, J. A title of the paper. Journal of Things.")
    assert w.year is None and any("year" in x for x in w.warnings)


# --------------------------------------------------------------------------- robustness


def test_empty() -> None:
    for text in ("", "   ", "\n"):
        w = parse_citation_string(text)
        assert isinstance(w, CitedWork) and w.warnings


def test_binary_garbage() -> None:
    garbage = bytes(range(256)).decode("latin-1") * 20 + "\x00\x01\x02"
    w = parse_citation_string(garbage)
    assert isinstance(w, CitedWork)
    w = parse_citation_string("\ufffd\ufffd\x00doi:10.1038/nature14539\x07")
    assert w.doi == ["10.1038/nature14539"]


def test_one_megabyte_string_returns() -> None:
    text = (
        "LeCun, Y. (2015). Deep learning. Nature. "
        + ("lorem ipsum, dolor. " * 55_000)
        + " doi:10.1038/nature14539"
    )
    assert len(text) > 1_000_000
    w = parse_citation_string(text)
    assert w.doi == ["10.1038/nature14539"]  # ids are scanned in the whole string
    assert w.year == 2015
    assert any("longer than" in x for x in w.warnings)


def test_non_string_input() -> None:
    w = parse_citation_string(12345)  # type: ignore[arg-type]
    assert w.warnings


# --------------------------------------------------------------------------- names


def test_split_author_string() -> None:
    assert split_author_string("Last, F. M., Last2, G.") == ["Last, F. M.", "Last2, G."]
    assert split_author_string("Jacob Devlin, Ming-Wei Chang, Kenton Lee") == [
        "Jacob Devlin",
        "Ming-Wei Chang",
        "Kenton Lee",
    ]
    assert split_author_string("Jacob Devlin and Ming-Wei Chang") == [
        "Jacob Devlin",
        "Ming-Wei Chang",
    ]
    assert split_author_string("Devlin, Jacob; Chang, Ming-Wei") == [
        "Devlin, Jacob",
        "Chang, Ming-Wei",
    ]
    assert split_author_string("Devlin, J. & Chang, M.-W.") == ["Devlin, J.", "Chang, M.-W."]


def test_strip_dblp_suffix() -> None:
    assert strip_dblp_suffix("Jiawei He 0002") == "Jiawei He"
    assert strip_dblp_suffix("Jiawei He") == "Jiawei He"


# --------------------------------------------------------------------------- BibTeX


BERT_BIB = r"""@inproceedings{devlin-etal-2019-bert,
    title = "{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding",
    author = "Devlin, Jacob  and Chang, Ming-Wei  and Lee, Kenton  and Toutanova, Kristina",
    booktitle = "Proceedings of the 2019 Conference of the North {A}merican Chapter of the Association for Computational Linguistics",
    year = "2019",
    pages = "4171--4186",
    doi = "10.18653/v1/N19-1423",
    url = "https://aclanthology.org/N19-1423",
    publisher = "Association for Computational Linguistics",
}"""


def test_bibtex_entry() -> None:
    w = parse_bibtex_entry(BERT_BIB)
    assert w.form == "bibtex" and w.entry_type == "inproceedings"
    assert (
        w.title
        == "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"
    )
    assert w.authors == ["Devlin, Jacob", "Chang, Ming-Wei", "Lee, Kenton", "Toutanova, Kristina"]
    assert w.venue is not None and w.venue.startswith(
        "Proceedings of the 2019 Conference of the North American"
    )
    assert (w.year, w.pages, w.doi) == (2019, "4171–4186", ["10.18653/v1/n19-1423"])
    assert not w.is_preprint and not w.warnings


def test_bibtex_arxiv_journal_and_dblp_names() -> None:
    w = parse_bibtex_entry(
        '@article{x, author={Jiawei He 0002 and Kaiming He AND others}, title={Some {T}itle with {\\"u}mlaut}, '
        "journal={arXiv preprint arXiv:1810.04805}, year={2018}}"
    )
    assert w.authors == ["Jiawei He", "Kaiming He"]
    assert w.et_al
    assert w.title == "Some Title with ümlaut"
    assert w.arxiv == "1810.04805" and w.is_preprint


def test_bibtex_eprint_fields() -> None:
    w = parse_bibtex_entry(
        "@misc{v, title={Attention Is All You Need}, author={Ashish Vaswani and Noam Shazeer}, "
        "year={2017}, eprint={1706.03762}, archivePrefix={arXiv}, primaryClass={cs.CL}}"
    )
    assert w.arxiv == "1706.03762" and w.is_preprint
    assert w.authors == ["Ashish Vaswani", "Noam Shazeer"]


def test_bibtex_and_inside_braces_is_not_a_separator() -> None:
    w = parse_bibtex_entry(
        "@article{x, author={{Barnes and Noble Inc.} and Smith, John}, title={T}, year=2001}"
    )
    assert w.authors == ["Barnes and Noble Inc.", "Smith, John"]


def test_bibtex_unbalanced_braces() -> None:
    w = parse_bibtex_entry(
        "@article{broken, title={Deep {learning}, author={LeCun, Yann and Bengio, Yoshua}, year={2015}"
    )
    assert isinstance(w, CitedWork)
    assert w.warnings
    assert w.year == 2015
    assert w.title is not None and "Deep" in w.title


def test_bibtex_garbage_never_raises() -> None:
    for text in ("@", "@article{", "@article{x,", "@{}}}}", "@article{x, title={" + "{" * 500):
        assert isinstance(parse_bibtex_entry(text), CitedWork)


# --------------------------------------------------------------------------- CSL and metadata


def test_csl_item() -> None:
    w = parse_csl_item(
        {
            "type": "article-journal",
            "title": "Deep learning",
            "author": [
                {"family": "LeCun", "given": "Yann"},
                {"family": "Bengio", "given": "Yoshua"},
                {"literal": "Geoffrey Hinton"},
            ],
            "issued": {"date-parts": [[2015, 5, 28]]},
            "container-title": "Nature",
            "DOI": "10.1038/NATURE14539",
            "PMID": "26017442",
            "volume": "521",
            "page": "436-444",
        }
    )
    assert w.form == "csl"
    assert w.authors == ["LeCun, Yann", "Bengio, Yoshua", "Geoffrey Hinton"]
    assert (w.title, w.year, w.venue, w.doi, w.pmid) == (
        "Deep learning",
        2015,
        "Nature",
        ["10.1038/nature14539"],
        "26017442",
    )
    assert not w.is_preprint


def test_metadata() -> None:
    w = parse_metadata(
        {
            "title": "Deep learning",
            "authors": "Yann LeCun and Yoshua Bengio and Geoffrey Hinton",
            "year": "2015",
            "venue": "Nature",
            "doi": "https://doi.org/10.1038/nature14539",
            "pmcid": "6713186",
            "arxiv": "arXiv:1810.04805v3",
        }
    )
    assert w.authors == ["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"]
    assert (w.year, w.doi, w.pmcid, w.arxiv) == (
        2015,
        ["10.1038/nature14539"],
        "PMC6713186",
        "1810.04805",
    )
    w = parse_metadata({"authors": ["LeCun, Y.", "et al."], "year": 2015})
    assert w.authors == ["LeCun, Y."] and w.et_al and w.year == 2015


def test_metadata_wrong_types() -> None:
    w = parse_metadata(
        {"title": 42, "authors": {"a": 1}, "year": [2015], "doi": "not a doi", "pmid": 3.5}
    )
    assert w.title is None and w.authors == [] and w.year is None and w.doi == []
    for field in ("title", "authors", "year", "pmid"):
        assert any(x.startswith(field) for x in w.warnings), field
    # a stated DOI that is not a DOI is kept, to be reported as a mismatch
    assert w.bad_ids == [("doi", "not a doi")]


def test_parse_item_citation() -> None:
    full, meta = parse_item_citation({"full_citation": BERT_BIB, "metadata": {"title": "BERT"}})
    assert full is not None and full.form == "bibtex"
    assert meta is not None and meta.title == "BERT"
    full, meta = parse_item_citation(
        {"full_citation": {"title": "Deep learning", "DOI": "10.1038/nature14539"}}
    )
    assert full is not None and full.form == "csl" and meta is None
    assert parse_item_citation({"claim": "x"}) == (None, None)
    full, _ = parse_item_citation({"full_citation": 7})
    assert full is not None and full.warnings


def test_canonical_dois_everywhere() -> None:
    for w in (parse_bibtex_entry(BERT_BIB), parse_citation_string("doi:10.1038/NATURE14539.")):
        assert all(norm_doi(d) == d for d in w.doi)


# --------------------------------------------------------------------------- real reference-list forms


@pytest.mark.parametrize(
    ("text", "title", "venue", "authors"),
    [
        # Springer LNCS: no quotes, "In: editors (eds.) container. Series"
        (
            "Ronneberger, O., Fischer, P., Brox, T.: U-Net: Convolutional networks for biomedical image segmentation. "
            "In: Navab, N., Hornegger, J., Wells, W.M., Frangi, A.F. (eds.) MICCAI 2015. LNCS, vol. 9351, pp. 234–241. "
            "Springer, Cham (2015)",
            "U-Net: Convolutional networks for biomedical image segmentation",
            "MICCAI 2015",
            ["Ronneberger, O.", "Fischer, P.", "Brox, T."],
        ),
        # Elsevier without quotes, lower-case "in:"
        (
            "K. He, X. Zhang, S. Ren, J. Sun, Deep residual learning for image recognition, in: Proceedings of the IEEE "
            "Conference on Computer Vision and Pattern Recognition, 2016, pp. 770–778.",
            "Deep residual learning for image recognition",
            "Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition",
            ["K. He", "X. Zhang", "S. Ren", "J. Sun"],
        ),
        # German "In:" and "S." pages
        (
            "Müller, T.: Eine Studie über Dinge. In: Meier, K. (Hrsg.) Handbuch der Dinge, S. 1–10. Springer, Berlin (2019)",
            "Eine Studie über Dinge",
            "Handbuch der Dinge",
            ["Müller, T."],
        ),
        # numbered Vancouver
        (
            "12. Smith J, Doe A, Roe B. Effects of coffee on sleep. J Sleep Res. 2020;29(3):e12345.",
            "Effects of coffee on sleep",
            "J Sleep Res",
            ["Smith J", "Doe A", "Roe B"],
        ),
        # the rest of an inverted name is not the title's first sentence
        (
            "Ohnishi, S. Tsuyoshi. EPR detection of ubiquinone in bovine heart. Biochimica et Biophysica Acta. 2010. 1797. . "
            "21-22",
            "EPR detection of ubiquinone in bovine heart",
            "Biochimica et Biophysica Acta",
            ["Ohnishi, S. Tsuyoshi"],
        ),
        (
            "Smith, J. (2020). Malaria. A review of things. Journal X, 3, 4-5.",
            "Malaria. A review of things",
            "Journal X",
            ["Smith, J."],
        ),
    ],
)
def test_reference_list_forms(text: str, title: str, venue: str, authors: list[str]) -> None:
    w = parse_citation_string(text)
    assert (w.title, w.venue, w.authors) == (title, venue, authors)


def test_same_authors_dash_is_not_a_title() -> None:
    w = parse_citation_string(
        "———. 2004. The second book on things. Chicago: University of Chicago Press."
    )
    assert w.title == "The second book on things"
    assert w.authors == []
    assert any("previous entry" in x for x in w.warnings)


def test_editor_note_after_names_is_not_the_title() -> None:
    w = parse_citation_string(
        "Smith, John, ed. 2001. A Handbook of Things. Oxford: Oxford University Press."
    )
    assert (w.authors, w.title) == (["Smith, John"], "A Handbook of Things")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Smith J (2019) DOI for datasets. Cell 3:1-4", "DOI for datasets"),
        ("Smith J (2019) A URL shortener for science. Cell 3:1-4", "A URL shortener for science"),
    ],
)
def test_doi_and_url_words_stay_in_titles(text: str, title: str) -> None:
    assert parse_citation_string(text).title == title


def test_unreadable_stated_doi_is_kept_as_bad_id() -> None:
    w = parse_citation_string("Smith J. A thing. Cell. 2019;176:1-10. doi:10.1016jcell.2019.01.001")
    assert w.doi == []
    assert w.bad_ids == [("doi", "10.1016jcell.2019.01.001")]
