"""Quarto and R Markdown reports: pandoc citations among cross-references, and handles."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.documents import document_files, read_document
from citejudge.text import split_sentences

BIB = (
    "@article{lecun2015, author={LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey E.},"
    " title={Deep learning}, journal={Nature}, year={2015}}\n"
    "@inproceedings{he2016, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian},"
    " title={Deep Residual Learning for Image Recognition}, booktitle={CVPR}, year={2016}}\n"
)

# The shape of a Quarto report: front matter naming the .bib, citations among Quarto's
# cross-references to figures, sections, tables and equations, a pinpoint with "p.".
REPORT = """---
title: "Training report"
bibliography: refs.bib
format: html
---

## Results {#sec-results}

Deep learning learns layered representations [@lecun2015]. As @fig-loss shows, training converges.
See @sec-method and [@tbl-a; @tbl-b] for details; @eq-loss defines the loss.
Residual connections ease optimisation [see @he2016, p. 3]. @lecun2015 review the field.

```{r}
#| label: fig-loss
plot(loss)
```
"""


@pytest.mark.parametrize("name", ["report.qmd", "report.Rmd"])
def test_a_quarto_report_cites_and_cross_references(tmp_path: Path, name: str) -> None:
    (tmp_path / "refs.bib").write_text(BIB)
    (tmp_path / name).write_text(REPORT)
    assert document_files([tmp_path]) == [
        tmp_path / name
    ]  # its .bib is the report's, not a document
    doc = read_document(tmp_path / name)
    assert doc.format == "markdown"
    got = [(s.claim, s.entries, [m.text for m in s.markers]) for s in doc.sentences]
    assert got == [
        ("Deep learning learns layered representations.", [1], ["[@lecun2015]"]),
        ("Residual connections ease optimisation.", [2], ["[see @he2016, p. 3]"]),
        ("LeCun et al. review the field.", [1], ["@lecun2015"]),
    ]
    assert doc.unresolved == []  # no cross-reference is taken for a citation


def test_a_handle_in_an_answer_with_a_numbered_list_is_no_marker(tmp_path: Path) -> None:
    md = tmp_path / "answer.md"
    md.write_text(
        "Transformers replaced recurrence [1]. Follow @karpathy for more, or write to "
        "someone@example.com.\n\n## References\n\n"
        '[1] A. Vaswani et al., "Attention is all you need," NeurIPS, 2017.\n'
    )
    doc = read_document(md)
    assert [s.entries for s in doc.sentences] == [[1]] and doc.unresolved == []


def test_a_locator_before_its_number_ends_no_sentence() -> None:
    text = "It helps [see @x, p. 3]. Next. Read chap. 2 first. Ends at p. Then. @doe99 shows it."
    assert split_sentences(text, citing=True) == [
        "It helps [see @x, p. 3].",
        "Next.",
        "Read chap. 2 first.",
        "Ends at p.",
        "Then.",
        "@doe99 shows it.",
    ]
    # evidence is split as the support scorer was calibrated: without either rule
    assert split_sentences(text)[:2] == ["It helps [see @x, p.", "3]."]
    assert split_sentences(text)[-1] == "Then. @doe99 shows it."


def test_a_quoted_sentence_keeps_its_closing_quote_and_its_marker() -> None:
    # a report quoting its source, the marker after the closing quote (with or without a space)
    quoted = (
        "As the authors put it, “deep learning allows computational models to learn "
        "representations of data with multiple levels of abstraction.” [1] Training needs data."
    )
    assert split_sentences(quoted, citing=True) == [
        "As the authors put it, “deep learning allows computational models to learn "
        "representations of data with multiple levels of abstraction.” [1]",
        "Training needs data.",
    ]
    glued = 'He wrote "it converges."[2] Then it did.'
    assert split_sentences(glued, citing=True) == ['He wrote "it converges."[2]', "Then it did."]
    # an author-year citation after the quote's own stop joins the quote
    assert split_sentences('They call it "a large effect." (Smith, 2001). Next.', citing=True) == [
        'They call it "a large effect." (Smith, 2001).',
        "Next.",
    ]
    # negatives: a marker that is the subject of its sentence stays there, "et al. [3]" ends no
    # sentence, and a parenthetical with words is a sentence of its own
    assert split_sentences("It was shown. [3] showed that it works.", citing=True) == [
        "It was shown.",
        "[3] showed that it works.",
    ]
    assert split_sentences("Smith et al. [3] showed it. Next.", citing=True) == [
        "Smith et al. [3] showed it.",
        "Next.",
    ]
    assert split_sentences("A claim (Smith, 2001). (Jones, 2002) disagree.", citing=True) == [
        "A claim (Smith, 2001).",
        "(Jones, 2002) disagree.",
    ]
    # a parenthetical sentence of its own stays one, with its own marker (a year in it or not)
    assert split_sentences(
        "Transformers dominate NLP [1]. (In 2020, GPT-3 reached 175B parameters [2].) We build "
        "on them. Blue diodes. (The factory uses about 3.9 million of these.) Next.",
        citing=True,
    ) == [
        "Transformers dominate NLP [1].",
        "(In 2020, GPT-3 reached 175B parameters [2].)",
        "We build on them.",
        "Blue diodes.",
        "(The factory uses about 3.9 million of these.)",
        "Next.",
    ]
    assert split_sentences('A quote."  (Smith and Jones, n.d.). Next.', citing=True) == [
        'A quote." (Smith and Jones, n.d.).',
        "Next.",
    ]
    # a stop inside an author-year citation's brackets ends no sentence
    assert split_sentences(
        "Memory cells help (Hochreiter, S. 1997). It holds (see Smith, J. 2001, and Jones, K. "
        "2003). Next.",
        citing=True,
    ) == [
        "Memory cells help (Hochreiter, S. 1997).",
        "It holds (see Smith, J. 2001, and Jones, K. 2003).",
        "Next.",
    ]
    # a group of author-year citations over 80 characters still joins its quotation; a stray
    # bracket does not glue claims together (the stop must follow an initial, a year after it)
    assert split_sentences(
        "He wrote that “memory fades.” (Smith et al., 2001; Jones and Brown, 2003; Lee, Kim and "
        "Park, 2018; Wang et al., 2021). Next one. The model (trained on 1B tokens is right [1]. "
        "The baseline is not [2]. A third claim holds [3]) ends.",
        citing=True,
    ) == [
        "He wrote that “memory fades.” (Smith et al., 2001; Jones and Brown, 2003; Lee, Kim and "
        "Park, 2018; Wang et al., 2021).",
        "Next one.",
        "The model (trained on 1B tokens is right [1].",
        "The baseline is not [2].",
        "A third claim holds [3]) ends.",
    ]
    # evidence is split as the support scorer was calibrated (the closing quote is not kept)
    assert split_sentences(glued) == ['He wrote "it converges."[2] Then it did.']


def test_a_marker_after_a_quoted_sentence_points_to_that_sentence(tmp_path: Path) -> None:
    # a generated report quoting its source, the marker after the closing quote
    md = tmp_path / "report.md"
    md.write_text(
        "# Why deep networks need data\n\n"
        "Neural networks have been studied for decades, but only recently have they\n"
        "outperformed other methods on perception tasks.\n\n"
        "As the review put it, “deep learning allows computational models that are composed of\n"
        "multiple processing layers to learn representations of data with multiple levels of\n"
        "abstraction.” [1] Such models need large labelled datasets, which were rare before the\n"
        "last decade.\n\n"
        "The rest of this report looks at how much data a model of a given size needs.\n\n"
        "## References\n\n"
        "[1] Y. LeCun, Y. Bengio, G. Hinton, “Deep learning,” Nature 521 (2015) 436–444.\n"
    )
    doc = read_document(md)
    assert [(s.entries, s.line) for s in doc.sentences] == [([1], 6)]
    claim = doc.sentences[0].claim
    assert claim.startswith("As the review put it") and claim.endswith("levels of abstraction.”")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "It works.",
                "“Quoted.”",
                '"Quoted."',
                "[3]",
                "[1, 2]",
                "(Smith, 2001).",
                "et al.",
                "p. 3",
                "Next",
                "@doe99",
                "x.”[2]",
                "large!",
                "?",
                " ",
                "Dr.",
                "A.",
            ]
        ),
        max_size=12,
    )
)
def test_a_citing_split_loses_no_character(words: list[str]) -> None:
    text = " ".join(words)
    parts = split_sentences(text, citing=True)
    assert " ".join(parts) == " ".join(text.split())
