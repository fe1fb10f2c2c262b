r"""Citation markers in running text, and which reference-list entries they point to.

Recognised (:func:`find_markers`): numeric brackets ``[3]``, ``[3, 5]``, ``[3–5]``, ``[3,5-7]``;
Markdown footnotes ``[^3]``; pandoc citations ``[@key]``, ``[@a; @b, p. 4]`` and narrative
``@key``; author–year ``(Smith et al., 2020a)``, ``(Smith & Jones 2019; Lee, 2018, p. 3)``,
narrative ``Smith et al. (2020a)``; labels ``[Bar-Yam 2004a]``, ``[BF03]``, resolved when the
list carries such labels. LaTeX ``\\cite`` commands and JATS ``<xref>`` are read by their own
readers and resolved here by key.

Resolution (:class:`Resolver`) is a rule each: a number names the entry with that label (or, in
an unlabelled list, that position); a key or label names the entry with that key or label; an
author–year target names the entry whose first author's family name (and the second's, for
"A and B") and year agree, the letter after the year choosing among entries of the same authors
and year in list order. A target that names no entry, or several equally, is *unresolved* and
reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from citejudge.documents._model import Marker, Reference
from citejudge.text.normalize import fold

__all__ = [
    "IBID",
    "RawMarker",
    "Resolver",
    "family_name",
    "find_markers",
    "label_targets",
    "short_authors",
    "short_note_targets",
    "strip_markers",
]

_DASH = "–—‐‑−-"
_NUM_LIST = (
    rf"\d{{1,4}}(?:\s*[{_DASH}]\s*\d{{1,4}})?(?:\s*[,;]\s*\d{{1,4}}(?:\s*[{_DASH}]\s*\d{{1,4}})?)*"
)
_NUMERIC = re.compile(rf"\[\s*({_NUM_LIST})\s*\](?!\s*[(:])")
_FOOTNOTE = re.compile(r"\[\^([^\]\s]{1,40})\](?!:)")
_PANDOC_GROUP = re.compile(r"\[([^\[\]]*?-?@[\w:.#$%&+?<>~/-]+[^\[\]]*)\]")
_PANDOC_KEY = re.compile(r"-?@([\w][\w:.#$%&+?<>~/-]*[\w])")
_PANDOC_NARRATIVE = re.compile(r"(?<![\w@.\[])@([A-Za-z][\w:.#$%&+?<>~/-]*[\w])(?![\w@])")
#: Quarto's and pandoc-crossref's cross-references (``@fig-loss``, ``@sec:method``, ``[@tbl-a;
#: @tbl-b]``) look like citations but name a figure, a table, a section, an equation.
_CROSSREF = re.compile(
    r"(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|ch|app|tab)[-:]", re.I
)
_LABEL = re.compile(r"\[([A-Z][^\[\]\n]{1,40}?)\](?!\s*[(:])")
_YEAR = r"(?:1[5-9]\d\d|20\d\d)[a-z]?"
_NAME = r"(?:(?:van|von|de|der|den|da|di|du|del|la|le)\s+)*[A-Z][\w'’`-]*[a-zà-ÿ][\w'’`-]*"
_NAMES = (
    rf"{_NAME}(?:\s+et\s+al\.?|(?:,\s*{_NAME})*,?\s+(?:and|&)\s+{_NAME}|\s+(?:and|&)\s+{_NAME})?"
)
_PAREN = re.compile(r"\(([^()]{4,400})\)")
_AY_PART = re.compile(
    rf"^(?:(?:see(?: also)?|e\.g\.|cf\.|i\.e\.|also|but see)[,]?\s+)?(?P<names>{_NAMES}),?\s+"
    rf"(?P<years>{_YEAR}(?:\s*,\s*{_YEAR})*)(?:\s*[,:]\s*(?:pp?\.|ch\.|chap\.|sec\.)?\s*[\divx][\divx{_DASH}]*)?\s*$"
)
_NARRATIVE = re.compile(rf"\b(?P<names>{_NAMES})\s+\((?P<years>{_YEAR}(?:\s*,\s*{_YEAR})*)\)")
_YEAR_RE = re.compile(rf"({_YEAR})")
_LOCATOR = rf"(?:pp?\.\s*|ch\.\s*|chap\.\s*|§\s*)?[\divxlc]+(?:\s*[{_DASH}]\s*[\divxlc]+)?"
_SHORT_NOTE = re.compile(
    rf"(?P<names>{_NAMES}),?\s+\(?(?P<years>{_YEAR}(?:\s*,\s*{_YEAR})*)\)?"
    rf"(?:\s*[,:]\s*{_LOCATOR}(?:\s*,\s*{_LOCATOR})*)?"
)


@dataclass(frozen=True)
class RawMarker:
    """A marker as found: where it is, its text, its kind and its targets."""

    start: int
    end: int
    text: str
    kind: str
    targets: tuple[str, ...]


def _expand_numbers(spec: str) -> list[str] | None:
    out: list[str] = []
    for part in re.split(r"\s*[,;]\s*", spec.strip()):
        m = re.fullmatch(rf"(\d+)\s*[{_DASH}]\s*(\d+)", part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if b < a or b - a > 100 or b >= 1000:
                return None  # "[1990-2010]" is not a range of references
            out.extend(str(n) for n in range(a, b + 1))
        elif part.isdigit():
            if int(part) >= 1000:
                return None  # "[2019]" is a year, not the 2019th reference
            out.append(str(int(part)))
    return out or None


def _author_year_targets(names: str, years: str) -> list[str]:
    names = " ".join(names.split())
    return [f"{names} {y.strip()}" for y in years.split(",") if y.strip()]


def find_markers(text: str, *, numeric: bool = True, keyed: bool = True) -> list[RawMarker]:
    """Every marker in ``text``, in order, none overlapping (earlier kinds in the docstring win).

    ``keyed``: the reference list has keys (a pandoc bibliography), so a bare ``@key`` is a
    citation; in a list without keys it is a handle ("follow @karpathy"), not a marker. A
    cross-reference (``@fig-loss``, ``@sec:intro``) is never a marker.
    """
    found: list[RawMarker] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in taken)

    def add(a: int, b: int, kind: str, targets: Sequence[str], shown: str | None = None) -> None:
        if targets and free(a, b):
            found.append(RawMarker(a, b, shown or text[a:b], kind, tuple(targets)))
            taken.append((a, b))

    if numeric:
        for m in _NUMERIC.finditer(text):
            nums = _expand_numbers(m.group(1))
            if nums:
                add(m.start(), m.end(), "numeric", nums)
    for m in _FOOTNOTE.finditer(text):
        add(m.start(), m.end(), "footnote", [m.group(1)])
    for m in _PANDOC_GROUP.finditer(text):
        keys = [k for k in _PANDOC_KEY.findall(m.group(1)) if not _CROSSREF.match(k)]
        add(m.start(), m.end(), "key", keys)
    if keyed:
        for m in _PANDOC_NARRATIVE.finditer(text):
            if not _CROSSREF.match(m.group(1)):
                add(m.start(), m.end(), "key", [m.group(1)])
    for m in _PAREN.finditer(text):
        parts = [p.strip() for p in m.group(1).split(";")]
        targets: list[str] = []
        for p in parts:
            am = _AY_PART.match(p)
            if am is None:
                targets = []
                break
            targets.extend(_author_year_targets(am.group("names"), am.group("years")))
        add(m.start(), m.end(), "author-year", targets)
    for m in _NARRATIVE.finditer(text):
        # the marker is the bracketed year; the names stay in the sentence
        paren = m.start("years") - 1
        targets = _author_year_targets(m.group("names"), m.group("years"))
        add(paren, m.end(), "author-year", targets, " ".join(m.group(0).split()))
    for m in _LABEL.finditer(text):
        add(m.start(), m.end(), "label", [m.group(1).strip()])
    found.sort(key=lambda r: r.start)
    return found


#: A note that names the work of the note before it: "Ibid.", "Ibid., 1740.", "Ibidem, pp. 3–4.",
#: "Id. at 5." is not matched (a legal form with its own rules).
IBID = re.compile(r"^(?:ibid|ibidem)\.?(?:,?\s*(?:pp?\.\s*)?[\divxlc][\divxlc–—-]*)?\.?$", re.I)


def label_targets(text: str) -> list[str]:
    """The labels ``text`` cites in brackets ("[GNOME]", "[RFC-2119]").

    The label markers of :func:`find_markers`, without looking for the other kinds.
    """
    return [m.group(1).strip() for m in _LABEL.finditer(text)] if "[" in text else []


def short_note_targets(text: str) -> list[str] | None:
    """The author–year targets of a short note, or None when ``text`` is more than one.

    A short note names a work of a fuller list by author and year, with a page or two: the
    numbered notes of a Wikipedia article ("Hochreiter & Schmidhuber 1997, p. 1736."), a
    humanities footnote ("Smith 2010, pp. 45–46; Lee 2012.").
    """
    targets: list[str] = []
    for part in text.strip().rstrip(".").split(";"):
        m = _SHORT_NOTE.fullmatch(part.strip())
        if m is None:
            return None
        targets.extend(_author_year_targets(m.group("names"), m.group("years")))
    return targets or None


def strip_markers(
    text: str, markers: Iterable[RawMarker], names: Callable[[RawMarker], str] | None = None
) -> str:
    """``text`` without the markers' spans, spaces before punctuation tidied.

    ``names``: what a marker leaves in the sentence (a narrative citation's authors), if anything.
    """
    out: list[str] = []
    pos = 0
    for m in sorted(markers, key=lambda r: r.start):
        out.append(text[pos : m.start])
        if names is not None:
            out.append(names(m))
        pos = m.end
    out.append(text[pos:])
    s = "".join(out)
    s = re.sub(r"\s+([.,;:!?])", r"\1", s).replace("al..", "al.")
    s = re.sub(r"\(\s*\)|\[\s*\]", "", s)
    return " ".join(s.split())


_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "di", "du", "del", "la", "le"})
_INITIALS = re.compile(r"^(?:[A-Z]\.?-?){1,4}$|^[A-Z]{1,3}$")


def short_authors(authors: Sequence[str]) -> str:
    """How a narrative citation names the authors: "LeCun et al.", "Kingma and Ba", "Lowe"."""
    names = [
        a.split(",")[0].strip() if "," in a else a.split()[-1] for a in authors[:2] if a.split()
    ]
    if not names:
        return ""
    if len(authors) >= 3:
        return f"{names[0]} et al."
    return " and ".join(names)


def family_name(name: str) -> str:
    """The folded family name of an author name as a reference list writes it.

    ``"Smith, J."``, ``"J. Smith"``, ``"Smith J"``, ``"Smith JO"``, ``"van der Berg, A."`` →
    ``smith``, ``smith``, ``smith``, ``smith``, ``van der berg``.
    """
    name = " ".join(name.replace("*", "").split())
    if "," in name:
        fam = name.split(",", 1)[0]
    else:
        words = name.split()
        if len(words) >= 2 and _INITIALS.match(words[-1]) and not _INITIALS.match(words[0]):
            fam = " ".join(words[:-1])  # "Smith JO", "Masue-Slowey Y"
        else:
            i = len(words) - 1
            if i > 0 and words[i].rstrip(".").lower() in {"jr", "sr", "ii", "iii", "iv"}:
                i -= 1
            j = i
            while j > 0 and words[j - 1].lower() in _PARTICLES:
                j -= 1
            fam = " ".join(words[j : i + 1]) if words else ""
    return fold(fam)


def _target_names(target: str) -> tuple[list[str], str | None, str | None]:
    """(folded family names, year, suffix) of an author–year target."""
    m = _YEAR_RE.search(target)
    if m is None:
        return [], None, None
    year = m.group(1)
    names = target[: m.start()].strip().rstrip(",")
    names = re.sub(r"\s+et\s+al\.?", "", names)
    parts = [p for p in re.split(r"\s*,\s*|\s+and\s+|\s*&\s*", names) if p.strip()]
    return [fold(p) for p in parts], year[:4], (year[4:] or None)


class Resolver:
    """Resolves markers against one reference list."""

    def __init__(
        self, references: Sequence[Reference], notes: dict[str, list[int]] | None = None
    ) -> None:
        self.references = list(references)
        #: a short note's label (folded) -> the entries of the fuller list it names
        self.notes = dict(notes or {})
        self.by_label = {fold(r.label): r.number for r in self.references if r.label is not None}
        self.by_key = {r.key: r.number for r in self.references if r.key is not None}
        self.numbered = any(r.label and r.label.isdigit() for r in self.references)
        self.families = [[family_name(a) for a in r.authors[:2]] for r in self.references]

    def resolve(self, raw: RawMarker) -> Marker:
        """The :class:`Marker` of ``raw``: the entries it names and the targets that name none."""
        entries: list[int] = []
        unresolved: list[str] = []
        for t in raw.targets:
            via = self.notes.get(fold(t)) if raw.kind != "author-year" else None
            found: list[int | None] = list(via) if via else [self._one(raw.kind, t)]
            for n in found:
                if n is None:
                    unresolved.append(t)
                elif n not in entries:
                    entries.append(n)
        kind = (
            raw.kind
            if raw.kind in ("numeric", "author-year", "key", "label", "footnote")
            else "key"
        )
        return Marker(
            text=raw.text,
            kind=kind,  # type: ignore[arg-type]
            targets=list(raw.targets),
            entries=entries,
            unresolved=unresolved,
        )

    def _one(self, kind: str, target: str) -> int | None:
        if kind == "numeric":
            if self.numbered:
                return self.by_label.get(target)
            n = int(target)
            return n if 1 <= n <= len(self.references) else None
        if kind in ("key", "footnote"):
            return self.by_key.get(target) or self.by_label.get(fold(target))
        if kind == "label":
            return self.by_label.get(fold(target)) or self.by_key.get(target)
        return self._author_year(target)

    def _author_year(self, target: str) -> int | None:
        names, year, suffix = _target_names(target)
        if not names or year is None:
            return None
        hits: list[Reference] = []
        for ref, fams in zip(self.references, self.families, strict=True):
            if ref.year is None or str(ref.year) != year or not fams:
                continue
            if not _same_family(names[0], fams[0]):
                continue
            if len(names) >= 2 and (len(fams) < 2 or not _same_family(names[1], fams[1])):
                continue
            hits.append(ref)
        if len(hits) == 1 and (suffix is None or hits[0].year_suffix in (None, suffix)):
            return hits[0].number
        if len(hits) > 1 and suffix is not None:
            marked = [r for r in hits if r.year_suffix == suffix]
            if len(marked) == 1:
                return marked[0].number
            if all(r.year_suffix is None for r in hits):
                i = ord(suffix) - ord("a")
                return hits[i].number if 0 <= i < len(hits) else None
        return None


def _same_family(a: str, b: str) -> bool:
    """Folded family names agree, also when one carries particles the other leaves out."""
    if not a or not b:
        return False
    return a == b or a.split()[-1] == b.split()[-1]
