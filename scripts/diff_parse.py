"""Differential check of the citation-string parser: this tree's output against another tree's.

Parses the same inputs with both versions (each in its own process, the other one's ``src``
on ``PYTHONPATH``) and compares every field of every result (``msgspec.to_builtins`` of the
:class:`~citejudge.records.CitedWork`, warnings included). The inputs:

- ``workload``: the reference-throughput workload of ``scripts/bench_references.py`` (12,000
  items rendered from the 492 real OpenAlex works), each item read by ``parse_item_citation``
  (its ``full_citation`` string, BibTeX or CSL-JSON, and its ``metadata``);
- ``anystyle``: every string of AnyStyle's ``refparse/parser/*.xml.gz`` (as written, spaces
  collapsed);
- ``crossref``: the strings ``scripts/bench_parse.py`` reads (``real_unstructured_2k``,
  the ``unstructured`` strings of ``real_mixed_2k_with_source_doi``, ``artificial_13_styles``).

With ``--features`` it also compares the CRF's token features of every string (the sha256 of
each feature sequence, as the shipped model's featurizer gives them and as the training
featurizer, with no feature left out, gives them): a faster featurizer must give the same.

Prints JSON: per set the inputs compared and the results that differ (with up to ``--show``
examples); exits 1 when any differ.

    python scripts/diff_parse.py --baseline-src /tmp/base/src [--shared ../shared/data] \
        [--citations 12000] [--show 5] [--features]
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = HERE.parent.parent / "shared" / "data"


def anystyle_strings(shared: Path) -> list[str]:
    """Every sequence of AnyStyle's four files as its text (the elements' texts, spaces collapsed)."""
    out: list[str] = []
    for path in sorted((shared / "refparse" / "parser").glob("*.xml.gz")):
        with gzip.open(path, "rb") as fh:
            tree = ET.parse(fh)
        for seq in tree.getroot().iter("sequence"):
            text = " ".join(" ".join((el.text or "") for el in seq).split())
            if text:
                out.append(text)
    return out


def crossref_strings(shared: Path) -> list[str]:
    """The strings ``scripts/bench_parse.py`` parses."""
    data = shared / "citations" / "crossref"
    out = [
        json.loads(x)["ref_string"]
        for x in (data / "real_unstructured_2k.jsonl").read_text(encoding="utf-8").splitlines()
        if x
    ]
    for x in (
        (data / "real_mixed_2k_with_source_doi.jsonl").read_text(encoding="utf-8").splitlines()
    ):
        text = json.loads(x)["reference"].get("unstructured") if x else None
        if text:
            out.append(text)
    with gzip.open(data / "artificial_13_styles.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            s = json.loads(line).get("ref_string")
            if isinstance(s, str):
                out.append(s)
    return out


def workload_items(shared: Path, n: int) -> list[dict[str, Any]]:
    """The bench_references throughput workload's items."""
    sys.path.insert(0, str(HERE))
    from bench_references import write_workload

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.jsonl"
        write_workload(shared, n, path)
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]


def feature_digests(texts: list[str]) -> list[list[str]]:
    """Per string: its start, the sha256 of its CRF features (model's, then training featurizer's).

    The training featurizer leaves no feature out; the model's keeps those with a weight.
    """
    from citejudge.readers.freetext import _crf

    shipped = _crf.load_model().featurizer
    full = _crf.Featurizer(dataclasses.replace(shipped.lexicon, active=None))
    out = []
    for text in texts:
        tokens = _crf.tokenize(text)
        row = [text[:120]]
        for featurizer in (shipped, full):
            h = hashlib.sha256()
            for feats in featurizer.sequence_features(tokens):
                for x in feats:  # str or UTF-8 bytes, as the tree gives them
                    h.update(x if isinstance(x, bytes) else x.encode())
                    h.update(b"\0")
                h.update(b"\1")
            row.append(h.hexdigest()[:16])
        out.append(row)
    return out


def dump(inputs: Path, out: Path, features: bool = False) -> None:
    """Parse every input of ``inputs`` with the citejudge on ``sys.path``; one JSON line each."""
    import msgspec

    from citejudge.readers.freetext import parse_citation_string
    from citejudge.readers.metadata import parse_item_citation

    sets = json.loads(inputs.read_text(encoding="utf-8"))
    results: dict[str, list[Any]] = {}
    for name, rows in sets.items():
        got: list[Any] = []
        for row in rows:
            if name == "workload":
                full, meta = parse_item_citation(row)
                got.append(
                    [
                        msgspec.to_builtins(full) if full is not None else None,
                        msgspec.to_builtins(meta) if meta is not None else None,
                    ]
                )
            else:
                got.append(msgspec.to_builtins(parse_citation_string(row)))
        results[name] = got
        if features:
            texts = [r.get("full_citation") if isinstance(r, dict) else r for r in rows]
            results[f"{name}/features"] = feature_digests(
                [t for t in texts if isinstance(t, str) and t.strip()]
            )
    out.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")


def _run(src: Path, inputs: Path, out: Path, features: bool) -> dict[str, list[Any]]:
    env = dict(os.environ, PYTHONPATH=str(src))
    flag = ["--features"] if features else []
    subprocess.run(
        [sys.executable, __file__, "--dump", str(inputs), str(out), *flag], env=env, check=True
    )
    result: dict[str, list[Any]] = json.loads(out.read_text(encoding="utf-8"))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-src", type=Path, help="the other tree's src/")
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    ap.add_argument("--citations", type=int, default=12_000)
    ap.add_argument("--show", type=int, default=5, help="examples of differences per set")
    ap.add_argument(
        "--features", action="store_true", help="also compare the CRF features of every string"
    )
    ap.add_argument("--dump", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        dump(*args.dump, features=args.features)
        return 0
    if args.baseline_src is None:
        ap.error("--baseline-src is required")
    sys.stderr.write("collecting inputs\n")
    sets: dict[str, list[Any]] = {
        "workload": workload_items(args.shared, args.citations),
        "anystyle": anystyle_strings(args.shared),
        "crossref": crossref_strings(args.shared),
    }
    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "inputs.json"
        inputs.write_text(json.dumps(sets, ensure_ascii=False), encoding="utf-8")
        sys.stderr.write("parsing with the baseline\n")
        base = _run(args.baseline_src, inputs, Path(tmp) / "base.json", args.features)
        sys.stderr.write("parsing with this tree\n")
        this = _run(HERE.parent / "src", inputs, Path(tmp) / "this.json", args.features)
    report: dict[str, Any] = {}
    differ = 0
    for name in this:
        rows = sets.get(name) or [row[0] for row in this[name]]  # (a features set: the strings)
        diffs = [
            {"input": row, "baseline": b, "this": t}
            for row, b, t in zip(rows, base[name], this[name], strict=True)
            if b != t
        ]
        differ += len(diffs)
        report[name] = {"compared": len(rows), "differ": len(diffs), "examples": diffs[: args.show]}
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
