"""Time `check document --no-llm` on a 30-page two-column PDF with about 80 references.

    python scripts/bench_document.py [--pages 30] [--refs 80] [--rounds 3]

Makes the PDF with the fixture maker (reportlab; scripts/make_document_fixtures.py) from
generated text whose references are the demo world's works rendered in IEEE style plus
invented ones, builds the demo world's index, then runs the whole command in a fresh process
per round (import, PDF text, finder, parsing, matching, writing): prints JSON with the pages,
references found, markers resolved and the wall time and CPU time (user + system) of each
round. The issue's bar is under
5 s on 2 cores; the machine's load is printed too (os.getloadavg).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from make_document_fixtures import render_pdf  # noqa: E402

WORDS = [
    "representation",
    "learning",
    "network",
    "training",
    "model",
    "data",
    "optimisation",
    "gradient",
    "layer",
    "attention",
    "sequence",
    "image",
    "language",
    "reinforcement",
    "policy",
    "memory",
    "regularisation",
    "benchmark",
    "accuracy",
    "error",
    "parameter",
    "architecture",
    "convolution",
    "recurrent",
    "transfer",
    "evaluation",
    "dataset",
    "feature",
    "embedding",
]


def paper(pages: int, refs: int, seed: int = 0) -> str:
    rnd = random.Random(seed)
    demo = [
        json.loads(x) for x in (ROOT / "demo" / "world" / "works.jsonl").read_text().splitlines()
    ]
    entries = []
    for n in range(refs):
        w = demo[n % len(demo)] if n < len(demo) else None
        if w is not None:
            names = [a["author"]["display_name"] for a in w["authorships"]][:3]
            au = ", ".join(f"{x.split()[0][0]}. {x.split()[-1]}" for x in names)
            src = ((w.get("primary_location") or {}).get("source") or {}).get(
                "display_name"
            ) or "arXiv"
            entries.append(f'[{n + 1}] {au}, "{w["title"]}," {src}, {w["publication_year"]}.')
        else:
            title = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(5, 10))).capitalize()
            au = ", ".join(
                f"{chr(65 + rnd.randrange(26))}. {rnd.choice(['Smith', 'Novak', 'Okafor', 'Tanaka', 'Müller', 'Rossi'])}"
                for _ in range(rnd.randint(1, 4))
            )
            entries.append(
                f'[{n + 1}] {au}, "{title}," Journal of {rnd.choice(WORDS).capitalize()} Studies, vol. {rnd.randint(1, 40)}, pp. {rnd.randint(1, 200)}-{rnd.randint(201, 400)}, {rnd.randint(1990, 2024)}.'
            )
    paras = []
    per_page = (
        6  # paragraphs of about 70 words on an A5 two-column page (with --pages 30: 31 pages)
    )
    for i in range(pages * per_page - refs // 6):
        words = [rnd.choice(WORDS) for _ in range(70)]
        sent = (
            " ".join(words[:35]).capitalize()
            + f" [{rnd.randint(1, refs)}]. "
            + " ".join(words[35:]).capitalize()
            + f" [{rnd.randint(1, refs)}, {rnd.randint(1, refs)}]."
        )
        paras.append((f"## Section {i // 12 + 1}\n\n" if i % 12 == 0 else "") + sent)
    return (
        "# A long two-column paper\n\n"
        + "\n\n".join(paras)
        + "\n\n## References\n\n"
        + "\n\n".join(entries)
        + "\n"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=30)
    ap.add_argument("--refs", type=int, default=80)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    exe = Path(sys.executable).with_name("citejudge")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        pdf = t / "long.pdf"
        n_pages = render_pdf(
            paper(args.pages, args.refs), pdf, header="A long two-column paper (benchmark)"
        )
        subprocess.run(
            [
                str(exe),
                "index",
                "build",
                str(ROOT / "demo" / "world" / "works.jsonl"),
                "--index",
                str(t / "w"),
                "-q",
            ],
            check=True,
            capture_output=True,
        )
        times: list[float] = []
        cpu: list[float] = []  # user + system seconds of the command (less disturbed by load)
        for r in range(args.rounds):
            out = t / f"res{r}.jsonl"
            t0 = time.perf_counter()
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [
                    str(exe),
                    "check",
                    "document",
                    str(pdf),
                    "--index",
                    str(t / "w"),
                    "--out",
                    str(out),
                    "--no-llm",
                    "-q",
                ],
                check=True,
            )
            times.append(round(time.perf_counter() - t0, 3))
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(round(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, 3))
        man = json.loads(Path(str(out) + ".manifest.json").read_text())["documents"][0]
        print(
            json.dumps(
                {
                    "pages": n_pages,
                    "references_written": args.refs,
                    "references_found": man["references"],
                    "citing_sentences": man["citing_sentences"],
                    "markers_pointing_nowhere": len(man["unresolved"]),
                    "reference_grounding": man["reference_grounding"],
                    "seconds_per_round": times,
                    "best_s": min(times),
                    "cpu_seconds_per_round": cpu,
                    "loadavg": [round(x, 2) for x in os.getloadavg()],
                    "cpus": os.cpu_count(),
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
