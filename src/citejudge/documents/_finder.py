"""The reference finder: which lines of a document's text are its reference list, and the entries.

Three steps, each measured on ``../shared/data/refparse/finder`` (``docs/FINDER.md``,
``scripts/bench_finder.py``):

1. **Line labels** — a linear-chain CRF (python-crfsuite) labels every line ``ref``, ``text``,
   ``title``, ``meta`` or ``blank`` from features (v2, :func:`line_features`) of the line:
   indentation and its change, length against the page's width and against the document's
   median line, indentation against the document's usual one, a leading label (``[3]``,
   ``12.``, ``[Smith 2010]``), capitalised name patterns (``Smith, J.``, ``Smith JO``,
   ``J. Smith``), years (bracketed or not), punctuation and digit density, reference words
   (``pp.``, ``vol.``, ``doi``, ``In:``, ``Press``), wide gaps (table columns); of the stretch
   around it: the shares of lines with a year, a name, a label, a reference word, a
   reference-like look, table columns among the 3 and the 10 non-blank lines on either side; of
   where it stands: relative position, a references heading above it ("References",
   "1.3 References", "Bibliography", "Literatur", "Literatura", …) and the distance since, a
   section heading since that; and of its previous and next non-blank lines. The model
   (``finder.crfsuite``) and its manifest (``finder.json``: data sha256, held-out documents,
   hyperparameters) are package data written by ``scripts/train_finder.py``; the model's
   sha256 and feature version are checked when it loads.
2. **Rules after the CRF** (:meth:`ReferenceFinder.labels`): :func:`anchor_to_heading` (a list
   starts right after its heading) and :func:`running_text` (three or more ``meta`` lines in a
   row are text); :func:`reference_blocks` bridges a running header of one or two lines.
3. **Entries** — rules (:func:`split_entries`): labelled lists start an entry at each label
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
from collections import Counter
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
    "anchor_to_heading",
    "entry_label",
    "group_entries",
    "join_entry_lines",
    "line_features",
    "load_finder",
    "prose_before_list",
    "reference_blocks",
    "running_text",
    "split_entries",
]

log = logging.getLogger(__name__)

#: Bumped whenever :func:`line_features` changes (the model records the version it was trained with).
FEATURE_VERSION = 2
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
    r"^\s*(?:#{1,6}\s*|\*\*|__)?(?:(?:[\dIVX]{1,4}|[A-Z])(?:\.\d{1,3})*\.?\s+)?(?:references?(?: and notes| cited)?|bibliography|"
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


_GAPS = re.compile(r"\S\s{3,}(?=\S)")
_SECTION = re.compile(
    r"^\s*(?:(?:chapter|appendix|part|kapitel|anhang|kapitola|příloha|rozdział|capítulo)\b.{0,80}"
    r"|(?:\d{1,2}|[A-Z])(?:\.\d{1,2})*\.?\s+[A-Z][^.]{2,80})\s*$",
    re.I,
)
#: Half-widths (in non-blank lines) of the windows whose shares of reference cues are features.
WINDOWS = (3, 10)
_CUES = ("year", "author", "label", "refword", "reflike", "table")


def _cues(t: str, s: str) -> dict[str, bool]:
    """Reference cues of one line (``t`` as printed, ``s`` stripped) counted in the windows."""
    year = bool(_YEAR.search(s))
    author = bool(_AUTHOR_START.match(t))
    label = bool(_NUM_LABEL.match(t) or _ALPHA_LABEL.match(t) or _FOOTNOTE_DEF.match(t))
    refword = any(rx.search(s) for rx in _REF_WORDS.values())
    return {
        "year": year,
        "author": author,
        "label": label,
        "refword": refword,
        "reflike": year and (author or label or refword or bool(_PAREN_YEAR.search(s))),
        "table": len(_GAPS.findall(s)) >= 2,
    }


def _window_shares(texts: Sequence[str], nonblank: Sequence[int]) -> dict[int, dict[str, float]]:
    """Per non-blank line: the share of lines with each cue among the non-blank lines around it."""
    cues = [_cues(texts[i], texts[i].strip()) for i in nonblank]
    prefix = {c: list(itertools.accumulate((int(x[c]) for x in cues), initial=0)) for c in _CUES}
    m = len(nonblank)
    out: dict[int, dict[str, float]] = {}
    for k, i in enumerate(nonblank):
        f: dict[str, float] = {}
        for w in WINDOWS:
            lo, hi = max(0, k - w), min(m, k + w + 1)
            for c in _CUES:
                share = (prefix[c][hi] - prefix[c][lo]) / (hi - lo)
                f[f"w{w}{c}=" + _bucket(share, (0.01, 0.25, 0.5, 0.75))] = 1.0
        out[i] = f
    return out


def line_features(lines: Sequence[Line]) -> list[dict[str, float]]:
    """Features of every line (crfsuite attribute dicts; binary features have value 1.0).

    Of the line itself, against the document (length and indentation relative to the
    document's median length and most common indentation), of the stretch around it (shares of
    reference cues in windows of :data:`WINDOWS` non-blank lines), of where it stands (relative
    position, a references heading above it and the distance since, a section heading since
    that), and of its previous and next non-blank lines.
    """
    texts = [ln.text.replace("\t", "    ") for ln in lines]
    n = len(texts)
    nonblank = [i for i, t in enumerate(texts) if t.strip()]
    widths = sorted(len(texts[i].rstrip()) for i in nonblank)
    width = widths[int(0.9 * (len(widths) - 1))] if widths else 80
    lengths = sorted(len(texts[i].strip()) for i in nonblank)
    median_len = lengths[len(lengths) // 2] if lengths else 60
    usual_indent = Counter(_indent(texts[i]) for i in nonblank).most_common(1)
    margin = usual_indent[0][0] if usual_indent else 0
    shares = _window_shares(texts, nonblank)
    base: list[dict[str, float]] = []
    since_heading = math.inf
    section_since = False
    for i, t in enumerate(texts):
        s = t.strip()
        f: dict[str, float] = {"bias": 1.0}
        if not s:
            f["blank"] = 1.0
            base.append(f)
            continue
        ind = _indent(t)
        f["ind=" + _bucket(ind, (1, 3, 7, 16, 40))] = 1.0
        rel = ind - margin
        f["relind=" + ("0" if rel == 0 else "-" if rel < 0 else "+" if rel <= 6 else "++")] = 1.0
        ratio = len(t.rstrip()) / max(width, 1)
        f["width=" + _bucket(ratio, (0.3, 0.6, 0.8, 0.95, 1.05))] = 1.0
        f["len=" + _bucket(len(s), (10, 30, 60, 90))] = 1.0
        f["rellen=" + _bucket(len(s) / max(median_len, 1), (0.3, 0.7, 0.9, 1.1, 1.4))] = 1.0
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
        f["gaps=" + str(min(len(_GAPS.findall(s)), 2))] = 1.0
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
            since_heading, section_since = 0, False
        else:
            if since_heading != math.inf:
                since_heading += 1
            if len(s) < 90 and _SECTION.match(s) and not years:
                f["section"] = 1.0
                section_since = since_heading != math.inf
        if since_heading != math.inf:
            f["since=" + _bucket(since_heading, (1, 5, 30, 150, 600))] = 1.0
            if section_since:
                f["section_since_refheading"] = 1.0
        else:
            f["no_refheading_above"] = 1.0
        f["pos=" + str(min(9, int(10 * i / max(n, 1))))] = 1.0
        if len(s.split()) <= 8 and not s.endswith((".", ",")) and s[:1].isupper():
            f["short_title"] = 1.0
        f.update(shares[i])
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
        "gaps=2",
        "section",
        "parenyear",
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
            if prev_nb[i] >= 0:  # a blank line inside a stretch of reference-like lines
                g.update(
                    {
                        "p:" + k: 1.0
                        for k in base[prev_nb[i]]
                        if k.startswith(f"w{WINDOWS[-1]}reflike=")
                    }
                )
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
        """One label of :data:`LABELS` per line.

        The CRF's labels, then three rules: :func:`anchor_to_heading`, :func:`running_text` and
        :func:`prose_before_list`.
        """
        if not lines:
            return []
        labels = list(self.tagger.tag(line_features(lines)))
        return prose_before_list(lines, running_text(lines, anchor_to_heading(lines, labels)))


_ENTRY_START = (_NUM_LABEL, _ALPHA_LABEL, _FOOTNOTE_DEF, _AUTHOR_START, _BULLET)


def anchor_to_heading(lines: Sequence[Line], labels: list[str], reach: int = 15) -> list[str]:
    """A reference list starts right after its heading.

    ``text`` (and ``meta``) lines between a references heading and the first ``ref`` line below
    it (at most ``reach`` non-blank lines, the first of them starting like an entry: a label, a
    name, a bullet) become ``ref``. On the training documents (leave-one-document-out,
    docs/FINDER.md) it removed no right label; it mends lists whose first entries the CRF
    leaves out (short two-column papers).
    """
    out = list(labels)
    for h, ln in enumerate(lines):
        if ln.blank or not REF_HEADING.match(ln.text.strip()):
            continue
        run: list[int] = []
        for j in range(h + 1, len(lines)):
            if lines[j].blank:
                continue
            if out[j] == "ref":
                break
            if out[j] not in ("text", "meta") or len(run) >= reach:
                run = []
                break
            run.append(j)
        else:
            run = []
        if run and any(rx.match(lines[run[0]].text) for rx in _ENTRY_START):
            for j in run:
                out[j] = "ref"
    return out


def running_text(lines: Sequence[Line], labels: list[str], least: int = 3) -> list[str]:
    """Page furniture is a line or two: longer runs of ``meta`` lines are running text.

    A run of ``least`` or more ``meta`` lines with no blank line between them becomes ``text``,
    so the sentences in it are not lost.
    """
    out = list(labels)
    i = 0
    while i < len(out):
        if out[i] != "meta" or lines[i].blank:
            i += 1
            continue
        j = i
        while j < len(out) and out[j] == "meta" and not lines[j].blank:
            j += 1
        if j - i >= least:
            out[i:j] = ["text"] * (j - i)
        i = j
    return out


def prose_before_list(lines: Sequence[Line], labels: list[str]) -> list[str]:
    """Paragraphs above a references heading are running text when the list is below it.

    In a short document (a generated report, a note of a few paragraphs) the CRF's window
    features see the list close by and call the paragraphs above its heading ``ref``. When a
    references heading has ``ref`` lines below it, each paragraph of ``ref`` lines above it
    (lines between blank lines) that cites (a marker inside a sentence: "vision [1]", "(He et
    al., 2016)") and whose first line does not start like an entry (a label, a name, a bullet)
    becomes ``text``; a list above the heading (per-chapter lists, entries without a heading)
    neither cites nor starts like prose, and stays.
    """
    heads = [
        h
        for h, ln in enumerate(lines)
        if not ln.blank and REF_HEADING.match(ln.text.strip()) and "ref" in labels[h + 1 :]
    ]
    if not heads:
        return labels
    out = list(labels)
    start: int | None = None
    for i in range(heads[-1] + 1):
        if i < heads[-1] and out[i] == "ref" and not lines[i].blank:
            if start is None:
                start = i
            continue
        if (
            start is not None
            and not any(rx.match(lines[start].text) for rx in _ENTRY_START)
            and any(_PROSE_MARKER.search(lines[j].text) for j in range(start, i))
        ):
            for j in range(start, i):
                out[j] = "text"
        start = None
    return out


#: A citation marker inside a sentence: "vision [1]", "language [2, 3]", "[4–6]", Wikipedia's
#: "problem.[1]" (glued), a quotation's '“… abstraction.” [1]' or '"…"[2]', "(He et al., 2016)",
#: "(Smith and Jones 2019; Lee, 2020)" — what cites a list, not what is in it.
_PROSE_MARKER = re.compile(
    r"(?:[,;]\s|[a-z][.,;:!?]?[\"'”’]*\s?)\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]"
    r"|\((?:see |e\.g\., )?[A-Z][\w'’-]+(?: et al\.| (?:and|&) [A-Z][\w'’-]+)?,? \d{4}[a-z]?[;)]"
)


#: The numbers of a superscript citation: "1", "2,3", "3-5", "12–14" (PDF, HTML ``<sup>`` and
#: Word superscript runs set them back as "[2,3]").
SUPERSCRIPT_CITATION = re.compile(r"\d{1,3}(?:\s*[,–—-]\s*\d{1,3})*")


_WORD_BEFORE = re.compile(r"([^\W\d_]*)[\"'”’)\]]*$")


def superscript_marker(before: str, numbers: str) -> str:
    """The text of raised ``numbers`` after the text ``before``: a marker or an exponent.

    A citation marker, "[2,3]", after a word of four letters or more or after punctuation
    ("problem¹", "data.²"); an exponent, "^2", after a digit, a short word or a unit ("10⁵",
    "km²", "x²", "s⁻¹").
    """
    numbers = numbers.strip().replace(" ", "")
    tail = before.rstrip()
    m = _WORD_BEFORE.search(tail)
    word = m.group(1) if m else ""
    if not tail or tail[-1].isdigit() or tail.endswith(("⁻", "^", "-")) or 0 < len(word) < 4:
        return f"^{numbers}"
    return f"[{numbers}]"


def reads_as_reference(text: str) -> bool:
    """True when one text, alone, has a reference's cues.

    A year and a name, a label, a reference word ("pp.", "vol.", a page range, a DOI) or a
    bracketed year: a note of a Word document, read without the neighbours the line labeller
    needs.
    """
    return _cues(text, text.strip())["reflike"]


def cites(text: str) -> bool:
    """True when ``text`` holds a citation marker inside a sentence (:data:`_PROSE_MARKER`)."""
    return bool(_PROSE_MARKER.search(text))


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


def reference_blocks(labels: Sequence[str], bridge: int = 2) -> list[list[int]]:
    """Runs of ``ref`` lines (indices), the blocks entries are split from.

    A run goes on across ``blank`` and ``meta`` lines (page breaks) and across at most ``bridge``
    other lines (a running header the labeller called ``text``), which stay out of the run. A
    ``title`` line (a heading) ends it.
    """
    blocks: list[list[int]] = []
    cur: list[int] = []
    gap = 0
    for i, lab in enumerate(labels):
        if lab == "ref":
            cur.append(i)
            gap = 0
        elif lab in ("blank", "meta") or not cur:
            continue
        elif lab != "title" and gap < bridge:
            gap += 1
        else:
            blocks.append(cur)
            cur, gap = [], 0
    if cur:
        blocks.append(cur)
    return blocks


# ------------------------------------------------------------------------------ entries


def bare_key(text: str, keys: frozenset[str]) -> str | None:
    """The longest of ``keys`` that starts ``text`` as a label set without brackets, or None.

    A list whose labels lost their brackets (DocBook's PDF output: ``GNOMEThe GNOME desktop, http://…``
    cited as ``[GNOME]``) starts each entry with a key the running text cites: the key is followed
    by white space, punctuation or, glued by the PDF's lost gap, a capital letter.
    """
    s = text.lstrip()
    best: str | None = None
    for k in keys:
        if len(k) >= 2 and s.startswith(k) and (best is None or len(k) > len(best)):
            nxt = s[len(k) : len(k) + 1]
            if not nxt or nxt.isspace() or nxt in ",.:;" or nxt.isupper():
                best = k
    return best


def entry_label(text: str, keys: frozenset[str] = frozenset()) -> tuple[str | None, str]:
    """(label, rest) of an entry's first line: ``"[3] Smith…"`` -> ``("3", "Smith…")``.

    ``keys`` (labels the running text cites, ``[GNOME]``) also label a line that starts with one
    bare (:func:`bare_key`), when no bracketed label or number does.
    """
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
    key = bare_key(text, keys) if keys else None
    if key is not None:
        return key, text.lstrip()[len(key) :].lstrip(" ,.:;")
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


def split_entries(
    lines: Sequence[Line], block: Sequence[int], keys: frozenset[str] = frozenset()
) -> list[list[int]]:
    """The entries of one reference block: lists of indices into ``lines`` (non-blank lines only).

    ``block`` holds the indices of the block's reference lines in order (blank lines and the page
    furniture between them may be left out or included; blank lines are used as separators only
    when the list separates its entries that way). ``keys`` are the labels the running text cites
    (``[GNOME]``): an unlabelled list whose first line and at least one other start with such a
    key bare (:func:`bare_key`) starts an entry at each of them.
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
        keyed = {i for i in idx if kinds[i] is None and bare_key(texts[i], keys)} if keys else set()
        if idx[0] in keyed and len(keyed) >= 2:
            # the entries nobody cites start at the keyed entries' indentation, their
            # continuation lines hang deeper
            margin = max(_indent(texts[i]) for i in keyed) + 1
            hang = [i for i in idx if _indent(texts[i]) > margin]
            starts = keyed | ({i for i in idx if _indent(texts[i]) <= margin} if hang else set())
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


_URLISH = re.compile(r"(?:(?:https?|ftp)://|www\.|doi|10\.\d{4,}/)\S*$", re.I)


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
