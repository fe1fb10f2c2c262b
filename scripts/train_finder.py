"""Train the reference finder's line labeller on ../shared/data/refparse/finder (deterministic).

    python scripts/train_finder.py [--data DIR] [--out src/citejudge/documents]

The held-out rule is fixed in docs/FINDER.md: the three documents whose file names have the
smallest sha256 are never trained on. crfsuite's L-BFGS has no randomness; the script sets the
one seed there is anyway (Python's, for nothing but completeness) and writes:

* ``finder.crfsuite`` — the model;
* ``finder.json`` — the manifest: sha256 of every data file (and which were held out),
  hyperparameters, feature version, crfsuite version, the model's sha256 (checked at load).

Scores on the held-out documents are printed by scripts/bench_finder.py, not here.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from citejudge.documents._finder import (  # noqa: E402
    FEATURE_VERSION,
    LABELS,
    MANIFEST_FILE,
    MODEL_FILE,
    Line,
    line_features,
)
from citejudge.hashing import file_sha256  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "refparse" / "finder"
HELD_OUT_COUNT = 3
PARAMS = {
    "c1": 0.05,
    "c2": 0.01,
    "max_iterations": 200,
    "feature.possible_transitions": True,
}


def held_out(names: list[str]) -> list[str]:
    """The rule of docs/FINDER.md: the three file names of smallest sha256."""
    return sorted(names, key=lambda n: hashlib.sha256(n.encode("utf-8")).hexdigest())[
        :HELD_OUT_COUNT
    ]


def read_ttx(path: Path) -> tuple[list[Line], list[str]]:
    """Lines and their tags of one ``.ttx.gz`` (a tag holds for the untagged lines after it)."""
    lines: list[Line] = []
    tags: list[str] = []
    tag = "text"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for n, raw in enumerate(fh, start=1):
            raw = raw.rstrip("\n")
            head, sep, text = raw.partition("|")
            if not sep:
                head, text = "", raw
            if head.strip():
                tag = head.strip()
            text = text[1:] if text.startswith(" ") else text
            lines.append(Line(text, None, n))
            tags.append(tag if tag in LABELS else "text")
    return lines, tags


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=ROOT / "src" / "citejudge" / "documents")
    args = ap.parse_args()
    random.seed(0)
    import pycrfsuite

    files = sorted(args.data.glob("*.ttx.gz"))
    if not files:
        sys.exit(f"no .ttx.gz files in {args.data}")
    test = held_out([f.name for f in files])
    trainer = pycrfsuite.Trainer(verbose=False)
    n_lines = 0
    for f in files:
        if f.name in test:
            continue
        lines, tags = read_ttx(f)
        trainer.append(line_features(lines), tags)
        n_lines += len(lines)
    trainer.set_params(PARAMS)
    model = args.out / MODEL_FILE
    t0 = time.perf_counter()
    trainer.train(str(model))
    seconds = time.perf_counter() - t0
    manifest = {
        "what": "line labeller of the reference finder (citejudge.documents._finder)",
        "trainer": "python-crfsuite "
        + getattr(pycrfsuite, "__version__", "?")
        + ", L-BFGS (deterministic)",
        "feature_version": FEATURE_VERSION,
        "labels": list(LABELS),
        "hyperparameters": PARAMS,
        "held_out_rule": "the 3 documents whose file names have the smallest sha256 (docs/FINDER.md)",
        "data": {f.name: {"sha256": file_sha256(f), "held_out": f.name in test} for f in files},
        "train_lines": n_lines,
        "model_sha256": file_sha256(model),
    }
    (args.out / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(
        json.dumps(
            {
                "model": str(model),
                "train_lines": n_lines,
                "held_out": test,
                "seconds": round(seconds, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
