"""Time reading a large OpenDocument text against the same content as a Word document.

    python scripts/bench_odt.py [--paragraphs 2000] [--refs 300] [--rounds 5]

Generates one manuscript (paragraphs of prose citing numbered entries "[3]", a "References"
heading, a numbered list of IEEE-style entries whose numbers live in the list style, every
tenth paragraph with a footnote that is a remark) and writes it twice, as ``.odt``
(content.xml, styles.xml) and as ``.docx`` (document.xml, numbering.xml, footnotes.xml).
Reads each with :func:`citejudge.read_document` in turns (odt, docx, odt, docx…, the first
round of each a warm-up left out) and prints JSON: references found, sentences, markers
resolved, per-format median seconds (wall and CPU) and the ratio odt / docx, with the
machine's load (os.getloadavg). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import zipfile
from html import escape
from pathlib import Path

from citejudge.documents import read_document

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_document import WORDS

_O = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
_T = 'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
_S = 'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def manuscript(paragraphs: int, refs: int, seed: int = 7) -> tuple[list[str], list[str], set[int]]:
    """Body paragraphs, reference entries and the paragraphs that carry a remark footnote."""
    rng = random.Random(seed)
    body = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(3):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 18)))
            cite = f" [{rng.randint(1, refs)}]" if rng.random() < 0.7 else ""
            sentences.append(words.capitalize() + cite + ".")
        body.append(" ".join(sentences))
    entries = [
        f"A. {rng.choice(WORDS).capitalize()}son and B. {rng.choice(WORDS).capitalize()}er, "
        f"“{' '.join(rng.choice(WORDS) for _ in range(6)).capitalize()},” Journal of "
        f"{rng.choice(WORDS).capitalize()}, vol. {rng.randint(1, 60)}, no. {rng.randint(1, 12)}, "
        f"pp. {(p := rng.randint(1, 900))}–{p + rng.randint(5, 30)}, {rng.randint(1970, 2024)}."
        for _ in range(refs)
    ]
    return body, entries, set(range(0, paragraphs, 10))


def write_odt(path: Path, body: list[str], entries: list[str], noted: set[int]) -> None:
    def note(n: int) -> str:
        return (
            f'<text:note text:id="ftn{n}" text:note-class="footnote"><text:note-citation>{n}'
            "</text:note-citation><text:note-body><text:p>We thank the reviewers for their "
            "comments.</text:p></text:note-body></text:note>"
        )

    pars = "".join(
        f"<text:p>{escape(t)}{note(i + 1) if i in noted else ''}</text:p>"
        for i, t in enumerate(body)
    )
    refs = "".join(
        f"<text:list-item><text:p>{escape(e)}</text:p></text:list-item>" for e in entries
    )
    content = (
        f"<office:document-content {_O} {_T} {_S}><office:automatic-styles><text:list-style "
        'style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/>'
        "</text:list-style></office:automatic-styles><office:body><office:text>"
        f'{pars}<text:h text:outline-level="1">References</text:h>'
        f'<text:list text:style-name="L1">{refs}</text:list>'
        "</office:text></office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        mime = "application/vnd.oasis.opendocument.text"
        z.writestr(zipfile.ZipInfo("mimetype"), mime, compress_type=zipfile.ZIP_STORED)
        z.writestr(
            "META-INF/manifest.xml",
            '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
            f'manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>'
            "</manifest:manifest>",
        )
        z.writestr("content.xml", content)
        z.writestr("styles.xml", f"<office:document-styles {_O} {_S} {_T}/>")


def write_docx(path: Path, body: list[str], entries: list[str], noted: set[int]) -> None:
    def run(t: str) -> str:
        return f'<w:r><w:t xml:space="preserve">{escape(t)}</w:t></w:r>'

    pars = "".join(
        f"<w:p>{run(t)}"
        + (f'<w:r><w:footnoteReference w:id="{i + 1}"/></w:r>' if i in noted else "")
        + "</w:p>"
        for i, t in enumerate(body)
    )
    refs = "".join(
        '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>'
        f"{run(e)}</w:p>"
        for e in entries
    )
    notes = "".join(
        f'<w:footnote w:id="{i + 1}"><w:p>{run("We thank the reviewers for their comments.")}'
        "</w:p></w:footnote>"
        for i in sorted(noted)
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "word/document.xml",
            f"<w:document {_W}><w:body>{pars}<w:p>{run('References')}</w:p>{refs}</w:body>"
            "</w:document>",
        )
        z.writestr(
            "word/numbering.xml",
            f'<w:numbering {_W}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0">'
            '<w:start w:val="1"/><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>'
            '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>',
        )
        z.writestr("word/footnotes.xml", f"<w:footnotes {_W}>{notes}</w:footnotes>")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paragraphs", type=int, default=2000)
    ap.add_argument("--refs", type=int, default=300)
    ap.add_argument(
        "--rounds", type=int, default=5, help="timed rounds per format (after one warm-up)"
    )
    args = ap.parse_args(argv)
    body, entries, noted = manuscript(args.paragraphs, args.refs)
    with tempfile.TemporaryDirectory() as d:
        paths = {"odt": Path(d) / "big.odt", "docx": Path(d) / "big.docx"}
        write_odt(paths["odt"], body, entries, noted)
        write_docx(paths["docx"], body, entries, noted)
        wall: dict[str, list[float]] = {"odt": [], "docx": []}
        cpu: dict[str, list[float]] = {"odt": [], "docx": []}
        shape: dict[str, dict[str, int]] = {}
        for r in range(args.rounds + 1):
            for fmt, path in paths.items():
                t0, c0 = time.perf_counter(), time.process_time()
                doc = read_document(path)
                t1, c1 = time.perf_counter(), time.process_time()
                print(f"round {r} {fmt}: {t1 - t0:.2f} s", file=sys.stderr)
                shape[fmt] = {
                    "bytes": path.stat().st_size,
                    "references": len(doc.references),
                    "sentences": len(doc.sentences),
                    "markers": sum(len(s.markers) for s in doc.sentences),
                    "unresolved": len(doc.unresolved),
                }
                if r:
                    wall[fmt].append(t1 - t0)
                    cpu[fmt].append(c1 - c0)
    med = {f: statistics.median(v) for f, v in wall.items()}
    med_cpu = {f: statistics.median(v) for f, v in cpu.items()}
    print(
        json.dumps(
            {
                "paragraphs": args.paragraphs,
                "refs": args.refs,
                "rounds": args.rounds,
                "documents": shape,
                "wall_s": {f: round(v, 3) for f, v in med.items()},
                "cpu_s": {f: round(v, 3) for f, v in med_cpu.items()},
                "ratio_odt_docx_wall": round(med["odt"] / med["docx"], 3),
                "ratio_odt_docx_cpu": round(med_cpu["odt"] / med_cpu["docx"], 3),
                "loadavg": [round(x, 2) for x in os.getloadavg()],
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
