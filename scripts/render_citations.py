"""Render citations of real works in many styles, faithful or with one injected fault.

Each :class:`~citejudge.records.Work` becomes a set of benchmark items for the ``references``
task: one faithful rendering per applicable style (expected "Yes") and one rendering per
applicable fault (expected "No"), each fault a single change to what the record says.

Styles (rules written here, after the style guides): APA 7, MLA 9, Chicago author-date,
Harvard (Cite Them Right), IEEE, Vancouver, ACS, AIP, Elsevier (numbered, without titles),
plain ``Author. Title. Venue. Year.``, a BibTeX entry, a CSL-JSON object (``full_citation``
dict) and ``metadata`` fields.

Faults: ``wrong_year`` (±1..3), ``swapped_authors`` (adjacent, distinct people),
``title_word`` (one word replaced by a plausible other word), ``dropped_author`` (no
"et al."), ``added_author`` (a fake person), ``wrong_venue`` (another real venue of the set;
for a work known only from repositories and preprint servers, another repository: a journal
cited for it is *unverified*, not wrong, as the record cannot contradict it),
``other_doi`` (the real DOI of another work of the set), ``fabricated_doi`` (well-formed,
random), ``fabricated_title`` (new title, real authors), ``preprint_year`` (a published work
cited with its preprint's year, when the record knows a different preprint year).

Everything is deterministic given ``seed``.

    python scripts/render_citations.py --works ../shared/data/openalex/works.jsonl --out items.jsonl \
        [--per-work N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from citejudge.match.resolve import venue_side
from citejudge.match.venues import is_repository_name
from citejudge.records import Work
from citejudge.snapshot import plan_source, read_part

__all__ = [
    "DOI_STYLES",
    "FAULTS",
    "STYLES",
    "Cite",
    "Pool",
    "apply_fault",
    "cite_of",
    "generate_items",
    "initials",
    "items_for_work",
    "load_works",
    "natural",
    "render",
    "shown_authors",
    "split_name",
]

STYLES: tuple[str, ...] = (
    "apa",
    "mla",
    "chicago",
    "harvard",
    "ieee",
    "vancouver",
    "acs",
    "aip",
    "elsevier",
    "plain",
    "bibtex",
    "csl",
    "metadata",
)
#: Styles that print the DOI (the others leave it out, so the matcher must use the title).
DOI_STYLES: frozenset[str] = frozenset(
    {"apa", "chicago", "ieee", "vancouver", "acs", "elsevier", "bibtex", "csl", "metadata"}
)
#: Styles that print the title.
TITLE_STYLES: frozenset[str] = frozenset(set(STYLES) - {"elsevier"})
#: Styles that always list every author.
FULL_AUTHOR_STYLES: frozenset[str] = frozenset({"acs", "plain", "bibtex", "csl", "metadata"})
FAULTS: tuple[str, ...] = (
    "wrong_year",
    "swapped_authors",
    "title_word",
    "dropped_author",
    "added_author",
    "wrong_venue",
    "other_doi",
    "fabricated_doi",
    "fabricated_title",
    "preprint_year",
)

_PARTICLES = frozenset(
    {
        "van",
        "von",
        "de",
        "der",
        "den",
        "del",
        "della",
        "da",
        "di",
        "du",
        "do",
        "le",
        "la",
        "dos",
        "das",
        "des",
        "dei",
        "degli",
        "ten",
        "ter",
        "vander",
        "zu",
        "zur",
        "zum",
        "vom",
        "y",
    }
)
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
#: Names of organisations, not people: printed whole, never inverted or abbreviated.
_ORG_RE = re.compile(
    r"\b(?:bank|organi[sz]ation|community|group|consortium|committee|institute|society|agency|"
    r"union|council|association|team|network|programme|program|collaboration|foundation|"
    r"ministry|department|centre|center|office|commission|authority)\b",
    re.I,
)
_PREPRINT_VENUE = re.compile(r"arxiv|rxiv|ssrn|preprint|research square|repec|zenodo", re.I)
_PREPRINT_KINDS = frozenset({"preprint", "submitted", "submittedversion"})

_FAKE_GIVEN = (
    "Laura",
    "Martin",
    "Kenji",
    "Priya",
    "Tomasz",
    "Ingrid",
    "Rafael",
    "Amara",
    "Dmitri",
    "Sofia",
    "Hamid",
    "Chloe",
    "Benedikt",
    "Yuki",
    "Oluwaseun",
    "Marta",
)
_FAKE_FAMILY = (
    "Hollingsworth",
    "Kvasnicka",
    "Delacroix-Baird",
    "Okonkwo",
    "Valdivieso",
    "Lindqvist",
    "Marchetti",
    "Tanabe",
    "Whitcombe",
    "Rasmussen",
    "Abernethy",
    "Castellanos",
    "Przybylski",
    "Nakashima",
    "Oyelaran",
    "Fairbrother",
)
#: Plausible word substitutions for the ``title_word`` fault (both directions are used).
_SWAPS = (
    ("analysis", "assessment"),
    ("effect", "impact"),
    ("effects", "impacts"),
    ("study", "survey"),
    ("model", "framework"),
    ("models", "frameworks"),
    ("method", "approach"),
    ("methods", "approaches"),
    ("learning", "training"),
    ("deep", "shallow"),
    ("network", "system"),
    ("networks", "systems"),
    ("review", "overview"),
    ("evidence", "support"),
    ("conservation", "preservation"),
    ("forest", "woodland"),
    ("forests", "woodlands"),
    ("malaria", "dengue"),
    ("children", "adults"),
    ("human", "animal"),
    ("global", "regional"),
    ("national", "local"),
    ("new", "novel"),
    ("development", "evolution"),
    ("management", "governance"),
    ("climate", "weather"),
    ("tropical", "temperate"),
    ("clinical", "preclinical"),
    ("species", "populations"),
    ("diversity", "richness"),
    ("control", "prevention"),
    ("language", "speech"),
    ("understanding", "interpreting"),
    ("economic", "financial"),
    ("health", "welfare"),
    ("treatment", "therapy"),
    ("patients", "subjects"),
    ("infection", "disease"),
    ("water", "soil"),
    ("protein", "peptide"),
    ("cell", "tissue"),
    ("cells", "tissues"),
    ("risk", "hazard"),
    ("trial", "experiment"),
    ("trials", "experiments"),
    ("policy", "strategy"),
    ("africa", "asia"),
    ("african", "asian"),
    ("american", "european"),
    ("data", "records"),
    ("large", "small"),
    ("first", "second"),
    ("early", "late"),
    ("high", "low"),
    ("increased", "reduced"),
)
_GENERIC_WORDS = (
    "assessment",
    "dynamics",
    "patterns",
    "variation",
    "structure",
    "regulation",
    "distribution",
    "mechanisms",
    "determinants",
    "estimation",
    "monitoring",
    "response",
)
_TITLE_A = (
    "Adaptive",
    "Stochastic",
    "Longitudinal",
    "Comparative",
    "Hierarchical",
    "Spatial",
    "Integrated",
    "Quantitative",
    "Multiscale",
    "Robust",
)
_TITLE_B = (
    "estimation",
    "modelling",
    "monitoring",
    "characterisation",
    "assessment",
    "inference",
    "mapping",
    "profiling",
)
_TITLE_C = (
    "soil microbial communities",
    "urban heat islands",
    "coastal sediment transport",
    "household energy demand",
    "pollinator networks",
    "glacier mass balance",
    "rural labour markets",
    "antibiotic resistance genes",
    "seagrass meadows",
    "peatland carbon fluxes",
)
_TITLE_D = (
    "a field study",
    "evidence from panel data",
    "a simulation approach",
    "lessons from three decades",
    "a cross-sectional survey",
    "a Bayesian perspective",
)
_STOP = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "upon",
        "that",
        "this",
        "their",
        "between",
        "among",
        "about",
        "after",
        "before",
        "under",
        "over",
        "through",
        "within",
        "without",
    }
)


@dataclass(frozen=True)
class Cite:
    """What one citation states (possibly faulty): the fields every style renders from."""

    title: str | None
    authors: tuple[str, ...]
    year: int | None
    venue: str | None
    doi: str | None
    preprint: bool = False


@dataclass(frozen=True)
class Pool:
    """Values of the whole set that faults borrow: real venues and real DOIs, by work id."""

    venues: tuple[
        tuple[str, str, tuple[str, ...]], ...
    ]  # (work id, venue, that work's venue names)
    dois: tuple[
        tuple[str, str, str, str], ...
    ]  # (work id, DOI, folded title, authors/year/venue signature)

    @classmethod
    def of(cls, works: Iterable[Work]) -> Pool:
        """Collect venues and DOIs from ``works`` (in a stable order)."""
        ws = sorted(works, key=lambda w: w.id)
        return cls(
            tuple(
                (w.id, w.venue, tuple(x for x in [w.venue, *w.venue_alt] if x))
                for w in ws
                if w.venue
            ),
            tuple((w.id, w.doi, _fold(w.title or ""), _signature(w)) for w in ws if w.doi),
        )


def _signature(w: Work) -> str:
    """Authors, year and venue of ``w``, folded: what a title-less citation of it shows."""
    return "|".join([*(_fold(a.name) for a in w.authors), str(w.year), _fold(w.venue or "")])


# ------------------------------------------------------------------------------------- names


def split_name(name: str) -> tuple[list[str], str, str | None]:
    """``(given tokens, family, suffix)`` of a display name ("J.A.C. van Burg" → (["J.A.C."], "van Burg", None)).

    An organisation ("World Bank") is all family name.
    """
    if _ORG_RE.search(name):
        return [], name.strip(), None
    if name.count(",") == 1:
        fam_part, given_part = (x.strip() for x in name.split(","))
        if given_part.lower() not in _SUFFIXES and fam_part and given_part:
            return given_part.split(), fam_part, None
    toks = name.replace(",", " ").split()
    if not toks:
        return [], "", None
    suffix = None
    if len(toks) > 2 and toks[-1].lower() in _SUFFIXES:
        suffix = toks.pop()
    if len(toks) == 1:
        return [], toks[0], suffix
    i = len(toks) - 1
    while i - 1 >= 1 and toks[i - 1].lower() in _PARTICLES:
        i -= 1
    return toks[:i], " ".join(toks[i:]), suffix


def natural(name: str) -> str:
    """``Given Family`` order of a name (an inverted ``Family, Given`` display name is turned round)."""
    given, fam, suffix = split_name(name)
    return " ".join([*given, fam, *([suffix] if suffix else [])])


def initials(given: Sequence[str], *, dots: bool = True, space: bool = True) -> str:
    """Initials of given-name tokens: ``["Jean-Pierre", "M."]`` → ``"J.-P. M."`` (or ``"J-PM"``)."""
    out: list[str] = []
    for tok in given:
        if tok.lower() in _PARTICLES and tok.islower():
            continue  # "Juan de Dios" → "J. D."
        if tok.isalpha() and tok.isupper() and 1 < len(tok) <= 3:
            tok = ".".join(tok)  # "RD" is two initials
        for piece in (p for p in tok.split(".") if p):
            parts = [p for p in piece.split("-") if p]
            letters = [p[0].upper() for p in parts if p[0].isalpha()]
            if not letters:
                continue
            if dots:
                out.append("-".join(f"{c}." for c in letters))
            else:
                out.append("-".join(letters) if len(letters) > 1 else letters[0])
    if dots:
        return (" " if space else "").join(out)
    return "".join(out)


def _inv_initials(name: str, *, space: bool = True) -> str:
    """``Last, F. M.``."""
    given, fam, _ = split_name(name)
    ini = initials(given, space=space)
    return f"{fam}, {ini}" if ini else fam


def _initials_first(name: str, *, space: bool = True) -> str:
    """``F. M. Last``."""
    given, fam, _ = split_name(name)
    ini = initials(given, space=space)
    return f"{ini} {fam}" if ini else fam


def _vancouver(name: str) -> str:
    """``Last FM``."""
    given, fam, _ = split_name(name)
    ini = initials(given, dots=False)
    return f"{fam} {ini}" if ini else fam


def _inv_full(name: str) -> str:
    """``Last, First Middle``."""
    given, fam, suffix = split_name(name)
    if not given:
        return fam
    return f"{fam}, {' '.join(given)}" + (f", {suffix}" if suffix else "")


def _join_and(names: Sequence[str], last: str = ", and ") -> str:
    """``A``, ``A and B``, ``A, B, and C``."""
    if len(names) <= 1:
        return "".join(names)
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return ", ".join(names[:-1]) + last + names[-1]


def shown_authors(style: str, n: int) -> tuple[int, bool]:
    """How many of ``n`` authors ``style`` names, and whether it then writes "et al."."""
    limits = {
        "mla": (2, 1),
        "chicago": (10, 7),
        "harvard": (3, 1),
        "ieee": (6, 1),
        "vancouver": (6, 6),
        "aip": (10, 1),
        "elsevier": (6, 6),
    }
    if style in limits:
        most, first = limits[style]
        return (n, False) if n <= most else (first, True)
    return (
        n,
        False,
    )  # apa (≤20; 21+ uses an ellipsis and the last author), acs, plain, bibtex, csl, metadata


# ------------------------------------------------------------------------------------- styles


def _end(s: str, ch: str = ".") -> str:
    s = s.rstrip()
    return s if not s or s[-1] in ".?!" else s + ch


def _doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}"


def _apa_authors(names: Sequence[str]) -> str:
    f = [_inv_initials(n) for n in names]
    if len(f) > 20:
        return ", ".join(f[:19]) + ", . . . " + f[-1]
    if len(f) == 1:
        return f[0]
    return ", ".join(f[:-1]) + ", & " + f[-1]


def _render_apa(c: Cite) -> str:
    year = f"({c.year})" if c.year else "(n.d.)"
    parts = [f"{_end(_apa_authors(c.authors))} {year}." if c.authors else ""]
    if c.authors:
        parts.append(_end(c.title or ""))
    else:
        parts = [f"{_end(c.title or '')} {year}."]
    if c.venue:
        parts.append(_end(c.venue))
    if c.doi:
        parts.append(_doi_url(c.doi))
    return " ".join(p for p in parts if p)


def _names_list(
    c: Cite,
    style: str,
    fmt_first: Callable[[str], str],
    fmt_rest: Callable[[str], str],
    last: str = ", and ",
) -> str:
    k, et_al = shown_authors(style, len(c.authors))
    names = [fmt_first(c.authors[0])] + [fmt_rest(a) for a in c.authors[1:k]]
    if et_al:
        return ", ".join(names) + (
            ", et al." if style in {"mla", "chicago", "vancouver", "elsevier"} else " et al."
        )
    return _join_and(names, last=last)


def _render_mla(c: Cite) -> str:
    out = []
    if c.authors:
        out.append(_end(_names_list(c, "mla", _inv_full, natural)))
    out.append(f"\u201c{_end(c.title or '')}\u201d")
    tail = [x for x in (c.venue, str(c.year) if c.year else None) if x]
    if tail:
        out.append(_end(", ".join(tail)))
    return " ".join(out)


def _render_chicago(c: Cite) -> str:
    out = []
    if c.authors:
        out.append(_end(_names_list(c, "chicago", _inv_full, natural)))
    if c.year:
        out.append(f"{c.year}.")
    out.append(f"\u201c{_end(c.title or '')}\u201d")
    if c.venue:
        out.append(_end(c.venue))
    if c.doi:
        out.append(_end(_doi_url(c.doi)))
    return " ".join(out)


def _render_harvard(c: Cite) -> str:
    k, et_al = shown_authors("harvard", len(c.authors))
    names = [_inv_initials(a, space=False) for a in c.authors[:k]]
    if et_al:
        au = names[0] + " et al."
    elif len(names) > 1:
        au = ", ".join(names[:-1]) + " and " + names[-1]
    else:
        au = "".join(names)
    year = f"({c.year})" if c.year else "(no date)"
    out = [f"{au} {year}" if au else f"{_end(c.title or '')} {year}"]
    if au:
        out.append(f"\u2018{c.title}\u2019,")
    if c.venue:
        out.append(_end(c.venue))
    return " ".join(out)


def _render_ieee(c: Cite, number: int) -> str:
    out = [f"[{number}]"]
    if c.authors:
        out.append(_names_list(c, "ieee", _initials_first, _initials_first) + ",")
    out.append(f"\u201c{c.title},\u201d")
    tail = [x for x in (c.venue, str(c.year) if c.year else None) if x]
    s = " ".join(out) + " " + ", ".join(tail)
    if c.doi:
        s += f", doi: {c.doi}"
    return _end(s)


def _render_vancouver(c: Cite, number: int) -> str:
    out = [f"{number}."]
    if c.authors:
        k, et_al = shown_authors("vancouver", len(c.authors))
        out.append(", ".join(_vancouver(a) for a in c.authors[:k]) + (", et al." if et_al else "."))
    out.append(_end(c.title or ""))
    if c.venue:
        out.append(_end(c.venue))
    if c.year:
        out.append(f"{c.year}.")
    if c.doi:
        out.append(f"doi:{c.doi}")
    return " ".join(out)


def _render_acs(c: Cite) -> str:
    out = []
    if c.authors:
        out.append(_end("; ".join(_inv_initials(a) for a in c.authors)))
    out.append(_end(c.title or ""))
    tail = " ".join(x for x in (c.venue, str(c.year) if c.year else None) if x)
    if tail:
        out.append(tail + ",")
    if c.doi:
        out.append(f"DOI: {c.doi}.")
    return _end(" ".join(out).rstrip(","))


def _render_aip(c: Cite, number: int) -> str:
    out = [f"{number}"]
    if c.authors:
        out.append(_names_list(c, "aip", _initials_first, _initials_first) + ",")
    out.append(f"\u201c{c.title},\u201d")
    tail = " ".join(x for x in (c.venue, f"({c.year})" if c.year else None) if x)
    return _end(" ".join(out) + " " + tail)


def _render_elsevier(c: Cite, number: int) -> str:
    out = [f"[{number}]"]
    if c.authors:
        k, et_al = shown_authors("elsevier", len(c.authors))
        out.append(
            ", ".join(_initials_first(a, space=False) for a in c.authors[:k])
            + (", et al.," if et_al else ",")
        )
    tail = " ".join(x for x in (c.venue, f"({c.year})" if c.year else None) if x)
    s = " ".join(out) + (" " + tail if tail else "")
    s = _end(s.rstrip(","))
    if c.doi:
        s += " " + _doi_url(c.doi) + "."
    return s


def _render_plain(c: Cite) -> str:
    out = []
    if c.authors:
        out.append(_end(", ".join(natural(a) for a in c.authors)))
    out.append(_end(c.title or ""))
    if c.venue:
        out.append(_end(c.venue))
    if c.year:
        out.append(f"{c.year}.")
    return " ".join(x for x in out if x)


def _bibkey(c: Cite) -> str:
    fam = split_name(c.authors[0])[1] if c.authors else "anon"
    word = (
        re.sub(r"[^a-z]", "", fold_ascii((c.title or "x").split()[0]).lower()) if c.title else "x"
    )
    return re.sub(r"[^A-Za-z0-9]", "", fold_ascii(fam)).lower() + str(c.year or "") + word


def fold_ascii(s: str) -> str:
    """ASCII approximation (keys only)."""
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def _render_bibtex(c: Cite, work_type: str | None) -> str:
    kind = {
        "book": "book",
        "book-chapter": "incollection",
        "dissertation": "phdthesis",
        "report": "techreport",
    }.get(work_type or "", "article")
    venue_field = {
        "article": "journal",
        "incollection": "booktitle",
        "phdthesis": "school",
        "techreport": "institution",
        "book": "publisher",
    }[kind]
    fields: list[tuple[str, str]] = []
    if c.authors:
        fields.append(("author", " and ".join(_inv_full(a) for a in c.authors)))
    if c.title:
        fields.append(("title", "{" + c.title + "}"))
    if c.venue:
        fields.append((venue_field, c.venue))
    if c.year:
        fields.append(("year", str(c.year)))
    if c.doi:
        fields.append(("doi", c.doi))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@{kind}{{{_bibkey(c)},\n{body}\n}}"


def _render_csl(c: Cite, work_type: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": _bibkey(c),
        "type": {
            "book": "book",
            "book-chapter": "chapter",
            "dissertation": "thesis",
            "report": "report",
        }.get(work_type or "", "article-journal"),
    }
    if c.title:
        item["title"] = c.title
    if c.authors:
        names = []
        for a in c.authors:
            given, fam, suffix = split_name(a)
            d: dict[str, str] = {"family": fam}
            if given:
                d["given"] = " ".join(given)
            if suffix:
                d["suffix"] = suffix
            names.append(d)
        item["author"] = names
    if c.year:
        item["issued"] = {"date-parts": [[c.year]]}
    if c.venue:
        item["container-title"] = c.venue
    if c.doi:
        item["DOI"] = c.doi
    return item


def _render_metadata(c: Cite) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if c.title:
        meta["title"] = c.title
    if c.authors:
        meta["authors"] = list(c.authors)
    if c.year:
        meta["year"] = c.year
    if c.venue:
        meta["venue"] = c.venue
    if c.doi:
        meta["doi"] = c.doi
    return meta


def render(
    c: Cite, style: str, *, number: int = 1, work_type: str | None = None
) -> str | dict[str, Any]:
    """Render ``c`` in ``style`` (a string, or a dict for ``csl`` and ``metadata``)."""
    if style == "apa":
        return _render_apa(c)
    if style == "mla":
        return _render_mla(c)
    if style == "chicago":
        return _render_chicago(c)
    if style == "harvard":
        return _render_harvard(c)
    if style == "ieee":
        return _render_ieee(c, number)
    if style == "vancouver":
        return _render_vancouver(c, number)
    if style == "acs":
        return _render_acs(c)
    if style == "aip":
        return _render_aip(c, number)
    if style == "elsevier":
        return _render_elsevier(c, number)
    if style == "plain":
        return _render_plain(c)
    if style == "bibtex":
        return _render_bibtex(c, work_type)
    if style == "csl":
        return _render_csl(c, work_type)
    if style == "metadata":
        return _render_metadata(c)
    raise ValueError(f"unknown style {style!r}; known: {', '.join(STYLES)}")


# ------------------------------------------------------------------------------------- faults


def cite_of(work: Work, *, raw_names: bool = False) -> Cite:
    """The faithful citation of ``work`` (display names, or the names as printed when asked)."""
    names = tuple((a.raw_name or a.name) if raw_names else a.name for a in work.authors)
    return Cite(work.title, tuple(n for n in names if n.strip()), work.year, work.venue, work.doi)


def _fold(s: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", fold_ascii(s).casefold())


def _match_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _title_word(title: str, rng: random.Random) -> str | None:
    toks = title.split(" ")
    swaps: dict[str, str] = {}
    for a, b in _SWAPS:
        swaps.setdefault(a, b)
        swaps.setdefault(b, a)
    cands = []
    for i, t in enumerate(toks):
        m = re.fullmatch(r"([^\w<]*)([A-Za-z]{4,})([^\w>]*)", t)
        if m and m.group(2).lower() not in _STOP:
            cands.append((m.group(2).lower() in swaps, i, m))
    if not cands:
        return None
    preferred = [c for c in cands if c[0]] or cands
    _, i, m = rng.choice(preferred)
    word = m.group(2)
    new = swaps.get(word.lower()) or rng.choice([w for w in _GENERIC_WORDS if w != word.lower()])
    toks[i] = m.group(1) + _match_case(new, word) + m.group(3)
    out = " ".join(toks)
    return out if _fold(out) != _fold(title) else None


def _fake_author(rng: random.Random, existing: Sequence[str]) -> str:
    fams = {_fold(split_name(a)[1]) for a in existing}
    while True:
        name = f"{rng.choice(_FAKE_GIVEN)} {rng.choice(_FAKE_FAMILY)}"
        if _fold(split_name(name)[1]) not in fams:
            return name


def _person_key(name: str) -> str:
    given, fam, _ = split_name(name)
    return _fold(fam) + "|" + _fold(initials(given, dots=False)[:1])


def _fabricated_title(rng: random.Random) -> str:
    return (
        f"{rng.choice(_TITLE_A)} {rng.choice(_TITLE_B)} of {rng.choice(_TITLE_C)}: "
        f"{rng.choice(_TITLE_D)}"
    )


def _words(s: str) -> list[str]:
    return sorted(re.findall(r"[0-9a-z]+", fold_ascii(s).casefold()))


def _venues_differ(a: str, names: Sequence[str]) -> bool:
    # (the same words in another order are the same venue: "World Bank, Washington, DC eBooks")
    fa = _fold(a)
    return all(
        fa and _fold(n) and fa not in _fold(n) and _fold(n) not in fa and _words(a) != _words(n)
        for n in names
    )


def apply_fault(work: Work, c: Cite, fault: str, rng: random.Random, pool: Pool) -> Cite | None:
    """``c`` with ``fault`` injected (one change), or None when the fault does not apply to ``work``."""
    n = len(c.authors)
    if fault == "wrong_year":
        if c.year is None:
            return None
        taken = {work.year, *(v.year for v in work.versions)}
        opts = [
            c.year + d
            for d in (-3, -2, -1, 1, 2, 3)
            if c.year + d not in taken and c.year + d <= 2025
        ]
        return replace(c, year=rng.choice(opts)) if opts else None
    if fault == "swapped_authors":
        pairs = [
            i for i in range(n - 1) if _person_key(c.authors[i]) != _person_key(c.authors[i + 1])
        ]
        if not pairs:
            return None
        i = rng.choice(pairs[:6])  # within what every style shows when possible
        a = list(c.authors)
        a[i], a[i + 1] = a[i + 1], a[i]
        return replace(c, authors=tuple(a))
    if fault == "title_word":
        t = _title_word(c.title, rng) if c.title else None
        return replace(c, title=t) if t else None
    if fault == "dropped_author":
        if n < 2:
            return None
        i = rng.randrange(n)
        # dropping one of several identical (duplicated) authorships may leave the list equal
        return replace(c, authors=c.authors[:i] + c.authors[i + 1 :])
    if fault == "added_author":
        if n < 1:
            return None
        i = rng.randrange(n + 1)
        return replace(c, authors=(*c.authors[:i], _fake_author(rng, c.authors), *c.authors[i:]))
    if fault == "wrong_venue":
        if not c.venue:
            return None
        own = [x for x in [work.venue, *work.venue_alt] if x]
        venues = sorted(
            {v for wid, v, _ in pool.venues if wid != work.id and _venues_differ(v, own)}
        )
        if not venues:
            return None
        pick = rng.choice(venues)
        if venue_side(work) is False:
            # a work known only from repositories can be contradicted only by another repository
            # (picked without another draw: every other item stays as it was)
            repositories = [v for v in venues if is_repository_name(v)]
            if not repositories:
                return None
            pick = repositories[venues.index(pick) % len(repositories)]
        return replace(c, venue=pick)
    if fault == "other_doi":
        # another work's DOI, from a work a reader could tell apart (not a duplicate record of this one)
        title, sig = _fold(work.title or ""), _signature(work)
        dois = [
            d
            for wid, d, t, g in pool.dois
            if wid != work.id and d != work.doi and t != title and g != sig
        ]
        return replace(c, doi=rng.choice(dois)) if dois else None
    if fault == "fabricated_doi":
        prefix = rng.randrange(1000, 99999)
        suffix = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10))
        return replace(c, doi=f"10.{prefix}/{suffix[:4]}.{suffix[4:]}")
    if fault == "fabricated_title":
        if not c.title:
            return None
        return replace(c, title=_fabricated_title(rng))
    if fault == "preprint_year":
        if (
            (work.type or "") == "preprint"
            or not c.venue
            or _PREPRINT_VENUE.search(c.venue)
            or c.year is None
        ):
            return None
        published = {
            work.year,
            *(v.year for v in work.versions if (v.kind or "").lower() not in _PREPRINT_KINDS),
        }
        pre = sorted(
            {v.year for v in work.versions if v.year and (v.kind or "").lower() in _PREPRINT_KINDS}
            - published
        )
        return replace(c, year=pre[0]) if pre else None
    raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")


# ------------------------------------------------------------------------------------- items


def _style_ok(style: str, c: Cite) -> bool:
    """Whether ``style`` can render a citation of ``c`` that the world can check."""
    if style == "elsevier":
        return bool(c.doi)  # no title: only the DOI can identify the work
    if not c.title:
        return style in {"csl", "metadata"} and bool(c.doi)
    return True


def _fault_styles(fault: str, c: Cite, bad: Cite, work_type: str | None) -> list[str]:
    styles = [s for s in STYLES if _style_ok(s, c)]
    if fault in {"other_doi", "fabricated_doi"}:
        styles = [s for s in styles if s in DOI_STYLES]
    if fault in {"title_word", "fabricated_title"}:
        styles = [s for s in styles if s in TITLE_STYLES]
    if fault in {"dropped_author", "added_author"}:
        styles = [
            s
            for s in styles
            if not shown_authors(s, len(bad.authors))[1]
            and not (s == "apa" and len(bad.authors) > 20)
        ]
    return [
        s
        for s in styles
        if render(c, s, work_type=work_type) != render(bad, s, work_type=work_type)
    ]


def _item(work: Work, style: str, c: Cite, fault: str | None, number: int) -> dict[str, Any]:
    body = render(c, style, number=number, work_type=work.type)
    item: dict[str, Any] = {"id": f"{work.id}-{style}-{fault or 'ok'}"}
    item["metadata" if style == "metadata" else "full_citation"] = body
    item.update(
        {"expect": "No" if fault else "Yes", "fault": fault, "style": style, "work_id": work.id}
    )
    return item


def items_for_work(
    work: Work, pool: Pool, seed: int = 0, per_work: int | None = None
) -> list[dict[str, Any]]:
    """Faithful renderings in every applicable style and one rendering per applicable fault."""
    rng = random.Random(f"{seed}:{work.id}")
    out: list[dict[str, Any]] = []
    base = cite_of(work)
    raw = cite_of(work, raw_names=True)
    for style in STYLES:
        if _style_ok(style, base):
            # the plain style prints names as the record printed them (raw_author_name)
            out.append(
                _item(work, style, raw if style == "plain" else base, None, rng.randrange(1, 60))
            )
    for fault in FAULTS:
        bad = apply_fault(work, base, fault, rng, pool)
        if bad is None:
            continue
        styles = _fault_styles(fault, base, bad, work.type)
        if not styles:
            continue
        out.append(_item(work, rng.choice(styles), bad, fault, rng.randrange(1, 60)))
    if per_work is not None and len(out) > per_work:
        out = sorted(rng.sample(out, per_work), key=out.index)
    return out


def load_works(path: Path) -> list[Work]:
    """Every :class:`Work` of a world source (a works.jsonl, a snapshot directory ...)."""
    plan = plan_source(path)
    return [w for part in plan.parts for w in read_part(part) if isinstance(w, Work)]


def generate_items(
    works: Sequence[Work], seed: int = 0, per_work: int | None = None
) -> list[dict[str, Any]]:
    """Benchmark items for ``works`` (deterministic for a given ``seed``)."""
    pool = Pool.of(works)
    return [
        it
        for w in sorted(works, key=lambda w: w.id)
        for it in items_for_work(w, pool, seed, per_work)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: write the items as JSONL."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--works", type=Path, required=True, help="OpenAlex works (.jsonl) or any world source"
    )
    ap.add_argument("--out", type=Path, required=True, help="items JSONL to write")
    ap.add_argument("--per-work", type=int, default=None, help="at most N items per work (sampled)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    items = generate_items(load_works(args.works), args.seed, args.per_work)
    args.out.write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
