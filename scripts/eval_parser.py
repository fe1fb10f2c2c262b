"""Held-out numbers of the reference parser; prints JSON.

Two held-out sets, both split by rules that are pure functions of the text
(``parser_data.is_heldout_string`` / ``is_heldout_style``):

- the held-out 15% of the AnyStyle sets, per source file and per (guessed) language;
- strings rendered by the held-out CSL styles (never seen in training) from held-out records,
  per citation-format family and per locale language; clean, and with noise (``--noisy``).

Per group: exact title (``title_key`` equality), exact container, first-author family name,
year, and token accuracy of the CRF's labels (when the parser has one). The gold of an
AnyStyle string is its labelled spans, cleaned as the parser cleans its own; the gold of a
rendered string is the record it was rendered from (a field counts only when the style prints
it). Run it on another checkout's code with ``PYTHONPATH=/path/to/src`` to compare parsers.

    python scripts/eval_parser.py [--per-style 6] [--noisy] [--failures FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import parser_data as pdata  # noqa: E402
from bench_parse import family  # noqa: E402
from citejudge.match.normalize import title_key  # noqa: E402
from citejudge.match.parse import parse_citation_string  # noqa: E402
from citejudge.readers.freetext import split_author_string  # noqa: E402
from citejudge.text.normalize import fold  # noqa: E402

try:  # the learned parser (absent from older checkouts)
    from citejudge.readers.freetext._crf import tag_tokens
    from citejudge.readers.freetext._parser import _clean_container, _clean_title
except ImportError:  # pragma: no cover - an older checkout
    tag_tokens = None  # type: ignore[assignment]
    _clean_title = _clean_container = None  # type: ignore[assignment]

_LANG_WORDS = {
    "en": {"the", "of", "and", "in", "for", "on", "with", "to"},
    "fr": {"le", "la", "les", "des", "et", "du", "dans", "pour", "une", "sur"},
    "de": {"der", "die", "das", "und", "im", "zur", "für", "von", "mit", "den"},
    "es": {"el", "los", "las", "y", "del", "en", "para", "una", "por", "con"},
    "it": {"il", "della", "delle", "di", "e", "nel", "per", "degli", "gli", "dei"},
    "pt": {"o", "os", "as", "e", "do", "da", "dos", "em", "para", "uma", "não"},
}


def guess_language(tokens: list[str]) -> str:
    """A crude guess from function words (the AnyStyle sets carry no language)."""
    words = [t.strip(".,;:()«»“”").lower() for t in tokens]
    scores = {lang: sum(w in ws for w in words) for lang, ws in _LANG_WORDS.items()}
    best = max(scores, key=lambda k: (scores[k], k == "en"))
    return best if scores[best] >= 1 else "other"


class Tally:
    """Counts per group and field."""

    def __init__(self) -> None:
        self.n: dict[tuple[str, str], int] = defaultdict(int)
        self.ok: dict[tuple[str, str], int] = defaultdict(int)

    def add(
        self, groups: list[str], field: str, ok: bool, weight: int = 1, good: int | None = None
    ) -> None:
        """Count one comparison (or ``weight`` of them with ``good`` right) in every group."""
        for g in groups:
            self.n[(g, field)] += weight
            self.ok[(g, field)] += int(ok) if good is None else good

    def out(self) -> dict[str, dict[str, Any]]:
        """``{group: {field: {"n", "rate"}}}``."""
        res: dict[str, dict[str, Any]] = defaultdict(dict)
        for (g, f), n in sorted(self.n.items()):
            res[g][f] = {"n": n, "rate": round(self.ok[(g, f)] / n, 4) if n else None}
        return dict(res)


def _first_span(tokens: list[str], labels: list[str], label: str) -> str | None:
    out: list[str] = []
    for t, lab in zip(tokens, labels, strict=True):
        if lab == label:
            out.append(t)
        elif out:
            break
    return " ".join(out) or None


# a list number or a markup tag the AnyStyle labels put inside the author span ("20. Patton W,
# Donohue R.", "[3] Ait Taleb K", "38- Tsai WC", "</italic>Yamaguchi Y"): not part of a name
_GOLD_LEAD_RE = re.compile(r"^\s*(?:</?[a-z]+>\s*)*(?:(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)-]?)\s+)?")


def _gold_author_span(text: str) -> str:
    """The gold author span without a leading list number or markup tag (see _GOLD_LEAD_RE)."""
    return text[_GOLD_LEAD_RE.match(text).end() :]  # type: ignore[union-attr]


def _fam(name: str | None) -> str | None:
    return family(name) if name else None


def _count(tally: Tally, groups: list[str], bad: list[str], field: str, ok: bool) -> None:
    """Count one comparison of ``field`` ("title", "container": exact) and note a miss in ``bad``."""
    tally.add(groups, f"{field}_exact" if field in ("title", "container") else field, ok)
    if not ok:
        bad.append("author" if field == "first_author_family" else field)


def eval_anystyle(tally: Tally, fails: list[dict[str, Any]], dev: bool = False) -> int:
    n = 0
    picked = pdata.is_dev_string if dev else pdata.is_heldout_string
    for name in pdata.ANYSTYLE_FILES:
        for s in pdata.anystyle_sequences(name):
            if not picked(s.key):
                continue
            n += 1
            groups = ["anystyle/all", s.source, "anystyle/lang:" + guess_language(s.tokens)]
            w = parse_citation_string(s.text)
            if tag_tokens is not None:
                pred = tag_tokens(s.tokens)
                good = sum(p == g for p, g in zip(pred, s.labels, strict=True))
                tally.add(groups, "token_accuracy", True, weight=len(s.tokens), good=good)
            bad: list[str] = []
            gt = _first_span(s.tokens, s.labels, "title")
            if gt:
                gold_t = _clean_title(gt) if _clean_title else gt
                _count(tally, groups, bad, "title", title_key(w.title) == title_key(gold_t))
            gc = _first_span(s.tokens, s.labels, "container")
            if gc:
                gold_c = _clean_container(gc) if _clean_container else gc
                _count(tally, groups, bad, "container", title_key(w.venue) == title_key(gold_c))
            ga = _first_span(s.tokens, s.labels, "author")
            if ga:
                names = split_author_string(_gold_author_span(ga))
                gf = _fam(names[0]) if names else None
                if gf:
                    _count(
                        tally,
                        groups,
                        bad,
                        "first_author_family",
                        _fam(w.authors[0] if w.authors else None) == gf,
                    )
            gd = " ".join(t for t, lab in zip(s.tokens, s.labels, strict=True) if lab == "date")
            gy = pdata._YEAR4.search(gd) if gd else None
            if gy:
                _count(tally, groups, bad, "year", w.year == int(gy.group(1)))
            if bad:
                fails.append(
                    {
                        "set": s.source,
                        "bad": bad,
                        "s": s.text,
                        "gold": list(zip(s.tokens, s.labels, strict=True)),
                        "got": [w.authors[:2], w.year, w.title, w.venue],
                    }
                )
    return n


def eval_csl(
    tally: Tally,
    fails: list[dict[str, Any]],
    per_style: int,
    noisy: bool,
    seed: int,
    dev: bool = False,
) -> tuple[int, int]:
    pick_record = pdata.is_dev_string if dev else pdata.is_heldout_string
    pick_style = pdata.is_dev_style if dev else pdata.is_heldout_style
    records = [r for r in pdata.load_records() if pick_record(r["title"])]
    styles = [s for s in pdata.list_styles() if pick_style(s.name)]
    n = used = 0
    tag = "csl-noisy" if noisy else "csl"
    for st in styles:
        rng = random.Random(f"{seed}:eval:{st.name}")
        got = 0
        for it in rng.sample(records, min(per_style, len(records))):
            marked = pdata.csl_render_marked(st.name, it)
            if not marked:
                continue
            s = pdata.rendered_sequence(
                marked, it, rng if noisy else None, f"csl/{st.name}", st.family, st.locale
            )
            if s is None:
                continue
            got += 1
            n += 1
            groups = [
                f"{tag}/all",
                f"{tag}/family:{st.family}",
                f"{tag}/lang:{st.locale.split('-')[0]}",
            ]
            w = parse_citation_string(s.text)
            if tag_tokens is not None:
                pred = tag_tokens(s.tokens)
                good = sum(p == g for p, g in zip(pred, s.labels, strict=True))
                tally.add(groups, "token_accuracy", True, weight=len(s.tokens), good=good)
            g = s.gold
            bad: list[str] = []
            if g["title_shown"] and g["title"]:
                _count(tally, groups, bad, "title", title_key(w.title) == title_key(g["title"]))
            if g["container"] and "container" in s.labels:
                _count(
                    tally, groups, bad, "container", title_key(w.venue) == title_key(g["container"])
                )
            if g["family"] and "author" in s.labels:
                gf = fold(g["family"]).split()
                _count(
                    tally,
                    groups,
                    bad,
                    "first_author_family",
                    bool(gf) and _fam(w.authors[0] if w.authors else None) == gf[-1],
                )
            if g["year"] and "date" in s.labels:
                _count(tally, groups, bad, "year", w.year == g["year"])
            if bad:
                fails.append(
                    {
                        "set": s.source,
                        "bad": bad,
                        "s": s.text,
                        "gold": g,
                        "got": [w.authors[:2], w.year, w.title, w.venue],
                    }
                )
        used += bool(got)
    return n, used


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--per-style", type=int, default=6, help="held-out records rendered per held-out style"
    )
    ap.add_argument("--noisy", action="store_true", help="also evaluate noised renderings")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-csl", action="store_true")
    ap.add_argument(
        "--dev",
        action="store_true",
        help="score the dev slice of the training part instead of the held-out part "
        "(for a model trained with train_parser.py --dev)",
    )
    ap.add_argument(
        "--failures", type=Path, default=None, help="write the strings with a wrong field as JSONL"
    )
    ap.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="evaluate a model written by train_parser.py --out DIR",
    )
    args = ap.parse_args()
    if args.model_dir is not None:
        from citejudge.readers.freetext import _crf

        model = _crf.read_model(args.model_dir)
        _crf.load_model = lambda: model  # type: ignore[assignment]
    tally = Tally()
    fails: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    part = "dev" if args.dev else "heldout"
    out: dict[str, Any] = {f"anystyle_{part}_strings": eval_anystyle(tally, fails, args.dev)}
    if not args.skip_csl:
        out[f"csl_{part}_strings"], out[f"csl_{part}_styles"] = eval_csl(
            tally, fails, args.per_style, False, args.seed, args.dev
        )
        if args.noisy:
            out["csl_noisy_strings"], _ = eval_csl(
                tally, fails, args.per_style, True, args.seed, args.dev
            )
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["groups"] = tally.out()
    if args.failures:
        with args.failures.open("w", encoding="utf-8") as fh:
            for f in fails:
                fh.write(json.dumps(f, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
