"""The reference finder: which lines of a document's text are its reference list, and the entries.

Two steps, each measured on ``../shared/data/refparse/finder`` (``docs/FINDER.md``,
``scripts/bench_finder.py``):

1. **Line labels** — a linear-chain CRF (python-crfsuite) labels every line ``ref``, ``text``,
   ``title``, ``meta`` or ``blank`` from features of the line and its neighbours: indentation
   and its change, length against the page's width, a leading label (``[3]``, ``12.``,
   ``[Smith 2010]``), capitalised name patterns (``Smith, J.``, ``Smith JO``, ``J. Smith``),
   years (bracketed or not), punctuation and digit density, reference words (``pp.``, ``vol.``,
   ``doi``, ``In:``, ``Press``), a references heading ("References", "Bibliography",
   "Literatur", "Literatura", …) and the distance since one, and the relative position in the
   document. The model (``finder.crfsuite``) and its manifest (``finder.json``: data sha256,
   held-out documents, hyperparameters, scores) are package data written by
   ``scripts/train_finder.py``; the model's sha256 is checked when it loads.
2. **Entries** — rules (:func:`split_entries`): labelled lists start an entry at each label
   (numbers in sequence); hanging-indent lists at each line back at the block's left margin;
   flush-left lists where the previous line ended a reference (terminal punctuation and a short
   line) and the line starts with a name; a blank line ends an entry in a list whose entries are
   separated by blank lines.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from citejudge.errors import CitejudgeError
from citejudge.hashing import file_sha256

__all__ = [
    "FEATURE_VERSION",
    "LABELS",
    "REF_HEADING",
    "Line",
    "ReferenceFinder",
    "entry_label",
    "group_entries",
    "join_entry_lines",
    "line_features",
    "load_finder",
    "reference_blocks",
    "split_entries",
]

log = logging.getLogger(__name__)

#: Bumped whenever :func:`line_features` changes (the model records the version it was trained with).
FEATURE_VERSION = 1
LABELS = ("ref", "text", "title", "meta", "blank")
MODEL_FILE, MANIFEST_FILE = "finder.crfsuite", "finder.json"


@dataclass(frozen=True)
class Line:
    """One line of a document's text, with its leading spaces (indentation) kept."""

    text: str
    page: int | None = None
    number: int = 0  # 1-based line number in the reader's text

    @property
    def blank(self) -> bool:
        """True for a line of whitespace only."""
        return not self.text.strip()


REF_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s*|\*\*|__)?(?:[\dIVX]+\.?\s+)?(?:references?(?: and notes| cited)?|bibliography|"
    r"works cited|literature(?: cited)?|sources|citations|literatur(?:verzeichnis)?|literatura|"
    r"bibliografie|bibliografia|bibliographie|références|referencias|referenze|reference list|"
    r"seznam (?:použité )?literatury|použitá literatura|zdroje|notes and references)\s*:?\s*(?:\*\*|__)?\s*$",
    re.I,
)
_NUM_LABEL = re.compile(r"^\s*(?:\[(\d{1,4})\]|\((\d{1,4})\)|(\d{1,4})[.)](?=\s)|(\d{1,4})\s{2,})")
_ALPHA_LABEL = re.compile(r"^\s*\[([A-Z][^\[\]]{0,40}?)\](?=\s)")
_FOOTNOTE_DEF = re.compile(r"^\s*\[\^([^\]\s]{1,40})\]:\s*")
_BULLET = re.compile(r"^\s*[-*•▪◦‣]\s+")
_AUTHOR_START = re.compile(
    r"^\s*(?:[-*•]\s+)?(?:\[[^\]]{1,40}\]\s*|\d{1,4}[.)]\s*)?"
    r"(?:[A-Z][\w'’`-]*[a-zà-ÿ][\w'’`-]*,\s+(?:[A-Z]\.|[A-Z][a-zà-ÿ]+)"  # Smith, J. / Smith, John
    r"|[A-Z][\w'’`-]*[a-zà-ÿ][\w'’`-]*\s+[A-Z]{1,3}(?:[,.]|\s|$)"  # Smith JO,
    r"|(?:[A-Z]\.\s?-?){1,3}\s?[A-Z][\w'’`-]*[a-zà-ÿ]"  # J. Smith
    r"|(?:van|von|de|der|da|di|le|la)\s+[A-Z])"
)
_YEAR = re.compile(r"(?<!\d)(?:1[5-9]\d\d|20\d\d)[a-z]?(?!\d)")
_PAREN_YEAR = re.compile(r"\((?:1[5-9]\d\d|20\d\d)[a-z]?\)")
_REF_WORDS = {
    "pp": re.compile(r"\bpp?\.\s*\d"),
    "vol": re.compile(r"\b(?:vol|no|nr|issue|ed|eds|edn)\.", re.I),
    "doi": re.compile(r"\bdoi\b|10\.\d{4,}/", re.I),
    "url": re.compile(r"https?://|www\.", re.I),
    "etal": re.compile(r"\bet al\b", re.I),
    "in": re.compile(r"\bIn:?\s+[A-Z]"),
    "venue": re.compile(
        r"\b(?:Journal|J\.|Proc\.?|Proceedings|Conference|Press|Review|Trans\.|Transactions|Verlag|University|Univ\.)\b"
    ),
    "pages": re.compile(r"\d+\s*[-–]\s*\d+"),
    "volnum": re.compile(r"\d+\s*\(\d+\)"),
}
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}\s*$|^\s*[ivxlc]{1,6}\s*$", re.I)


def _bucket(x: float, edges: Sequence[float]) -> str:
    for i, e in enumerate(edges):
        if x < e:
            return str(i)
    return str(len(edges))


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def line_features(lines: Sequence[Line]) -> list[dict[str, float]]:
    """Features of every line (crfsuite attribute dicts; binary features have value 1.0)."""
    texts = [ln.text.replace("\t", "    ") for ln in lines]
    n = len(texts)
    nonblank = [t for t in texts if t.strip()]
    widths = sorted(len(t.rstrip()) for t in nonblank)
    width = widths[int(0.9 * (len(widths) - 1))] if widths else 80
    base: list[dict[str, float]] = []
    since_heading = math.inf
    for i, t in enumerate(texts):
        s = t.strip()
        f: dict[str, float] = {"bias": 1.0}
        if not s:
            f["blank"] = 1.0
            base.append(f)
            continue
        ind = _indent(t)
        f["ind=" + _bucket(ind, (1, 3, 7, 16, 40))] = 1.0
        ratio = len(t.rstrip()) / max(width, 1)
        f["width=" + _bucket(ratio, (0.3, 0.6, 0.8, 0.95, 1.05))] = 1.0
        f["len=" + _bucket(len(s), (10, 30, 60, 90))] = 1.0
        if _NUM_LABEL.match(t):
            f["numlabel"] = 1.0
        if _ALPHA_LABEL.match(t) or _FOOTNOTE_DEF.match(t):
            f["alphalabel"] = 1.0
        if _BULLET.match(t):
            f["bullet"] = 1.0
        if _AUTHOR_START.match(t):
            f["author"] = 1.0
        years = _YEAR.findall(s)
        if years:
            f["year"] = 1.0
            if len(years) > 1:
                f["years2"] = 1.0
        if _PAREN_YEAR.search(s):
            f["parenyear"] = 1.0
        for name, rx in _REF_WORDS.items():
            if rx.search(s):
                f["w:" + name] = 1.0
        punct = sum(1 for c in s if c in ".,;:()[]")
        f["punct=" + _bucket(punct / len(s), (0.02, 0.04, 0.07, 0.12))] = 1.0
        digits = sum(1 for c in s if c.isdigit())
        f["digit=" + _bucket(digits / len(s), (0.01, 0.05, 0.15, 0.4))] = 1.0
        letters = [c for c in s if c.isalpha()]
        if letters and sum(1 for c in letters if c.isupper()) / len(letters) > 0.7:
            f["caps"] = 1.0
        if s[0].islower():
            f["lower"] = 1.0
        if s.endswith("."):
            f["end."] = 1.0
        elif s.endswith(("-", "–")):
            f["end-"] = 1.0
        elif s.endswith(","):
            f["end,"] = 1.0
        elif s[-1].isalpha():
            f["endalpha"] = 1.0
        if _PAGE_NUMBER.match(s):
            f["pagenum"] = 1.0
        elif re.search(r"\s{3,}\d{1,4}$", t) or re.match(r"^\d{1,4}\s{3,}", s):
            f["headnum"] = 1.0
        if REF_HEADING.match(s):
            f["refheading"] = 1.0
            since_heading = 0
        elif since_heading != math.inf:
            since_heading += 1
        if since_heading != math.inf:
            f["since=" + _bucket(since_heading, (1, 5, 30, 150, 600))] = 1.0
        f["pos=" + str(min(9, int(10 * i / max(n, 1))))] = 1.0
        if len(s.split()) <= 8 and not s.endswith((".", ",")) and s[:1].isupper():
            f["short_title"] = 1.0
        base.append(f)
    # neighbours: indentation change and a few features of the previous/next non-blank line
    out: list[dict[str, float]] = []
    prev_nb = [-1] * n
    next_nb = [-1] * n
    last = -1
    for i in range(n):
        prev_nb[i] = last
        if texts[i].strip():
            last = i
    last = -1
    for i in range(n - 1, -1, -1):
        next_nb[i] = last
        if texts[i].strip():
            last = i
    keys = (
        "numlabel",
        "alphalabel",
        "author",
        "year",
        "refheading",
        "lower",
        "end.",
        "caps",
        "pagenum",
        "bullet",
    )
    for i, f in enumerate(base):
        g = dict(f)
        if "blank" not in f:
            for tag, j in (("p", prev_nb[i]), ("n", next_nb[i])):
                if j < 0:
                    g[tag + ":none"] = 1.0
                    continue
                d = _indent(texts[j]) - _indent(texts[i])
                g[tag + ":ind" + ("+" if d > 0 else "-" if d < 0 else "=")] = 1.0
                if j != (i - 1 if tag == "p" else i + 1):
                    g[tag + ":gap"] = 1.0
                for k in keys:
                    if k in base[j]:
                        g[tag + ":" + k] = 1.0
        else:
            for tag, j in (("p", i - 1), ("n", i + 1)):
                if 0 <= j < n:
                    for k in ("numlabel", "author", "year", "refheading"):
                        if k in base[j]:
                            g[tag + ":" + k] = 1.0
        out.append(g)
    return out


class FinderModelError(CitejudgeError):
    """The packaged finder model is missing or not the one its manifest names."""


class ReferenceFinder:
    """The trained line labeller (a crfsuite tagger) and its manifest."""

    def __init__(self, model: Path, manifest: dict[str, Any]) -> None:
        import pycrfsuite

        self.manifest = manifest
        self.tagger = pycrfsuite.Tagger()
        self.tagger.open(str(model))

    def labels(self, lines: Sequence[Line]) -> list[str]:
        """One label of :data:`LABELS` per line."""
        if not lines:
            return []
        return list(self.tagger.tag(line_features(lines)))


def _package_file(name: str) -> Path:
    return Path(str(resources.files("citejudge.documents").joinpath(name)))


@lru_cache(maxsize=1)
def load_finder() -> ReferenceFinder:
    """The packaged finder; its sha256 must be the one its manifest records."""
    model, manifest_path = _package_file(MODEL_FILE), _package_file(MANIFEST_FILE)
    if not model.is_file() or not manifest_path.is_file():
        raise FinderModelError(
            f"the reference finder model is missing ({model})",
            hint="reinstall citejudge, or train it with scripts/train_finder.py",
        )
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    digest = file_sha256(model)
    if digest != manifest.get("model_sha256"):
        raise FinderModelError(
            f"the reference finder model {model} has sha256 {digest[:12]}…, its manifest names "
            f"{str(manifest.get('model_sha256'))[:12]}…",
            hint="reinstall citejudge, or retrain with scripts/train_finder.py",
        )
    if manifest.get("feature_version") != FEATURE_VERSION:
        raise FinderModelError(
            f"the reference finder model was trained with features v{manifest.get('feature_version')}, "
            f"this code computes v{FEATURE_VERSION}",
            hint="retrain with scripts/train_finder.py",
        )
    return ReferenceFinder(model, manifest)


def reference_blocks(labels: Sequence[str]) -> list[list[int]]:
    """Runs of ``ref`` lines; a run goes on across ``blank`` and ``meta`` lines (page breaks)."""
    blocks: list[list[int]] = []
    cur: list[int] = []
    for i, lab in enumerate(labels):
        if lab == "ref":
            cur.append(i)
        elif lab not in ("blank", "meta") and cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


# ------------------------------------------------------------------------------ entries


def entry_label(text: str) -> tuple[str | None, str]:
    """(label, rest) of an entry's first line: ``"[3] Smith…"`` -> ``("3", "Smith…")``."""
    m = _FOOTNOTE_DEF.match(text)
    if m:
        return m.group(1), text[m.end() :]
    m = _NUM_LABEL.match(text)
    if m:
        num = next(g for g in m.groups() if g is not None)
        return str(int(num)), text[m.end() :].lstrip()
    m = _ALPHA_LABEL.match(text)
    if m:
        return m.group(1).strip(), text[m.end() :].lstrip()
    m = _BULLET.match(text)
    if m:
        return None, text[m.end() :]
    return None, text.lstrip()


def _label_kind(text: str) -> str | None:
    if _FOOTNOTE_DEF.match(text):
        return "footnote"
    if _NUM_LABEL.match(text):
        return "num"
    if _ALPHA_LABEL.match(text):
        return "alpha"
    if _BULLET.match(text):
        return "bullet"
    return None


_TERMINAL = re.compile(r"(?:[.!?)\]>]|\d|[a-z0-9]/\S*)[\"'”’]?\s*$")


def split_entries(lines: Sequence[Line], block: Sequence[int]) -> list[list[int]]:
    """The entries of one reference block: lists of indices into ``lines`` (non-blank lines only).

    ``block`` holds the indices of the block's reference lines in order (blank lines and the page
    furniture between them may be left out or included; blank lines are used as separators only
    when the list separates its entries that way).
    """
    idx = [i for i in block if not lines[i].blank]
    if not idx:
        return []
    texts = {i: lines[i].text.replace("\t", "    ") for i in idx}
    kinds = {i: _label_kind(texts[i]) for i in idx}
    counts: dict[str, int] = {}
    for k in kinds.values():
        if k:
            counts[k] = counts.get(k, 0) + 1
    first_kind = kinds[idx[0]]
    starts: set[int] = set()
    if first_kind is not None and counts.get(first_kind, 0) >= max(1, len(idx) // 8):
        expected: int | None = None
        for i in idx:
            if kinds[i] != first_kind:
                continue
            if first_kind == "num":
                lab, _ = entry_label(texts[i])
                n = int(lab) if lab else -1
                if expected is not None and n not in (expected, 1) and i != idx[0]:
                    continue  # a number at a line start inside an entry ("146.")
                expected = n + 1
            starts.add(i)
    else:
        starts = _unlabelled_starts(lines, idx, texts, block)
    return group_entries(idx, starts)


def group_entries(idx: Sequence[int], starts: set[int]) -> list[list[int]]:
    """Lines ``idx`` (in order) cut into entries at ``starts``; the first line always starts one."""
    entries: list[list[int]] = []
    for i in idx:
        if i in starts or not entries:
            entries.append([i])
        else:
            entries[-1].append(i)
    return entries


def _unlabelled_starts(
    lines: Sequence[Line], idx: list[int], texts: dict[int, str], block: Sequence[int]
) -> set[int]:
    inds = [_indent(texts[i]) for i in idx]
    margin = min(inds)
    deeper = sum(1 for x in inds if x > margin)
    # blank-line separated: most gaps between consecutive lines hold a blank line
    blank_before = {
        i: any(lines[k].blank for k in range(prev + 1, i)) for prev, i in itertools.pairwise(idx)
    }
    if deeper >= max(1, len(idx) // 5) and deeper < len(idx):
        # hanging indent: entries start back at the margin
        return {i for i, x in zip(idx, inds, strict=True) if x == margin}
    widths = sorted(len(texts[i].rstrip()) for i in idx)
    width = widths[int(0.9 * (len(widths) - 1))]
    n_blank = sum(1 for v in blank_before.values() if v)
    starts = {idx[0]}
    for prev, i in itertools.pairwise(idx):
        p, t = texts[prev].rstrip(), texts[i]
        if n_blank >= len(idx) // 3 and n_blank > 0:
            if blank_before[i]:
                starts.add(i)
            continue
        ended = bool(_TERMINAL.search(p)) and (
            len(p) < 0.85 * width or bool(_AUTHOR_START.match(t))
        )
        if ended and t.strip()[:1].isupper() and (_AUTHOR_START.match(t) or len(p) < 0.7 * width):
            starts.add(i)
    return starts


_URLISH = re.compile(r"(?:https?://|www\.|doi|10\.\d{4,}/)\S*$", re.I)


def join_entry_lines(parts: Sequence[str]) -> str:
    """One entry's lines as one string: a word broken by a hyphen at a line end is joined again."""
    out = ""
    for raw in parts:
        s = " ".join(raw.split())
        if not s:
            continue
        if not out:
            out = s
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and s[:1].islower():
            last = out.rsplit(" ", 1)[-1]
            out = out + s if _URLISH.search(last) or "-" in last[:-1] else out[:-1] + s
        elif _URLISH.search(out.rsplit(" ", 1)[-1]) and out.endswith(("/", ".", "-", "_")):
            out = out + s  # a URL or DOI broken at the line end
        else:
            out = f"{out} {s}"
    return out
