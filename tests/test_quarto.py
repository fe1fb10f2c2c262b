"""Quarto and R Markdown reports: pandoc citations among cross-references, and handles."""

from __future__ import annotations

from pathlib import Path

import pytest

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
