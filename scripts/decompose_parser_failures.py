"""Where the reference parser's AnyStyle misses come from: assembly, the model's labels, the gold.

Scores the dev slice (or the held-out part) of the AnyStyle sets as ``eval_parser.py`` does
(exact title and container by ``title_key``, the gold span cleaned by ``_clean_title`` /
``_clean_container``) and sorts every miss into one class:

- ``a:assembly`` — the CRF's raw labels (on the gold tokens) give a span that, cleaned, is
  the gold, and the fields assembled from them (``_parser.fill_from_labels``, the repairs of
  ``_repairs.py``) lose it; ``a:rules`` — the assembled reading was right and the
  hand-written rules' reading (``_parser._rules_win``) replaced it;
- ``b:<kind>`` — the CRF's raw span is wrong: ``none`` (no span), ``runs-on`` (starts right,
  ends late), ``cut-short`` (starts right, ends early), ``starts-early``, ``starts-late``,
  ``disjoint``;
- ``c?:<kind>`` — a *candidate* for a gold convention the parser does not follow: the gold
  title keeps an "In:" and the container after it, a bracketed translation, a genre, series
  or edition tail, a leading name, date or note; the gold starts or ends inside a phrase
  (a word the parse has and the gold cut off, or a function word ending the gold); the gold
  container is the work's own title (a book labelled container-title). These are found by
  patterns and need reading: a ``c?`` can be a parser error too (the report says how many
  were, read by hand).

Prints the counts per class and AnyStyle file as JSON; ``--out FILE`` writes every miss as
JSONL (string, gold, the CRF's raw span, the assembled and the final field, both label
sequences). ``--agreement`` also counts how often the labels of one string written twice in
the AnyStyle files disagree (the labels' own noise). Never reads an upstream evaluation set.

    python scripts/decompose_parser_failures.py --dev --model-dir /tmp/dev_model [--out F]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import msgspec  # noqa: E402

import parser_data as pdata  # noqa: E402
from citejudge.match.normalize import title_key  # noqa: E402
from citejudge.match.parse import parse_citation_string  # noqa: E402
from citejudge.readers.freetext import _crf, _parser  # noqa: E402
from citejudge.readers.freetext._crf import tag_tokens, tokenize  # noqa: E402
from citejudge.readers.freetext._parser import _clean_container, _clean_title  # noqa: E402
from citejudge.records import CitedWork  # noqa: E402
from eval_parser import _first_span  # noqa: E402

_FUNCTION_WORDS = frozenset((
    "a", "an", "the", "of", "in", "on", "for", "and", "with", "to", "from", "by", "at", "de",
    "del", "della", "di", "du", "des", "la", "le", "les", "el", "los", "y", "e", "und", "der",
    "die", "das", "für", "im", "zur", "von", "van", "en", "et",
))  # fmt: skip
_IN_RE = re.compile(r"(?:^|[.,;:”\"»’]\s*|\s)(?:In|in|IN|dans|Dans|en|In:|in:|im|w)\s*:?\s+\S")
_TAIL_RE = re.compile(
    r"(?i)\b(?:edition|ed\.|éd\.|book review|unpublished|manuscript|abstract|mémoire|thèse"
    r"|thesis|dissertation|in russian|in press|preprint|report|series|publications"
    r"|working paper|web site|revised|vol\.|bd\.|no\.|part)\b|^\s*\("
)
_LEAD_RE = re.compile(
    r"^(?:[A-Z][\w'’-]+\s*(?:[A-Z]\.?\s*)*[:.,]|et al|\(in preparation\)|\d{1,2}\s+\w+\s+\d{4}"
    r"|[A-Z]{2,}\b)"
)


def _k(text: str | None) -> str:
    return title_key(text) or ""


def _span_at(labels: list[str], label: str) -> tuple[int, int] | None:
    i = next((k for k, lab in enumerate(labels) if lab == label), None)
    if i is None:
        return None
    j = i
    while j < len(labels) and labels[j] == label:
        j += 1
    return i, j


def _model_error_kind(gold: tuple[int, int] | None, pred: tuple[int, int] | None) -> str:
    if pred is None:
        return "none"
    if gold is None or not (gold[0] < pred[1] and pred[0] < gold[1]):
        return "disjoint"
    if pred[0] == gold[0]:
        return "runs-on" if pred[1] > gold[1] else "cut-short"
    return "starts-early" if pred[0] < gold[0] else "starts-late"


def _gold_convention(field: str, gold: str, got: str, work_title: str | None, titled: bool) -> str:
    """The candidate gold convention a miss shows, or ""."""
    gk, fk = _k(gold), _k(got)
    if field == "container" and work_title and _k(work_title) == gk and not titled:
        return "c?:container-is-the-works-title"
    if field == "title" and fk:
        for m in _IN_RE.finditer(gold):
            if m.start() > 3 and gk.startswith(fk) and _k(gold[: m.start()]) == fk:
                return "c?:title-keeps-in-container"
        if "[" in gold and _k(re.sub(r"\[[^\]]*\]", "", gold)) == fk:
            return "c?:bracketed-translation"
    if not fk or gk == fk:
        return ""
    toks = gold.split()
    if fk.endswith(gk) and toks and (toks[0][:1].islower() or len(fk) - len(gk) <= 12):
        extra = got[: max(0, len(got) - len(gold))].strip()
        if not extra or not re.search(r"[.:;,)\]]$", extra):
            return "c?:starts-mid-phrase"
    if gk.startswith(fk) and toks and toks[-1].lower().strip(",;:") in _FUNCTION_WORDS:
        return "c?:ends-mid-phrase"
    if fk.startswith(gk) and len(fk) - len(gk) <= 15 and toks:
        rest = got[len(gold) :] if got.startswith(gold) else ""
        if (
            rest
            and not re.search(r"[.?!:;,”\"»)]$", toks[-1])
            and not re.match(r"\s*[.,:;(\[]", rest)
        ):
            return "c?:ends-mid-phrase"
    if gk.startswith(fk) and len(gk) > len(fk):
        tail = gold[len(got) :] if gold.startswith(got) else gold[-40:]
        if _TAIL_RE.search(tail):
            return "c?:keeps-genre-series-tail"
    if gk.endswith(fk) and _LEAD_RE.match(gold):
        return "c?:keeps-lead-name-or-date"
    return ""


class _Spy:
    """Wraps ``_parser._learned_or_rules`` to keep the assembled (CRF-only) reading."""

    def __init__(self) -> None:
        self.learned: CitedWork | None = None
        self._orig = _parser._learned_or_rules

    def __call__(self, md: str, work: CitedWork) -> CitedWork:
        learned = msgspec.structs.replace(work, warnings=list(work.warnings))
        text = _parser._AUTHOR_MARK_RE.sub(r"\1", md) if "*" in md or "†" in md or "‡" in md else md
        toks = tokenize(text)
        _parser.fill_from_labels(toks, tag_tokens(toks), learned)
        self.learned = learned
        return self._orig(md, work)


def decompose(dev: bool) -> list[dict[str, Any]]:
    """Every title and container miss of the dev slice (or the held-out part), classified."""
    spy = _Spy()
    _parser._learned_or_rules = spy  # type: ignore[assignment]
    picked = pdata.is_dev_string if dev else pdata.is_heldout_string
    rows: list[dict[str, Any]] = []
    for name in pdata.ANYSTYLE_FILES:
        for s in pdata.anystyle_sequences(name):
            if not picked(s.key):
                continue
            spy.learned = None
            w = parse_citation_string(s.text)
            pred = tag_tokens(s.tokens)
            titled = "title" in s.labels
            for field, clean, got in (
                ("title", _clean_title, w.title),
                ("container", _clean_container, w.venue),
            ):
                span = _first_span(s.tokens, s.labels, field)
                if not span:
                    continue
                gold = clean(span) or ""
                if _k(got) == _k(gold):
                    continue
                raw = _first_span(s.tokens, pred, field)
                learned = spy.learned
                lval = (learned.title if field == "title" else learned.venue) if learned else None
                cls = _gold_convention(field, gold, got or "", w.title, titled)
                if not cls and raw and _k(clean(raw)) == _k(gold):
                    cls = "a:rules" if _k(lval) == _k(gold) else "a:assembly"
                elif not cls and learned is not None and _k(lval) == _k(gold):
                    cls = "a:rules"  # the repairs made it right, the rules' reading lost it
                elif not cls:
                    cls = "b:" + _model_error_kind(_span_at(s.labels, field), _span_at(pred, field))
                rows.append(
                    {
                        "file": name,
                        "field": field,
                        "class": cls,
                        "s": s.text,
                        "gold": gold,
                        "crf_raw": raw,
                        "assembled": lval,
                        "final": got,
                        "gold_labels": list(zip(s.tokens, s.labels, strict=True)),
                        "crf_labels": pred,
                    }
                )
    _parser._learned_or_rules = spy._orig  # type: ignore[assignment]
    return rows


def label_agreement() -> dict[str, dict[str, dict[str, int]]]:
    """How often the AnyStyle labels of one string written twice (in one file or in two) agree.

    Per field and per group of files holding the string: the strings written more than once,
    and those whose copies' first spans differ once cleaned (``title_key`` of
    ``_clean_title`` / ``_clean_container``): the labels' own disagreement, a floor under any
    parser's exact-match misses on such strings.
    """
    copies: dict[str, list[tuple[str, pdata.Sequence_]]] = {}
    for name in pdata.ANYSTYLE_FILES:
        for s in pdata.anystyle_sequences(name):
            copies.setdefault(s.key, []).append((name, s))
    out: dict[str, dict[str, dict[str, int]]] = {}
    for field, clean in (("title", _clean_title), ("container", _clean_container)):
        res: dict[str, dict[str, int]] = {}
        for seqs in copies.values():
            if len(seqs) < 2:
                continue
            group = "+".join(sorted({n for n, _s in seqs}))
            keys = set()
            for _n, s in seqs:
                span = _first_span(s.tokens, s.labels, field)
                keys.add(_k(clean(span)) if span else "")
            row = res.setdefault(group, {"strings": 0, "disagree": 0})
            row["strings"] += 1
            row["disagree"] += len(keys) > 1
        out[field] = res
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", action="store_true", help="the dev slice (else the held-out part)")
    ap.add_argument(
        "--model-dir", type=Path, default=None, help="a model written by train_parser.py --out"
    )
    ap.add_argument("--out", type=Path, default=None, help="write every miss as JSONL")
    ap.add_argument(
        "--agreement",
        action="store_true",
        help="also count how often the labels of a string written twice disagree",
    )
    args = ap.parse_args()
    if args.model_dir is not None:
        model = _crf.read_model(args.model_dir)
        _crf.load_model = lambda: model  # type: ignore[assignment]
    print("decomposing", "dev" if args.dev else "held-out", "misses", file=sys.stderr)
    rows = decompose(args.dev)
    if args.out:
        with args.out.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    out: dict[str, Any] = {}
    for field in ("title", "container"):
        counts = Counter((r["file"], r["class"]) for r in rows if r["field"] == field)
        classes = sorted({c for _f, c in counts})
        out[field] = {
            c: {f: counts[(f, c)] for f in pdata.ANYSTYLE_FILES}
            | {"all": sum(counts[(f, c)] for f in pdata.ANYSTYLE_FILES)}
            for c in classes
        }
    if args.agreement:
        out["label_agreement"] = label_agreement()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
