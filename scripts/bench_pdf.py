"""Choose the PDF library by measurement: pypdfium2 against pdfminer.six, speed and quality.

    python scripts/bench_pdf.py [--rounds 3] [--pages 30] [--refs 80]

Both libraries feed the same layout code (``citejudge.documents._pdf.lines_of_pages``: columns,
blank lines for gaps, running headers/footers and page numbers dropped) and then the same
reference finder, entry splitter, parser and marker resolution; only where the positioned text
runs come from differs (pypdfium2: PDFium's text rectangles; pdfminer.six: its ``LTTextLine``
objects with default ``LAParams``). The PDFs: the fixtures ``numbered.pdf`` and
``authoryear.pdf`` (13 references each) and the benchmark's two-column paper made by
``scripts/bench_document.py`` (about 30 A5 pages, 80 references). Their references are known
from the Markdown they were made from.

Per PDF and library it prints: seconds per page for the text and layout step (wall: best and
median of ``--rounds`` rounds, the two libraries run in turns within each round; CPU: median of
this process's CPU time, which the load of other processes disturbs less), the ratios of the
medians, references found, entries whose text equals the written one (case, whitespace and
hyphens aside), the mean rapidfuzz ``ratio`` of each written entry to its found counterpart,
the markers that point nowhere, and the citing sentences found (against those the Markdown
reader finds in the source text: fewer means sentences run together). pdfminer.six is the ``bench`` extra
(``pip install -e '.[bench]'``); without it only pypdfium2 is measured. The machine's load is
printed (os.getloadavg): absolute times are noisy on a shared machine, the ratio less so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from rapidfuzz import fuzz, utils  # noqa: E402

from bench_document import paper  # noqa: E402
from citejudge.documents import read_document  # noqa: E402
from citejudge.documents._model import Document  # noqa: E402
from citejudge.documents._pdf import PdfPage, TextRun, lines_of_pages, pdfium_pages  # noqa: E402
from citejudge.documents._plain import document_from_lines  # noqa: E402
from make_document_fixtures import FIXTURES, _authoryear_blocks, render_pdf  # noqa: E402


def pdfminer_pages(path: Path) -> list[PdfPage]:
    """Every page read with pdfminer.six: one run per ``LTTextLine``."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextLine

    pages: list[PdfPage] = []
    for layout in extract_pages(str(path), laparams=LAParams()):
        runs: list[TextRun] = []
        stack: list[object] = list(layout)
        while stack:
            obj = stack.pop()
            if isinstance(obj, LTTextLine):
                text = " ".join(obj.get_text().split())
                if text:
                    runs.append(TextRun(obj.x0, obj.y0, obj.x1, obj.y1, text))
            elif hasattr(obj, "__iter__"):
                stack.extend(obj)  # text boxes, figures
        pages.append(PdfPage(layout.width, layout.height, runs))
    return pages


LIBRARIES: dict[str, Callable[[Path], list[PdfPage]]] = {"pypdfium2": pdfium_pages}
try:
    import pdfminer

    LIBRARIES["pdfminer.six"] = pdfminer_pages
    PDFMINER_VERSION: str | None = pdfminer.__version__
except ImportError:
    PDFMINER_VERSION = None


def written_entries(markdown: str) -> list[str]:
    """The reference entries of a fixture's Markdown, labels left out."""
    refs = markdown.partition("## References")[2]
    blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", refs.strip()) if b.strip()]
    return [re.sub(r"^\[\d+\]\s*", "", b) for b in blocks]


def _key(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).casefold()
    return re.sub(r"[\s\-‐‑–]+", "", s)


def markdown_sentences(markdown: str) -> int:
    """Citing sentences the Markdown reader finds in the text the PDF was made from."""
    with tempfile.TemporaryDirectory() as tmp:
        md = Path(tmp) / "source.md"
        md.write_text(markdown, encoding="utf-8")
        return len(read_document(md).sentences)


def quality(doc: Document, written: list[str]) -> dict[str, object]:
    """Found entries against the written ones, in order."""
    found = [r.text for r in doc.references]
    exact = sum(1 for w, f in zip(written, found, strict=False) if _key(w) == _key(f))
    sims = [
        fuzz.ratio(w, f, processor=utils.default_process, score_cutoff=0) / 100
        for w, f in zip(written, found, strict=False)
    ]
    sims += [0.0] * (len(written) - len(sims))
    return {
        "references_written": len(written),
        "references_found": len(found),
        "entries_exact": exact,
        "entry_similarity_mean": round(sum(sims) / max(1, len(sims)), 4),
        "markers_pointing_nowhere": len(doc.unresolved),
        "citing_sentences": len(doc.sentences),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", type=int, default=30)
    ap.add_argument("--refs", type=int, default=80)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        long_md = paper(args.pages, args.refs)
        long_pdf = Path(tmp) / "long.pdf"
        render_pdf(long_md, long_pdf, header="A long two-column paper (benchmark)")
        cases = {
            "numbered.pdf": (FIXTURES / "numbered.pdf", (FIXTURES / "numbered.md").read_text()),
            "authoryear.pdf": (
                FIXTURES / "authoryear.pdf",
                _authoryear_blocks((FIXTURES / "authoryear.md").read_text()),
            ),
            f"two-column paper ({args.refs} references)": (long_pdf, long_md),
        }
        report: dict[str, object] = {}
        for name, (path, markdown) in cases.items():
            written = written_entries(markdown)
            times: dict[str, list[float]] = {lib: [] for lib in LIBRARIES}
            cpu: dict[str, list[float]] = {lib: [] for lib in LIBRARIES}
            docs: dict[str, Document] = {}
            n_pages = 0
            for _ in range(args.rounds):
                for lib, read in LIBRARIES.items():  # in turns, so load hits both alike
                    t0, c0 = time.perf_counter(), time.process_time()
                    pages = read(path)
                    lines, warnings = lines_of_pages(path, pages)
                    times[lib].append(time.perf_counter() - t0)
                    cpu[lib].append(time.process_time() - c0)
                    n_pages = len(pages)
                    docs[lib] = document_from_lines(str(path), "pdf", lines, warnings=warnings)
            per: dict[str, object] = {}
            for lib in LIBRARIES:
                ts = times[lib]
                per[lib] = {
                    "s_per_page_best": round(min(ts) / n_pages, 4),
                    "s_per_page_median": round(statistics.median(ts) / n_pages, 4),
                    "cpu_s_per_page_median": round(statistics.median(cpu[lib]) / n_pages, 4),
                    **quality(docs[lib], written),
                }
            if len(LIBRARIES) == 2:
                for key, ts_ in (("wall", times), ("cpu", cpu)):
                    per[f"median_{key}_ratio_pdfminer_to_pypdfium2"] = round(
                        statistics.median(ts_["pdfminer.six"])
                        / statistics.median(ts_["pypdfium2"]),
                        1,
                    )
            report[name] = {
                "pages": n_pages,
                "citing_sentences_in_the_markdown": markdown_sentences(markdown),
                **per,
            }
    report["versions"] = {"pypdfium2": version("pypdfium2"), "pdfminer.six": PDFMINER_VERSION}
    report["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    report["cpus"] = os.cpu_count()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
