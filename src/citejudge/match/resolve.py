"""Find the work a citation refers to, then validate every stated field against it.

Search-based matching with validation (as Crossref's SBMV and biblio-glutton do):

1. identifiers first (DOI, arXiv, PMID, PMCID, OpenAlex id) — exact lookups;
2. otherwise candidates from the index: exact normalised-title key, then Tantivy retrieval on
   the title (or on the whole citation string when no title could be read);
3. candidates scored with rapidfuzz on folded titles plus author / year / venue agreement;
   nothing below the validation threshold matches; ties are broken by (score, id);
4. the chosen record is validated field by field (:func:`validate`), each field with its own
   reason. The verdict is "Yes" only when every stated field matches.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import msgspec
from rapidfuzz import fuzz

from citejudge.ids import (
    arxiv_from_doi,
    extract_arxiv,
    extract_dois,
    extract_openalex,
    extract_pmcid,
    extract_pmid,
    extract_publisher_dois,
)
from citejudge.match.citation import CitedWork
from citejudge.match.fields import compare_title, compare_year
from citejudge.match.names import compare_authors, family_keys
from citejudge.match.normalize import title_key
from citejudge.match.venues import (
    compare_venue,
    is_book_series,
    is_repository_doi,
    is_repository_name,
    is_venue_name,
    venue_tokens,
)
from citejudge.readers.freetext import split_author_string
from citejudge.records import HOST_KIND, Redirect, Work
from citejudge.text.normalize import fold

__all__ = [
    "ACCEPT_TITLE",
    "Candidate",
    "FieldResult",
    "Resolution",
    "Verdict",
    "WorldLookup",
    "check_citation",
    "family_of",
    "ids_from_urls",
    "record_ids",
    "resolve",
    "same_family",
    "title_in_text",
    "validate",
    "validate_family",
    "venue_names",
    "venue_side",
]

#: A title-retrieved candidate is taken as the intended work only from this folded-title
#: similarity up (rapidfuzz ``fuzz.ratio`` on :func:`fold`-ed titles, 0-100) ...
ACCEPT_TITLE = 90.0
#: ... or from this one when the first author's family name or the year also agrees.
ACCEPT_TITLE_WITH_SUPPORT = 75.0
#: Candidates retrieved per query.
TOP_K = 10


class WorldLookup(Protocol):
    """What the resolver needs from an index (``citejudge.index.WorldIndex`` implements it)."""

    def get(self, work_id: str) -> Work | None: ...  # noqa: D102
    def redirect(self, work_id: str) -> Redirect | None: ...  # noqa: D102
    def follow(self, work_id: str) -> tuple[Work | None, list[str]]: ...  # noqa: D102
    def by_doi(self, doi: str) -> list[Work]: ...  # noqa: D102
    def by_pmid(self, pmid: str) -> list[Work]: ...  # noqa: D102
    def by_pmcid(self, pmcid: str) -> list[Work]: ...  # noqa: D102
    def by_arxiv(self, arxiv: str) -> list[Work]: ...  # noqa: D102
    def by_title_key(self, key: str) -> list[Work]: ...  # noqa: D102
    def search_title(self, text: str, k: int = 10) -> list[tuple[str, float]]: ...  # noqa: D102
    def get_many(self, ids: list[str]) -> list[Work]: ...  # noqa: D102


@dataclass
class Candidate:
    """A record considered for a citation, with the evidence for it."""

    work: Work
    title_score: float
    author_agrees: bool
    year_agrees: bool
    score: float
    via: str
    #: whole-string retrieval only: the record's title occurs in the citation text (modulo case,
    #: punctuation, whitespace, markup and diacritics).
    title_in_text: bool = False

    def brief(self) -> dict[str, Any]:
        """Short description for ``details`` and ambiguity messages."""
        return {
            "id": self.work.id,
            "title": self.work.title,
            "year": self.work.year,
            "first_author": self.work.authors[0].name if self.work.authors else None,
            "score": round(self.score, 2),
            "via": self.via,
        }


@dataclass
class Resolution:
    """Outcome of resolving a citation to a record."""

    status: str  # "matched" | "not_found" | "ambiguous" | "id_conflict" | "nothing_stated"
    work: Work | None = None
    method: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    identifiers: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    message: str | None = None
    #: the matched record first, then the other records of its version family
    family: list[Work] = field(default_factory=list)


@dataclass
class FieldResult:
    """One validated field: what the citation says, what the record says, and the verdict."""

    field: str
    ok: bool
    cited: Any
    record: Any
    reason: str
    #: the record (family member) this field was checked against, when not the matched one
    member: str | None = None
    #: a stated identifier that no record contradicts and none confirms (see UNVERIFIABLE_KINDS)
    unverified: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for ``details``."""
        d = {
            "field": self.field,
            "ok": self.ok,
            "cited": self.cited,
            "record": self.record,
            "reason": self.reason,
        }
        if self.member:
            d["member"] = self.member
        if self.unverified:
            d["unverified"] = True
        return d


@dataclass
class Verdict:
    """Reference-grounding verdict: ``grounded`` and a one-line explanation."""

    grounded: bool
    explanation: str
    resolution: Resolution
    fields: list[FieldResult] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        """What explains the verdict, for the output line's ``details``."""
        res = self.resolution
        match: dict[str, Any] = {
            "status": res.status,
            "work_id": res.work.id if res.work else None,
            "method": res.method,
            "identifiers": res.identifiers,
            "notes": res.notes,
        }
        if len(res.family) > 1:
            match["family"] = [w.id for w in res.family]
        out: dict[str, Any] = {
            "match": match,
            "fields": [f.to_dict() for f in self.fields],
            "candidates": [c.brief() for c in res.candidates[:5]],
        }
        unverified = [f.field for f in self.fields if f.unverified]
        if unverified:
            out["unverified"] = unverified
        return out


# --------------------------------------------------------------------------- helpers


def record_ids(work: Work) -> dict[str, set[str]]:
    """Every identifier a record (and its versions) carries, by kind."""
    dois = {work.doi} if work.doi else set()
    arx = {work.arxiv} if work.arxiv else set()
    for v in work.versions:
        if v.doi:
            dois.add(v.doi)
        if v.arxiv:
            arx.add(v.arxiv)
    for d in list(dois):
        a = arxiv_from_doi(d)
        if a:
            arx.add(a)
    return {
        "doi": dois,
        "arxiv": arx,
        "pmid": {work.pmid} if work.pmid else set(),
        "pmcid": {work.pmcid} if work.pmcid else set(),
        "openalex": {work.id} if work.id.startswith("W") else set(),
    }


#: Source kinds that name where a record came from, not where the work appeared ("DataCite API").
_NOT_VENUE_KINDS = frozenset({"metadata"})


def venue_names(work: Work) -> list[str]:
    """The record's venue names that name a venue: ``venue`` then ``venue_alt``.

    Left out: URLs (a PDF link as the "source name"), placeholders ("(No Title)"), names without
    a letter, and metadata sources ("DataCite API"). A record with none of them has no venue.
    """
    kinds = work.venue_kinds
    return [
        n
        for n in (work.venue, *work.venue_alt)
        if n and is_venue_name(n) and (not kinds or kinds.get(n) not in _NOT_VENUE_KINDS)
    ]


def _is_repository(name: str, work: Work) -> bool:
    """``name`` (one of the record's venue names) is a repository or preprint server.

    The source type the world gives decides; a name without one is judged by name.
    """
    kind = work.venue_kinds.get(name)
    return kind == "repository" if kind is not None else is_repository_name(name)


def venue_side(work: Work) -> bool | None:
    """What the record's venues can say about a cited venue.

    True: it names a venue a cited one is compared with (a journal, proceedings, a book's
    platform or series). False: every venue it names is a repository or preprint server (a
    record known only through arXiv counts as arXiv), so a journal or conference it does not
    name may still be where the work was published. None: it names no venue at all.
    Host organisations and publishers count for neither.
    """
    names = [n for n in venue_names(work) if work.venue_kinds.get(n) != HOST_KIND]
    if not names:
        if record_ids(work)["arxiv"] and not (work.type or "").startswith(
            ("journal", "article-journal")
        ):
            return False
        return None
    return not all(_is_repository(n, work) for n in names)


def _cites_repository_copy(cited: CitedWork, work: Work) -> bool:
    """The citation states the DOI of a repository's copy (an arXiv, bioRxiv, SSRN DOI...).

    A DOI names one registered version: a citation giving the preprint's DOI cites that copy,
    whose venue is its server; it cannot be another venue's unverified copy.
    """
    repo_dois = {
        v.doi for v in work.versions if v.doi and v.venue and _is_repository(v.venue, work)
    }
    return any(is_repository_doi(d) or d in repo_dois for d in cited.doi)


def _score(cited: CitedWork, work: Work, ctitle: str | None, via: str) -> Candidate:
    tscore = 0.0
    if ctitle and work.title:
        tscore = fuzz.ratio(ctitle, fold(work.title), processor=None, score_cutoff=0)
    fams = family_keys(cited.authors[0]) if cited.authors else frozenset()
    author_agrees = bool(fams) and any(
        not fams.isdisjoint(family_keys(a.name))
        or (a.raw_name and not fams.isdisjoint(family_keys(a.raw_name)))
        for a in work.authors[:3]
    )
    year_agrees = (
        cited.year is not None
        and work.year is not None
        and (cited.year == work.year or any(v.year == cited.year for v in work.versions))
    )
    score = tscore + (6.0 if author_agrees else 0.0) + (3.0 if year_agrees else 0.0)
    # The venue only breaks near-ties between plausible candidates; skip its cost otherwise.
    if (
        cited.venue
        and work.venue
        and (ctitle is None or tscore >= ACCEPT_TITLE_WITH_SUPPORT)
        and compare_venue(cited.venue, venue_names(work)).status == "match"
    ):
        score += 1.0
    return Candidate(work, tscore, author_agrees, year_agrees, score, via)


def _acceptable(c: Candidate, has_title: bool) -> bool:
    if not has_title:
        # whole-string retrieval: the record's title must occur in the citation text (a similar
        # string is not enough: a fabricated title by real authors would pass), plus author and
        # year agreement
        return c.author_agrees and c.year_agrees and c.title_in_text
    if c.title_score >= ACCEPT_TITLE:
        return True
    return c.title_score >= ACCEPT_TITLE_WITH_SUPPORT and (c.author_agrees or c.year_agrees)


#: Years a preprint and its published copy may lie apart and still be one version family.
FAMILY_YEAR_WINDOW = 3
#: Leading authors compared (in order) to put two records in one family.
FAMILY_AUTHORS = 5
#: Identifier kinds a record often lacks though the work has one: a stated id of these kinds
#: that resolves to no work and that no family member contradicts is "unverified", not a
#: mismatch (unless ``strict_identifiers``). DOIs stay strict: see the README ("How strict").
UNVERIFIABLE_KINDS = ("arxiv", "pmid", "pmcid")
_ID_FIELDS = frozenset({"doi", "arxiv", "pmid", "pmcid", "openalex"})


def same_family(a: Work, b: Work) -> bool:
    """Two records of one work: preprint and published copies, or duplicates.

    Same normalised title, years at most :data:`FAMILY_YEAR_WINDOW` apart, the same leading
    authors in the same order (transliterated names agree), and no PMID, PMCID or arXiv id that
    differs. A record without authors (a common OpenAlex duplicate of books and reports) does
    not contradict one with authors: same title and year then suffice.
    """
    if a.id == b.id:
        return True
    ka = title_key(a.title)
    if ka is None or ka != title_key(b.title):
        return False
    if a.year is not None and b.year is not None and abs(a.year - b.year) > FAMILY_YEAR_WINDOW:
        return False
    for kind in ("pmid", "pmcid", "arxiv"):
        x, y = getattr(a, kind), getattr(b, kind)
        if x and y and x != y:
            return False
    if not a.authors or not b.authors:
        return a.year == b.year
    n = min(len(a.authors), len(b.authors), FAMILY_AUTHORS)
    return all(
        not family_keys(x.name).isdisjoint(family_keys(y.name))
        for x, y in zip(a.authors[:n], b.authors[:n], strict=True)
    )


def _add_venue_aliases(works: list[Work], world: WorldLookup) -> None:
    """Extend each record's venue names with the other names its venues have in the Sources entity."""
    aliases = getattr(world, "venue_aliases", None)
    if aliases is None or not getattr(world, "has_venue_aliases", True):
        return
    for w in works:
        names = [n for n in [w.venue, *w.venue_alt] if n]
        extra: dict[str, str | None] = {}  # alias -> the kind of the name it is an alias of
        for n in names:
            for a in aliases(n):
                if a not in names and a not in extra:
                    extra[a] = w.venue_kinds.get(n)
        if extra:
            w.venue_alt = [*w.venue_alt, *extra]
            kinds = {a: k for a, k in extra.items() if k and a not in w.venue_kinds}
            if kinds:
                w.venue_kinds = {**w.venue_kinds, **kinds}


def family_of(work: Work, world: WorldLookup, known: list[Work] | None = None) -> list[Work]:
    """``work`` first, then every other record of its version family (by id)."""
    members: dict[str, Work] = {}
    key = title_key(work.title)
    pool = list(known or [])
    rows = getattr(world, "title_key_rows", None)
    if key and (rows is None or rows(key) > 1):  # (one row: the work alone has this title)
        ids_of = getattr(world, "ids_by_title_key", None)
        if ids_of is None:
            pool += world.by_title_key(key)
        else:  # decode only records not at hand (most titles have one record)
            have = {w.id for w in pool} | {work.id}
            pool += world.get_many([i for i in ids_of(key) if i not in have])
    for w in pool:
        if w.id != work.id and w.id not in members and same_family(work, w):
            members[w.id] = w
    family = [work, *sorted(members.values(), key=lambda w: w.id)]
    _add_venue_aliases(family, world)
    return family


def title_in_text(title: str | None, text_key: str) -> bool:
    """Whether ``title``'s :func:`title_key` occurs in ``text_key`` (a title key of a whole string)."""
    key = title_key(title)
    return key is not None and len(key) >= 4 and key in text_key


# --------------------------------------------------------------------------- resolve


def _id_lookups(cited: CitedWork, world: WorldLookup, res: Resolution) -> dict[str, Work]:
    """Look up every stated identifier; returns work id → work for all hits."""
    hits: dict[str, Work] = {}
    queries: list[tuple[str, str]] = [("doi", d) for d in cited.doi]
    if cited.arxiv:
        queries.append(("arxiv", cited.arxiv))
    if cited.pmid:
        queries.append(("pmid", cited.pmid))
    if cited.pmcid:
        queries.append(("pmcid", cited.pmcid))
    for kind, value in queries:
        works = getattr(world, f"by_{kind}")(value)
        res.identifiers[f"{kind}:{value}"] = [w.id for w in works]
        for w in works:
            hits.setdefault(w.id, w)
    if cited.openalex:
        work, chain = world.follow(cited.openalex)
        res.identifiers[f"openalex:{cited.openalex}"] = [work.id] if work else []
        if len(chain) > 1:
            res.notes.append(f"{cited.openalex} was merged into {chain[-1]}")
        if work is None:
            red = world.redirect(chain[-1])
            if red is not None and red.target is None:
                res.notes.append(f"{chain[-1]} was deleted from OpenAlex")
        if work is not None:
            hits.setdefault(work.id, work)
    return hits


def _title_candidates(cited: CitedWork, world: WorldLookup) -> list[Candidate]:
    ctitle = fold(cited.title) if cited.title else None
    seen: dict[str, Candidate] = {}
    raw_fold = fold(cited.raw[:2000]) if ctitle is None else ""
    raw_key = raw_fold.replace(" ", "")
    if cited.title:
        key = title_key(cited.title)
        if key:
            for w in world.by_title_key(key):
                seen[w.id] = _score(cited, w, ctitle, "title_key")
        # Works whose folded title equals the cited one outrank every other title, and all of
        # them are here (ties included): full-text retrieval could only add lower candidates.
        query = cited.title if not seen else ""
    else:
        query = cited.raw[:600]
    if query and query.strip():
        ids = [wid for wid, _ in world.search_title(query, k=TOP_K) if wid not in seen]
        for w in world.get_many(ids):
            if ctitle is None:
                # No title was parsed: score the record title against the whole string by
                # partial alignment (the title is a substring of the citation string).
                c = _score(cited, w, None, "string_search")
                if w.title:
                    c.title_in_text = title_in_text(w.title, raw_key)
                    c.title_score = (
                        100.0
                        if c.title_in_text
                        else fuzz.partial_ratio(
                            fold(w.title), raw_fold, processor=None, score_cutoff=0
                        )
                    )
                    c.score += c.title_score
                seen[w.id] = c
            else:
                seen[w.id] = _score(cited, w, ctitle, "title_search")
    return sorted(seen.values(), key=lambda c: (-c.score, c.work.id))


def _title_tail_candidates(cited: CitedWork, world: WorldLookup) -> list[Candidate]:
    """Exact-title candidates for the text after each ". " of the parsed title (longest first)."""
    assert cited.title is not None
    title = cited.title
    for m in re.finditer(r"\.\s+", title):
        tail = title[m.end() :]
        key = title_key(tail)
        if not key or len(tail.split()) < 2:
            continue
        works = world.by_title_key(key)
        if works:
            found = [_score(cited, w, fold(tail), "title_key") for w in works]
            ok = [c for c in found if _acceptable(c, True) and (c.author_agrees or c.year_agrees)]
            return sorted(ok, key=lambda c: (-c.score, c.work.id))
    return []


def ids_from_urls(cited: CitedWork) -> CitedWork:
    """Identifiers written as URLs become stated ids.

    doi.org, arXiv, PubMed, PMC, OpenAlex, and the publishers' addresses that spell a DOI out
    (``nature.com/articles/nature14539``: :func:`~citejudge.ids.extract_publisher_dois`).
    """
    if not cited.urls:
        return cited
    joined = " ".join(cited.urls)
    for d in extract_dois(joined) + extract_publisher_dois(joined):
        if d not in cited.doi:
            cited.doi.append(d)
    cited.arxiv = cited.arxiv or extract_arxiv(joined)
    cited.pmid = cited.pmid or extract_pmid(joined)
    cited.pmcid = cited.pmcid or extract_pmcid(joined)
    cited.openalex = cited.openalex or extract_openalex(joined)
    return cited


def resolve(cited: CitedWork, world: WorldLookup) -> Resolution:
    """Find the one record ``cited`` refers to, or say why there is none."""
    ids_from_urls(cited)
    res = Resolution(status="not_found")
    stated = cited.states_work()
    if not stated:
        res.status = "nothing_stated"
        res.message = "the citation states no identifier, title or author to look up"
        return res

    hits = _id_lookups(cited, world, res)
    if hits:
        works = sorted(hits.values(), key=lambda w: w.id)
        distinct: list[Work] = []
        for w in works:
            if not any(same_family(w, d) for d in distinct):
                distinct.append(w)
        ctitle = fold(cited.title) if cited.title else None
        cands = sorted(
            (_score(cited, w, ctitle, "identifier") for w in works),
            key=lambda c: (-c.score, c.work.id),
        )
        res.candidates = cands
        if len(distinct) > 1:
            # Several identifiers (or one shared DOI) point at different works.
            id_map = {k: v for k, v in res.identifiers.items() if v}
            if len({tuple(v) for v in id_map.values()}) > 1:
                res.status = "id_conflict"
                res.message = "identifiers resolve to different works: " + "; ".join(
                    f"{k} → {', '.join(v)}" for k, v in sorted(id_map.items())
                )
                return res
            best = cands[0]
            if (
                len(cands) > 1
                and cands[1].score >= best.score - 1e-9
                and not same_family(cands[1].work, best.work)
            ):
                res.status = "ambiguous"
                res.message = "the identifier is shared by several works: " + ", ".join(
                    c.work.id for c in cands[:5]
                )
                return res
        res.status, res.work, res.method = "matched", cands[0].work, cands[0].via
        kinds = sorted({k.split(":", 1)[0] for k, v in res.identifiers.items() if v})
        res.method = "+".join(kinds) or "identifier"
        res.family = family_of(cands[0].work, world, works)
        return res

    # No identifier resolved: fall back to the title (or the whole string).
    cands = _title_candidates(cited, world)
    res.candidates = cands
    has_title = cited.title is not None
    accepted = [c for c in cands if _acceptable(c, has_title)]
    if not accepted and cited.form == "string" and cited.title and ". " in cited.title:
        # names the author splitter missed lead the parsed title ("M. KALACSKA, J. P. RODRÍGUEZ.
        # Need for Integrated Research…"): look up what follows each full stop, exact titles only
        accepted = _title_tail_candidates(cited, world)
        if accepted:
            res.candidates = accepted + [
                c for c in cands if c.work.id not in {a.work.id for a in accepted}
            ]
    if not accepted:
        res.status = "not_found"
        if any(res.identifiers.values()) is False and res.identifiers:
            res.notes.append("no stated identifier is in the world")
        if cands:
            best = cands[0]
            res.message = (
                f"no record matches; the closest title is {best.work.id} "
                f"'{(best.work.title or '')[:90]}' (similarity {best.title_score:.0f})"
            )
        else:
            res.message = "no record in the world has a similar title"
        return res
    best = accepted[0]
    rivals = [
        c
        for c in accepted[1:]
        if c.score >= best.score - 1e-9 and not same_family(c.work, best.work)
    ]
    if rivals:
        res.status = "ambiguous"
        res.message = "several records fit equally well: " + "; ".join(
            f"{c.work.id} ({c.work.year}, {c.work.authors[0].name if c.work.authors else 'no authors'})"
            for c in [best, *rivals][:5]
        )
        return res
    res.status, res.work, res.method = "matched", best.work, best.via
    res.family = family_of(best.work, world, [c.work for c in accepted])
    return res


# --------------------------------------------------------------------------- validate


def _regroup_authors_into_title(cited: CitedWork, work: Work) -> CitedWork:
    """Undo a parse that left the end of the author list in the title, if the record explains it.

    Corporate and all-caps authors ("World Bank. Title…", "CARLOS E. YOUNG. Title…") or a name
    the author splitter stopped before ("R. E. Grumbine, Jianchu Xu. Title…") end up at the start
    of the parsed title. When the parsed title is "<words>. <the record's title>" and the cited
    authors plus <words>, read as an author list, match the record's authors in order, the
    citation is read that way. Nothing is taken from the record: both fields are still checked.
    """
    if cited.form != "string" or not cited.title or not work.title or not work.authors:
        return cited
    if compare_title(cited.title, work.title).ok:
        return cited
    parts = re.split(r"(?<=[^\s.]{2}[.])\s+|(?<=\b[A-Z][.])\s+(?=[A-Z0-9“\"'\[(])", cited.title)
    for k in range(1, min(len(parts), 4)):
        rest = " ".join(parts[k:])
        if not compare_title(rest, work.title).ok:
            continue
        extra = split_author_string(" ".join(parts[:k]).rstrip("."))
        names = [*cited.authors, *extra] if extra else []
        if names and compare_authors(names, cited.et_al, work.authors).ok:
            return msgspec.structs.replace(cited, title=rest, authors=names)
    return cited


def _regroup_title_venue(cited: CitedWork, work: Work) -> CitedWork:
    """Move the title/venue boundary of a parsed string when the record shows where it is.

    A title with an inner full stop ("… Travancore. Records of the Malaria. Survey of India") or
    a venue with one ("Annals of the Entomol. Society") is cut at the wrong place by any parser.
    When the parsed title and venue, read together, are exactly the record's title and one of
    its venue names read together (modulo case, punctuation and spacing), the citation states
    exactly those words and is read that way.
    """
    if cited.form != "string" or not work.title or not (cited.title or cited.venue):
        return cited
    both = (title_key(cited.title) or "") + (title_key(cited.venue) or "")
    tkey = title_key(work.title) or ""
    if not both.startswith(tkey) or both == tkey:
        return cited
    if cited.title and cited.venue and compare_title(cited.title, work.title).ok:
        return cited
    for name in venue_names(work):
        if both == tkey + (title_key(name) or ""):
            return msgspec.structs.replace(cited, title=work.title, venue=name)
    return cited


@lru_cache(maxsize=1 << 12)
def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """The folded words in order, anything but letters and digits between them."""
    return re.compile(r"(?<![^\W_])" + r"[\W_]+".join(map(re.escape, words)) + r"(?![^\W_])")


_LEAD_NUMBER = re.compile(r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,4}\s*[.)]?)\s+")


def _regroup_title_out_of_authors(
    cited: CitedWork, work: Work, authors_ok: bool | None = None
) -> CitedWork:
    """Read the author list again when a short title was taken for a name.

    "Lemel J. Editorial. Wildlife Biology. 2003." or "Harris, P. G. Environmental Change and Foreign
    Policy. 2009." leave no title and put title words into the author list. When no title was
    parsed, the record's title occurs in the text, and the text before it, read as an author
    list, is the record's author list (or is empty for a record without authors), the citation
    is read that way. An author-less record cited by its venue ("JAMA (1978)") likewise.
    """
    if cited.form != "string" or not cited.authors:
        return cited
    if cited.title and work.title and compare_title(cited.title, work.title).ok:
        return cited  # the title was read right: the author list ends where it should
    if work.authors and (
        authors_ok
        if authors_ok is not None
        else compare_authors(cited.authors, cited.et_al, work.authors).ok
    ):
        return cited
    if not work.authors:
        joined = title_key(" ".join(cited.authors)) or ""
        venue_keys = {title_key(n) for n in venue_names(work)}
        if joined in venue_keys and not cited.venue and not cited.title:
            return msgspec.structs.replace(cited, authors=[], venue=" ".join(cited.authors))
        if (
            joined
            and joined == title_key(work.title)
            and cited.title
            and not cited.venue
            and title_key(cited.title) in venue_keys
        ):
            # APA puts the title first when there is no author: "Index. (2021). Publisher eBooks."
            return msgspec.structs.replace(
                cited, authors=[], title=" ".join(cited.authors), venue=cited.title
            )
    if cited.title:
        # only a title that lost its first words to the author list ("Nelson F. Conservation |
        # and Aid: Designing …"): the parsed title must be the end of the record's title
        ck, rk = title_key(cited.title) or "", title_key(work.title) or ""
        if not ck or ck == rk or not rk.endswith(ck):
            return cited
    if not work.title:
        return cited
    words = fold(work.title).split()
    if not words:
        return cited
    raw = _LEAD_NUMBER.sub("", cited.raw[:2000])
    folded = fold(raw)
    m = _words_pattern(tuple(words)).search(folded)
    if m is None:
        return cited
    # the folded text keeps word order and count: cut the original text before the same word
    lead_words = len(folded[: m.start()].split())
    tokens = re.findall(r"\S+", raw)
    head, n = [], 0
    for tok in tokens:
        if n >= lead_words:
            break
        head.append(tok)
        n += len(fold(tok).split())
    author_text = " ".join(head).strip(" .,;:")
    names = split_author_string(author_text) if author_text else []
    ok = (not names and not work.authors) or (
        bool(names) and bool(work.authors) and compare_authors(names, cited.et_al, work.authors).ok
    )
    if not ok:
        return cited
    return msgspec.structs.replace(cited, authors=names, title=work.title)


def validate(
    cited: CitedWork,
    work: Work,
    *,
    today_year: int | None = None,
    venue_unverifiable: bool | None = None,
) -> list[FieldResult]:
    """Compare every field ``cited`` states with ``work``; one :class:`FieldResult` each.

    ``venue_unverifiable``: the record (its whole version family, see :func:`validate_family`)
    names no venue but repositories and preprint servers, so a cited venue it does not name is
    *unverified*, not a mismatch (None: judge from ``work`` alone).
    """
    cited = _regroup_title_venue(_regroup_authors_into_title(cited, work), work)
    a_check = compare_authors(cited.authors, cited.et_al, work.authors) if cited.authors else None
    regrouped = _regroup_title_out_of_authors(
        cited, work, a_check.ok if a_check is not None else None
    )
    if regrouped is not cited:
        cited, a_check = regrouped, None
    out: list[FieldResult] = []
    rids = record_ids(work)
    for d in cited.doi:
        ok = d in rids["doi"]
        out.append(
            FieldResult(
                "doi",
                ok,
                d,
                work.doi,
                "DOI matches"
                if ok
                else (
                    f"cited DOI {d} is not the record's DOI {work.doi}"
                    if work.doi
                    else f"cited DOI {d}; record {work.id} has no DOI"
                ),
            )
        )
    for kind in ("arxiv", "pmid", "pmcid"):
        val = getattr(cited, kind)
        if val:
            ok = val in rids[kind]
            rec = sorted(rids[kind])
            out.append(
                FieldResult(
                    kind,
                    ok,
                    val,
                    rec[0] if len(rec) == 1 else (rec or None),
                    f"{kind} matches"
                    if ok
                    else (
                        f"cited {kind} {val} is not the record's ({', '.join(rec)})"
                        if rec
                        else f"cited {kind} {val}; record {work.id} has none"
                    ),
                )
            )
    if cited.openalex:
        ok = cited.openalex == work.id
        out.append(
            FieldResult(
                "openalex",
                ok,
                cited.openalex,
                work.id,
                "OpenAlex id matches" if ok else f"cited {cited.openalex}, record is {work.id}",
            )
        )
    if cited.title:
        t = compare_title(cited.title, work.title)
        out.append(FieldResult("title", t.ok, cited.title, work.title, t.reason))
    elif cited.form == "string" and work.title:
        untitled = _untitled_string_check(cited, work)
        if untitled is not None:
            out.append(untitled)
    if cited.authors:
        a = (
            a_check
            if a_check is not None
            else compare_authors(cited.authors, cited.et_al, work.authors)
        )
        out.append(
            FieldResult(
                "authors",
                a.ok,
                cited.authors + (["et al."] if cited.et_al else []),
                [x.name for x in work.authors[:50]],
                a.reason,
            )
        )
    if cited.year is not None or cited.year_raw:
        y = compare_year(cited, work, today_year=today_year or _dt.date.today().year)
        out.append(FieldResult("year", y.ok, cited.year_raw or cited.year, work.year, y.reason))
    if cited.venue:
        venues = venue_names(work)
        if cited.is_preprint:
            # A preprint citation names the preprint server of one of the record's versions.
            venues += [
                v.venue
                for v in work.versions
                if v.venue and v.venue not in venues and is_venue_name(v.venue)
            ]
            if rids["arxiv"] and "arXiv" not in venues:
                venues.append("arXiv")
        if (
            not venues
            and rids["arxiv"]
            and not (work.type or "").startswith(("journal", "article-journal"))
        ):
            # A record known only through arXiv (no journal or proceedings) was published there.
            venues = ["arXiv"]
        if venues:
            out.append(_venue_field(cited, cited.venue, work, venues, venue_unverifiable))
        else:
            out.append(
                FieldResult(
                    "venue",
                    True,
                    cited.venue,
                    None,
                    f"record {work.id} has no venue; the cited venue could not be checked",
                )
            )
    if cited.publisher and re.search(r"[^\W\d_]{2}", cited.publisher):
        out.append(_compare_publisher(cited.publisher, work))
    return _published_year(out, cited, work)


#: Years a published version may follow the repository copy of a work: a citation of the
#: published version (a journal or conference the repository copies cannot confirm) may carry
#: its year, 1 or 2 years after the preprint's ("Kingma and Ba ... ICLR 2015" for arXiv 2014).
PUBLISHED_YEAR_WINDOW = 2


def _published_year(out: list[FieldResult], cited: CitedWork, work: Work) -> list[FieldResult]:
    """``out`` with a mismatched year made *unverified* when it may be the published version's.

    Only when the cited venue is itself unverified (every copy of the work in the world is in a
    repository or on a preprint server, and the citation names another venue: the published
    version, which the world lacks) and the cited year follows the record's by at most
    :data:`PUBLISHED_YEAR_WINDOW` years. An earlier year, a later one, or a citation of the
    repository copy itself stays a mismatch.
    """
    venue = next((f for f in out if f.field == "venue"), None)
    if venue is None or not venue.unverified or cited.year is None or work.year is None:
        return out
    if not work.year < cited.year <= work.year + PUBLISHED_YEAR_WINDOW:
        return out
    return [
        FieldResult(
            "year",
            True,
            f.cited,
            f.record,
            f"cited {cited.year} could not be verified: the world has this work only from "
            f"repositories and preprint servers (from {work.year}); the published version the "
            f"citation names ('{venue.cited}') and its year are not in the world",
            f.member,
            unverified=True,
        )
        if f.field == "year" and not f.ok
        else f
        for f in out
    ]


#: Work types whose venue may be cited by their publisher ("MIT press Cambridge" for a book).
_BOOK_TYPES = frozenset(
    {
        "book",
        "book-chapter",
        "book-part",
        "book-section",
        "book-set",
        "edited-book",
        "monograph",
        "reference-book",
        "reference-entry",
        "inbook",
        "incollection",
        "chapter",
    }
)
_BOOK_KINDS = frozenset({"ebook platform", "book series"})


def _book_like(work: Work) -> bool:
    """A book or a part of one, by type or by the kind of its venue (an ebook platform, a book series)."""
    return (work.type or "").lower() in _BOOK_TYPES or any(
        k in _BOOK_KINDS for k in work.venue_kinds.values()
    )


def _venue_field(
    cited: CitedWork, venue: str, work: Work, venues: list[str], unverifiable: bool | None
) -> FieldResult:
    """The cited ``venue`` against the record's venue names ``venues`` (not empty)."""
    v = compare_venue(venue, venues)
    if v.status == "match":
        return FieldResult("venue", True, venue, work.venue, v.reason)
    named = venues[0]
    if is_book_series(named):
        return FieldResult(
            "venue",
            True,
            venue,
            named,
            f"record {work.id} names only the book series '{named}'; "
            "the cited venue could not be checked",
        )
    if all(work.venue_kinds.get(n) == HOST_KIND for n in venues):
        # only a host organisation ("DataCite" of the "DataCite API" metadata source; the
        # publisher of a "(No Title)" source): the record has no venue of its own
        return FieldResult(
            "venue",
            True,
            venue,
            None,
            f"record {work.id} has no venue (it names only '{named}', a host organisation); "
            "the cited venue could not be checked",
        )
    if _book_like(work):
        pub = _compare_publisher(venue, work)
        if pub.ok:
            return FieldResult(
                "venue",
                True,
                venue,
                pub.record,
                f"the cited venue is the book's publisher ({pub.reason})",
            )
    if unverifiable is None:
        unverifiable = venue_side(work) is False
    if unverifiable and not is_repository_name(venue) and not _cites_repository_copy(cited, work):
        servers = [n for n in venues if work.venue_kinds.get(n) != HOST_KIND][:3]
        return FieldResult(
            "venue",
            True,
            venue,
            named,
            f"cited venue '{venue}' could not be verified: the world has this work only from "
            f"repositories and preprint servers ({'; '.join(servers)}), which cannot confirm "
            "or contradict it",
            unverified=True,
        )
    return FieldResult("venue", False, venue, work.venue, v.reason)


def validate_family(
    cited: CitedWork,
    res: Resolution,
    *,
    today_year: int | None = None,
    strict_identifiers: bool = False,
    strict_venues: bool = False,
) -> list[FieldResult]:
    """Validate ``cited`` against the matched record's version family.

    A stated identifier is right if any family member carries it (the arXiv id of the preprint
    copy, the DOI of the proceedings copy). Title, authors, year, venue and publisher must all
    fit one and the same member (the one that fits best; the matched record on a tie): a
    proceedings venue with the preprint's year is still a mismatch unless the citation presents
    itself as a preprint. Then an identifier of :data:`UNVERIFIABLE_KINDS` that no member has
    a value of, and that resolves to no work in the index, is *unverified* (``ok``, flagged)
    rather than mismatched, unless ``strict_identifiers``. Likewise a cited venue when no
    member names a venue but repositories and preprint servers (the published copy is not in
    the world), unless ``strict_venues``; a member fitting without an unverified field wins.
    """
    assert res.work is not None
    members = res.family or [res.work]
    unverifiable = None
    if cited.venue:
        sides = [venue_side(m) for m in members]
        unverifiable = False in sides and True not in sides
    first = validate(cited, members[0], today_year=today_year, venue_unverifiable=unverifiable)
    if all(f.ok and not f.unverified for f in first) or len(members) == 1:
        per = [first]
        members = members[:1]
    else:  # the other copies are read only when the matched one does not fit
        per = [
            first,
            *(
                validate(cited, m, today_year=today_year, venue_unverifiable=unverifiable)
                for m in members[1:]
            ),
        ]
    best_i = min(
        range(len(members)),
        key=lambda i: (
            sum(1 for f in per[i] if not f.ok and f.field not in _ID_FIELDS),
            sum(1 for f in per[i] if f.unverified),
            i,
        ),
    )
    out: list[FieldResult] = []
    for j, f in enumerate(per[best_i]):
        if f.field in _ID_FIELDS and not f.ok:
            ok_i = next((i for i in range(len(members)) if per[i][j].ok), None)
            if ok_i is not None:
                f = per[ok_i][j]
                f.member = members[ok_i].id if ok_i else None
            elif not strict_identifiers and f.field in UNVERIFIABLE_KINDS:
                f = _unverified(f, members, res)
        elif (
            f.field not in _ID_FIELDS
            and f.ok
            and "could not be checked" in f.reason
            and not (
                isinstance(f.cited, str) and title_key(f.cited) == title_key(members[best_i].title)
            )
        ):
            # a copy without this field cannot vouch for it when another copy contradicts it
            contra = next(
                (
                    (i, g)
                    for i, fs in enumerate(per)
                    if i != best_i
                    for g in fs
                    if g.field == f.field and not g.ok
                ),
                None,
            )
            if contra is not None:
                f = contra[1]
                f.member = members[contra[0]].id
            elif best_i:
                f.member = members[best_i].id
        elif best_i:
            f.member = members[best_i].id
        if f.unverified and f.field in ("venue", "year") and strict_venues:
            # the year is unverified only with the venue (see _published_year): strict alike
            f = FieldResult(
                f.field,
                False,
                f.cited,
                f.record,
                f"{f.reason} (strict venues: a venue the records cannot confirm, and its year, "
                "is a mismatch)",
                f.member,
            )
        out.append(f)
    out.extend(_bad_ids(cited))
    return out


def _unverified(f: FieldResult, members: list[Work], res: Resolution) -> FieldResult:
    """``f`` (a mismatched identifier) as unverified, when nothing contradicts it."""
    kind = f.field
    if any(record_ids(m)[kind] for m in members):
        return f  # a member has another value of this kind: contradicted
    if res.identifiers.get(f"{kind}:{f.cited}"):
        return f  # the identifier belongs to another work
    return FieldResult(
        kind,
        True,
        f.cited,
        None,
        f"cited {kind} {f.cited} could not be verified: no record of this work carries a {kind}, "
        "and no other work in the index has it",
        unverified=True,
    )


def _bad_ids(cited: CitedWork) -> list[FieldResult]:
    """Stated identifiers that cannot be read as identifiers: always a mismatch."""
    return [
        FieldResult(kind, False, text, None, f"cited {kind} '{text}' is not a well-formed {kind}")
        for kind, text in cited.bad_ids
    ]


def _untitled_string_check(cited: CitedWork, work: Work) -> FieldResult | None:
    """Check a citation string whose title could not be parsed out: is the record's title in it.

    If the record's title occurs in the string (modulo case, punctuation and markup), it is the
    cited title. If not, and the text read as the venue is not the record's venue, that text is
    most likely a title the parser could not place (a numbered style without a venue:
    "Wu Y. Land Reclamation in Mining. 2008. doi:..."), and it is not the record's title. With
    neither (Elsevier style prints no title), there is no title to check.
    """
    if title_in_text(work.title, fold(cited.raw[:5000]).replace(" ", "")):
        return FieldResult(
            "title", True, None, work.title, "the record's title appears in the citation"
        )
    # the text read as venue or publisher ("City: Publisher" catches "Title: subtitle")
    texts = [
        x for x in (cited.venue, cited.publisher) if x and (x == cited.venue or len(x.split()) >= 3)
    ]
    if not texts:
        return None
    names = venue_names(work)
    if cited.venue and names and compare_venue(cited.venue, names).status == "match":
        return None
    if cited.publisher and names and _compare_publisher(cited.publisher, work).ok:
        return None
    text = max(texts, key=len)
    t = compare_title(text, work.title)
    if t.ok:
        return FieldResult("title", True, text, work.title, t.reason)
    return FieldResult(
        "title",
        False,
        text,
        work.title,
        f"the record's title does not appear in the citation ({t.reason})",
    )


def _publisher_key(name: str) -> tuple[str, ...]:
    toks = [t for t in venue_tokens(name) if t not in _PUBLISHER_NOISE]
    return tuple(toks)


_PUBLISHER_NOISE = frozenset(
    {
        "ebooks",
        "books",
        "inc",
        "ltd",
        "limited",
        "llc",
        "gmbh",
        "co",
        "bv",
        "ag",
        "sa",
        "publishing",
        "publishers",
        "publisher",
        "publications",
        "verlag",
        "press",
        "group",
        "the",
        "and",
    }
)


# Words too common in publisher names to identify one alone ("Springer" does, "American" does not).
_GENERIC_PUBLISHER_WORDS = frozenset(
    {
        "american",
        "international",
        "national",
        "royal",
        "society",
        "university",
        "academic",
        "association",
        "institute",
        "science",
        "sciences",
        "media",
        "nature",
        "research",
        "scientific",
        "medical",
        "health",
        "world",
        "global",
    }
)


def _contains(seq: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return any(seq[i : i + len(part)] == part for i in range(len(seq) - len(part) + 1))


# Words a publisher's name ends with: what follows them is a place ("MIT press Cambridge").
_PUBLISHER_END = frozenset(
    {"press", "publishing", "publishers", "publisher", "verlag", "sons", "books", "inc", "ltd"}
)


def _publisher_forms(cited: str) -> list[str]:
    """``cited`` and the publisher it names without a place.

    "Cambridge, MA: MIT Press" → "MIT Press"; "John Wiley & Sons, Hoboken, NJ" → "John Wiley &
    Sons"; "MIT press Cambridge" → "MIT press" (the place after the name's last publisher word).
    """
    forms = [cited]
    if ":" in cited:
        forms.append(cited.rsplit(":", 1)[1])
    if "," in cited:
        forms.append(cited.split(",", 1)[0])
    words = cited.split()
    ends = [i for i, w in enumerate(words) if fold(w) in _PUBLISHER_END]
    if ends and ends[-1] < len(words) - 1:
        forms.append(" ".join(words[: ends[-1] + 1]))
    return [f for f in dict.fromkeys(x.strip(" ,.;:") for x in forms) if f]


def _distinctive(word: str) -> bool:
    """A single word that names one publisher ("springer", "wiley"; not "american", "press")."""
    return len(word) >= 5 and word not in _GENERIC_PUBLISHER_WORDS


def _same_publisher(ck: tuple[str, ...], nk: tuple[str, ...]) -> bool:
    """Publisher keys (:func:`_publisher_key`) of one publisher."""
    return bool(ck and nk) and (
        ck == nk
        or (len(ck) >= 2 and _contains(nk, ck))
        or (len(nk) >= 2 and ck[: len(nk)] == nk)
        or (len(ck) == 1 and _distinctive(ck[0]) and ck[0] in nk)
        or (len(nk) == 1 and _distinctive(nk[0]) and nk[0] in ck)
    )


#: Source kinds of a venue proper, which an OpenAlex record keeps beside its hosts' (a record
#: without them, from a BibTeX or CSL world or an older index, says nothing of its publisher).
_JOURNAL_KINDS = frozenset({"journal", "conference"})


def _compare_publisher(cited: str, work: Work) -> FieldResult:
    """The cited publisher against every name the record gives (venue, host, publisher)."""
    names = venue_names(work)
    if not names:
        return FieldResult(
            "publisher",
            True,
            cited,
            None,
            f"record {work.id} names no publisher; the cited publisher could not be checked",
        )
    v = compare_venue(cited, names)
    if v.status == "match":
        return FieldResult("publisher", True, cited, v.matched, v.reason)
    # "Cambridge University Press" ~ "Cambridge University Press eBooks"; "Research Papers in
    # Economics" ~ "RePEc: Research Papers in Economics" (a whole part of the record's name);
    # "John Wiley & Sons" ~ "Wiley"; a place after or before the name aside
    keys = [_publisher_key(f) for f in _publisher_forms(cited)]
    for n in names:
        nk = _publisher_key(n)
        if any(_same_publisher(ck, nk) for ck in keys):
            return FieldResult("publisher", True, cited, n, "same publisher")
    kinds = set(work.venue_kinds.values())
    if kinds and HOST_KIND not in kinds and kinds <= _JOURNAL_KINDS and not _book_like(work):
        # a journal article whose record names its journal and no host organisation (Google
        # Scholar's BibTeX gives "publisher={MIT Press}" for a Neural Computation article): the
        # journal's name is no publisher, nothing here can confirm or contradict the cited one
        return FieldResult(
            "publisher",
            True,
            cited,
            None,
            f"record {work.id} names its venue ('{names[0]}') but no publisher; the cited "
            "publisher could not be checked",
        )
    return FieldResult(
        "publisher",
        False,
        cited,
        names[0],
        f"cited '{cited}', record names '{'; '.join(names[:3])}'",
    )


def _join_reasons(bad: list[FieldResult]) -> str:
    parts = []
    for f in bad:
        label = {
            "doi": "DOI",
            "arxiv": "arXiv id",
            "pmid": "PMID",
            "pmcid": "PMCID",
            "openalex": "OpenAlex id",
        }.get(f.field, f.field.capitalize())
        parts.append(f"{label} mismatch: {f.reason}")
    return "; ".join(parts)


def check_citation(
    cited: CitedWork,
    world: WorldLookup,
    *,
    today_year: int | None = None,
    strict_identifiers: bool = False,
    strict_venues: bool = False,
) -> Verdict:
    """Resolve and validate: the deterministic reference-grounding verdict."""
    res = resolve(cited, world)
    if res.status != "matched" or res.work is None:
        if res.status == "id_conflict":
            return Verdict(False, f"Identifier conflict: {res.message}.", res)
        if res.status == "ambiguous":
            return Verdict(False, f"Ambiguous citation: {res.message}.", res)
        if res.status == "nothing_stated":
            return Verdict(
                False,
                "Cannot be verified: the citation states no identifier, title or author.",
                res,
            )
        stated_ids = [k for k in res.identifiers]
        lead = (
            f"Not found: {', '.join(stated_ids)} resolve to no work in the local world"
            if stated_ids
            else "Not found in the local world"
        )
        return Verdict(False, f"{lead}; {res.message}.", res)
    work = res.work
    fields = validate_family(
        cited,
        res,
        today_year=today_year,
        strict_identifiers=strict_identifiers,
        strict_venues=strict_venues,
    )
    bad = [f for f in fields if not f.ok]
    if bad:
        expl = f"{_join_reasons(bad)} (record {work.id})"
        if len(res.family) > 1 and any(f.field not in _ID_FIELDS for f in bad):
            expl += (
                f"; no single record of this work ({', '.join(w.id for w in res.family)}: preprint, published "
                "or duplicate copies) has all the cited fields"
            )
        return Verdict(False, expl + ".", res, fields)
    checked = [f.field for f in fields]
    notes = [
        f.reason
        for f in fields
        if "could not be checked" in f.reason or "not checked" in f.reason or f.unverified
    ]
    expl = f"Matches {work.id} via {res.method}; checked {', '.join(checked) or 'nothing else'}"
    if notes:
        expl += "; " + "; ".join(notes)
    if work.is_retracted:
        expl += "; note: the record is marked retracted"
    return Verdict(True, expl + ".", res, fields)
