"""PDF: text with layout from pypdfium2, into the lines the finder reads.

pypdfium2 (PDFium, compiled; 5.13.0) rather than pdfminer.six (pure Python; 20260107), chosen
by ``scripts/bench_pdf.py``: both feed the same layout code below (:func:`lines_of_pages`) and
the same finder and parser, and are scored against the references the fixture PDFs were made
from. Speed decides: on the 32-page two-column benchmark paper (80 references) pypdfium2 took
0.0058 s of CPU a page (0.009 s wall, median of 3 rounds in turns, load average 6-8 on 2
cores), pdfminer.six 0.060 s (0.10 s wall): 10-11x slower; on the two 2-page fixtures 5x.
Quality is the same: both find all 80 entries of the paper and all 13 of each fixture exactly,
every marker resolved, 333 of the 334 citing sentences the Markdown reader finds in the
paper's source text (one pair runs together). (A first run had pdfminer.six 14 entries on
``authoryear.pdf``: a two-page document's running header was kept; :func:`_furniture` now
drops a line that heads both pages of a two-page document, for either library.)

For each page, PDFium's text rectangles (runs of text on one line) are gathered with their
positions; a page whose runs leave a vertical gutter near the middle is read as two columns
(full-width runs above the columns first, then the left column, then the right); runs on the
same baseline form a line, and a line's indentation is its distance from its column's left edge
in average character widths, so hanging indents and labels survive. A larger vertical gap than
the page's usual line spacing becomes a blank line. Running headers and footers (the first or
last line of a page repeating on at least half of the pages, or on both pages of a two-page
document, digits aside) and bare page numbers are dropped.

An encrypted PDF (without an empty password) and a PDF without a text layer (scanned pages)
are :class:`~citejudge.documents.DocumentError`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from citejudge.documents._build import DocumentError
from citejudge.documents._finder import SUPERSCRIPT_CITATION, Line, superscript_marker
from citejudge.documents._model import Document
from citejudge.documents._plain import document_from_lines

__all__ = ["PdfPage", "TextRun", "lines_of_pages", "pdf_lines", "pdfium_pages", "read_pdf"]


@dataclass
class TextRun:
    """A run of text on one line of a page, with its box in PDF points (origin bottom left)."""

    left: float
    bottom: float
    right: float
    top: float
    text: str

    @property
    def height(self) -> float:
        return self.top - self.bottom


def _page_runs(page: object) -> list[TextRun]:
    tp = page.get_textpage()  # type: ignore[attr-defined]
    try:
        runs = []
        for i in range(tp.count_rects()):
            left, bottom, right, top = tp.get_rect(i)
            text = tp.get_text_bounded(left, bottom, right, top)
            if "\n" in text or "\r" in text:
                # the box took in characters of a neighbouring line (a superscript above, a
                # descender below): read its middle band only
                h = top - bottom
                text = tp.get_text_bounded(left, bottom + 0.3 * h, right, top - 0.3 * h) or text
            text = " ".join(text.replace("\r", " ").replace("\n", " ").split())
            if text:
                runs.append(TextRun(left, bottom, right, top, text))
        return runs
    finally:
        tp.close()


def _gutter(runs: list[TextRun], width: float) -> float | None:
    """X of a vertical gap no run crosses, between 35% and 65% of the page, with text on both sides."""
    if len(runs) < 8:
        return None
    lo, hi = 0.35 * width, 0.65 * width
    best: tuple[int, float] | None = None
    step = width / 200
    x = lo
    while x <= hi:
        crossing = sum(1 for r in runs if r.left < x < r.right)
        if best is None or crossing < best[0]:
            best = (crossing, x)
        x += step
    if best is None:
        return None
    crossing, gx = best
    left = sum(1 for r in runs if r.right <= gx)
    right = sum(1 for r in runs if r.left >= gx)
    if crossing <= max(1, len(runs) // 25) and left >= 4 and right >= 4:
        return gx
    return None


def _lines_of(runs: list[TextRun], col_left: float, page_no: int) -> list[tuple[float, float, str]]:
    """(top, bottom, text with indentation) of the lines of one column, top to bottom."""
    runs = sorted(runs, key=lambda r: (-r.top, r.left))
    groups: list[list[TextRun]] = []
    for r in runs:
        if groups:
            g = groups[-1]
            ref = g[0]
            if abs(r.bottom - ref.bottom) < 0.5 * max(ref.height, 1.0):
                g.append(r)
                continue
        groups.append([r])
    out: list[tuple[float, float, str]] = []
    for g in groups:
        g.sort(key=lambda r: r.left)
        chars = sum(len(r.text) for r in g)
        span = sum(r.right - r.left for r in g)
        cw = span / chars if chars else 5.0
        text = ""
        prev_right: float | None = None
        for r in g:
            if prev_right is not None:
                gap = r.left - prev_right
                text += " " * max(1, round(gap / max(cw, 1.0))) if gap > 0.15 * cw else ""
            text += r.text
            prev_right = r.right
        indent = max(0, round((g[0].left - col_left) / max(cw, 1.0)))
        out.append((max(r.top for r in g), min(r.bottom for r in g), " " * indent + text))
    return out


#: A superscript citation's text: "1", "2,3", "3-5", "12–14" (PDFium's box of a small raised
#: run can take in one stray letter of the line below it: "p 3-5").
_SUP_TEXT = re.compile(rf"^(?:\S\s+)?({SUPERSCRIPT_CITATION.pattern})$")


def _superscripts(runs: list[TextRun]) -> list[TextRun]:
    """Runs with each superscript number set on the line it rides on.

    Nature-, Science- and Vancouver-style papers cite with raised small numbers
    ("problem¹", "data²˒³"). PDFium gives each as a run of its own, smaller and higher than its
    line, which the line grouping took for a line of its own (or glued to the line above). A
    small run of numbers whose bottom lies inside the upper part of a larger run beside it and
    whose top rises above that run's (a bold volume number, "Neural Comput. **9**", does not)
    moves onto that run's line as a numeric marker, "[2,3]"; after a digit or a unit it is an
    exponent ("10⁵" → "10^5", "km²" → "km^2": :func:`~citejudge.documents._finder.superscript_marker`).
    """
    if len(runs) < 3:
        return runs
    out: list[TextRun] = []
    for r in runs:
        m = _SUP_TEXT.match(r.text)
        hosts = (
            [
                n
                for n in runs
                if r.height < 0.8 * n.height
                and n.bottom + 0.15 * n.height < r.bottom < n.bottom + 0.8 * n.height
                and r.top > n.top + 0.1 * n.height  # raised above the line (a volume is not)
                and min(abs(n.right - r.left), abs(r.right - n.left)) < 1.5 * n.height
            ]
            if m is not None
            else []
        )
        if m is None or not hosts:
            out.append(r)
            continue
        host = min(hosts, key=lambda n: min(abs(n.right - r.left), abs(r.right - n.left)))
        before = host.text if host.right <= r.left + 1 else ""
        text = superscript_marker(before, m.group(1)) if before else f"[{m.group(1)}]"
        out.append(TextRun(r.left, host.bottom, r.right, host.top, text))
    return out


def _page_lines(runs: list[TextRun], width: float, height: float, page_no: int) -> list[str]:
    # bare page numbers in the top or bottom margin are furniture, and would skew a column's edge
    runs = _superscripts(
        [
            r
            for r in runs
            if not (_PAGE_NO.match(r.text) and (r.top > 0.92 * height or r.bottom < 0.08 * height))
        ]
    )
    gx = _gutter(runs, width)
    if gx is None:
        cols = [runs]
        spanning: list[TextRun] = []
    else:
        spanning = [r for r in runs if r.left < gx < r.right]
        cols = [[r for r in runs if r.right <= gx], [r for r in runs if r.left >= gx]]
    cols = [c for c in cols if c]
    col_top = max((r.top for c in cols for r in c), default=0.0)
    above = [r for r in spanning if r.bottom >= col_top - 1]
    below = [r for r in spanning if r not in above]
    blocks: list[list[TextRun]] = [above, *cols, below]
    texts: list[str] = []
    for b in blocks:
        if not b:
            continue
        wide = [r.left for r in b if len(r.text) >= 8] or [r.left for r in b]
        lines = _lines_of(b, min(wide), page_no)
        steps = [lines[i][1] - lines[i + 1][0] for i in range(len(lines) - 1)]
        pitch = sorted(lines[i][0] - lines[i + 1][0] for i in range(len(lines) - 1))
        usual = pitch[len(pitch) // 2] if pitch else 0.0
        for i, (_top, _bottom, t) in enumerate(lines):
            texts.append(t)
            if i < len(steps) and usual > 0 and (lines[i][0] - lines[i + 1][0]) > 1.45 * usual:
                texts.append("")
        texts.append("")
    return texts


_DIGITS = re.compile(r"\d+")
_PAGE_NO = re.compile(
    r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?\s*$|^\s*[-–]\s*\d{1,4}\s*[-–]\s*$", re.I
)


@dataclass
class PdfPage:
    """One page as a PDF library gives it: its size and its positioned text runs."""

    width: float
    height: float
    runs: list[TextRun]


def pdfium_pages(path: Path) -> list[PdfPage]:
    """Every page of ``path`` read with pypdfium2 (encrypted or unreadable: :class:`DocumentError`)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower() or "security" in msg.lower():
            raise DocumentError(
                f"{path}: the PDF is encrypted", hint="decrypt it first (qpdf --decrypt)"
            ) from exc
        raise DocumentError(f"{path}: not a readable PDF ({msg})") from exc
    try:
        pages: list[PdfPage] = []
        for i in range(len(pdf)):
            page = pdf[i]
            try:
                pages.append(PdfPage(page.get_width(), page.get_height(), _page_runs(page)))
            finally:
                page.close()
        return pages
    finally:
        pdf.close()


def lines_of_pages(path: Path, pdf_pages: list[PdfPage]) -> tuple[list[Line], list[str]]:
    """The lines of the pages in reading order (columns, blank lines for gaps, furniture dropped)."""
    if sum(len(r.text) for pg in pdf_pages for r in pg.runs) == 0:
        raise DocumentError(
            f"{path}: the PDF has no text layer (scanned pages?)", hint="run OCR on it first"
        )
    pages = [_page_lines(pg.runs, pg.width, pg.height, i) for i, pg in enumerate(pdf_pages, 1)]
    warnings: list[str] = []
    drop = _furniture(pages)
    if drop:
        warnings.append(f"dropped {len(drop)} running header/footer lines")
    lines: list[Line] = []
    n = 0
    for p, texts in enumerate(pages, start=1):
        for k, t in enumerate(texts):
            n += 1
            if (p, k) in drop or (_PAGE_NO.match(t) and t.strip()):
                continue
            lines.append(Line(t, p, n))
    return lines, warnings


def pdf_lines(path: Path) -> tuple[list[Line], list[str]]:
    """The lines of a PDF's text in reading order (page numbers kept), and warnings."""
    return lines_of_pages(path, pdfium_pages(path))


def _furniture(pages: list[list[str]]) -> set[tuple[int, int]]:
    """(page, index) of running headers and footers.

    First or last lines repeating on at least half the pages (at least 3), or on both pages of
    a two-page document.
    """
    if len(pages) < 2:
        return set()
    edges: Counter[str] = Counter()
    where: list[tuple[int, int, str]] = []
    for p, texts in enumerate(pages, start=1):
        idx = [k for k, t in enumerate(texts) if t.strip()]
        for k in idx[:2] + idx[-2:]:
            key = _DIGITS.sub("#", " ".join(texts[k].split()).lower())
            where.append((p, k, key))
    for _page, text_key in {(p, key) for p, _, key in where}:
        edges[text_key] += 1
    least = 2 if len(pages) == 2 else max(3, len(pages) // 2)  # two pages: on both
    common = {k for k, c in edges.items() if c >= least}
    return {(p, k) for p, k, key in where if key in common}


def read_pdf(path: Path) -> Document:
    """A PDF document."""
    lines, warnings = pdf_lines(path)
    return document_from_lines(str(path), "pdf", lines, warnings=warnings)
