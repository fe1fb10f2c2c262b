"""Make the PDF (and pdftotext) fixtures of tests/data/documents from the Markdown written by hand.

    python scripts/make_document_fixtures.py            # needs reportlab (the dev extra)

Run once; the PDFs are committed. The maker is reportlab 5.0.1 (PyPI, BSD): it lays the
Markdown subset the fixtures use (``#`` title, ``##`` headings, paragraphs, reference entries
separated by blank lines) out on A5 pages in two columns with a running header and a page
number in the footer, entries with a hanging indent. ``invariant=1`` makes the files
byte-identical from run to run. When ``pdftotext`` (poppler-utils, Debian) is on the PATH it
also writes ``numbered.pdftotext.txt``, the text ``pdftotext -layout`` gives of a one-column rendering,
for the plain-text reader.

:func:`render_pdf` is used by ``scripts/bench_document.py`` too (a 30-page paper).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "data" / "documents"


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_pdf(markdown: str, out: Path, *, header: str, columns: int = 2) -> int:
    """Lay ``markdown`` out into ``out``; returns the number of pages."""
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.pagesizes import A5
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import (
        BaseDocTemplate,
        Frame,
        NextPageTemplate,
        PageTemplate,
        Paragraph,
    )

    width, height = A5
    margin, gap = 12 * mm, 6 * mm
    col_w = (width - 2 * margin - (columns - 1) * gap) / columns
    body = ParagraphStyle(
        "body",
        fontName="Times-Roman",
        fontSize=8.5,
        leading=10.5,
        alignment=TA_JUSTIFY,
        spaceAfter=4,
    )
    head = ParagraphStyle(
        "head", fontName="Times-Bold", fontSize=10, leading=12, spaceBefore=6, spaceAfter=4
    )
    title = ParagraphStyle("title", fontName="Times-Bold", fontSize=14, leading=17, spaceAfter=8)
    ref = ParagraphStyle(
        "ref", parent=body, leftIndent=12, firstLineIndent=-12, alignment=0, spaceAfter=2.5
    )

    def frames(top: float) -> list[Frame]:
        return [
            Frame(
                margin + i * (col_w + gap),
                margin,
                col_w,
                top - margin,
                id=f"c{i}",
                leftPadding=0,
                rightPadding=0,
                topPadding=0,
                bottomPadding=0,
            )
            for i in range(columns)
        ]

    def furniture(canvas: object, doc: object) -> None:
        c = canvas
        c.saveState()  # type: ignore[attr-defined]
        c.setFont("Times-Italic", 7.5)  # type: ignore[attr-defined]
        c.drawString(margin, height - 8 * mm, header)  # type: ignore[attr-defined]
        c.drawCentredString(width / 2, 6 * mm, str(c.getPageNumber()))  # type: ignore[attr-defined]
        c.restoreState()  # type: ignore[attr-defined]

    top = height - 14 * mm
    title_h = 16 * mm
    first = PageTemplate(
        "first",
        [
            Frame(
                margin,
                top - title_h,
                width - 2 * margin,
                title_h,
                id="title",
                leftPadding=0,
                rightPadding=0,
                topPadding=0,
                bottomPadding=0,
            ),
            *frames(top - title_h),
        ],
        onPage=furniture,
    )
    later = PageTemplate("later", frames(top), onPage=furniture)
    doc = BaseDocTemplate(
        str(out),
        pagesize=A5,
        pageTemplates=[first, later],
        invariant=1,
        title=header,
        author="citejudge fixtures",
    )
    story: list[object] = []
    in_refs = False
    for block in re.split(r"\n\s*\n", markdown.strip()):
        text = " ".join(block.split())
        if text.startswith("# "):
            story += [Paragraph(_escape(text[2:]), title), NextPageTemplate("later")]
        elif text.startswith("## "):
            in_refs = text[3:].strip().lower() in ("references", "bibliography")
            story.append(Paragraph(_escape(text[3:]), head))
        elif in_refs:
            story.append(Paragraph(_escape(text), ref))
        else:
            story.append(Paragraph(_escape(text), body))
    doc.build(story)
    return int(doc.page)


def _authoryear_blocks(md: str) -> str:
    """Each entry of the author-year list (indented continuation lines) as a paragraph of its own."""
    head, _, refs = md.partition("## References")
    entries: list[str] = []
    for line in refs.strip().splitlines():
        if line.startswith("    ") and entries:
            entries[-1] += " " + line.strip()
        elif line.strip():
            entries.append(line.strip())
    return head + "## References\n\n" + "\n\n".join(entries) + "\n"


def main() -> int:
    n1 = render_pdf(
        (FIXTURES / "numbered.md").read_text(),
        FIXTURES / "numbered.pdf",
        header="Learning representations: a short survey (preprint)",
    )
    n2 = render_pdf(
        _authoryear_blocks((FIXTURES / "authoryear.md").read_text()),
        FIXTURES / "authoryear.pdf",
        header="What optimisers and networks owe each other (draft)",
    )
    print(f"numbered.pdf: {n1} pages, authoryear.pdf: {n2} pages")
    if shutil.which("pdftotext"):
        # pdftotext -layout prints two columns side by side, so its text fixture is made from a
        # one-column rendering (the shape of the finder's training documents)
        with tempfile.TemporaryDirectory() as tmp:
            one = Path(tmp) / "numbered-onecolumn.pdf"
            render_pdf(
                (FIXTURES / "numbered.md").read_text(),
                one,
                header="Learning representations: a short survey (preprint)",
                columns=1,
            )
            subprocess.run(
                ["pdftotext", "-layout", str(one), str(FIXTURES / "numbered.pdftotext.txt")],
                check=True,
            )
        print(
            "numbered.pdftotext.txt written by",
            subprocess.run(["pdftotext", "-v"], capture_output=True, text=True).stderr.splitlines()[
                0
            ],
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
