"""Person names: parsing citation forms, same-person decisions, author-list comparison.

Name *forms* are not metadata differences: initials vs full given names, "Last, First" vs
"First Last" vs Vancouver "Last FM", diacritics and LaTeX accents, particles (van, von, de…),
hyphens in given names, DBLP homonym suffixes ("Jiawei He 0002"), Jr./III suffixes and
family-first order of CJK names all compare equal. A different family name, or a conflicting
first initial, is a different person.

Nicknames: "Jeff Dean" and "Jeffrey Dean" are one person. We accept a full given name that is a
prefix of the other (Jeff/Jeffrey, Greg/Gregory, Alex/Alexander) or a pair in a short table of
common English hypocorisms (Bob/Robert, Bill/William…). Justification: the record and the
citation then agree on the family name, the first initial and the position in the list, which
is the identity the spec's "exact author list" is about; the given-name spelling is a form.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from citejudge.records import Author
from citejudge.text.normalize import delatex, fold, strip_markup

__all__ = [
    "AuthorCheck",
    "PersonName",
    "compare_authors",
    "family_key",
    "family_keys",
    "is_placeholder",
    "name_variants",
    "parse_person",
    "same_person",
    "transliterate",
]

_PARTICLES = frozenset(
    {
        "van",
        "von",
        "de",
        "der",
        "den",
        "da",
        "di",
        "le",
        "la",
        "du",
        "del",
        "della",
        "dos",
        "das",
        "do",
        "des",
        "ter",
        "ten",
        "af",
        "av",
        "zu",
        "zum",
        "zur",
        "el",
        "al",
        "bin",
        "ibn",
        "st",
        "lo",
        "dello",
        "vander",
        "vd",
        "y",
        "e",
        "d",
        "l",
    }
)
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v", "2nd", "3rd", "junior", "senior"})
_HOMONYM = re.compile(r"\s+\d{4}\s*$")
_ETAL = frozenset({"others", "et al", "etal", "et al.", "and others", "and et al", "..."})
_NICKNAMES: dict[str, frozenset[str]] = {
    "robert": frozenset({"bob", "rob", "bobby", "robbie", "bert"}),
    "william": frozenset({"bill", "will", "billy", "liam"}),
    "richard": frozenset({"dick", "rick", "rich"}),
    "michael": frozenset({"mike", "mick", "mikey"}),
    "james": frozenset({"jim", "jimmy", "jamie"}),
    "joseph": frozenset({"joe", "joey"}),
    "anthony": frozenset({"tony"}),
    "andrew": frozenset({"andy", "drew"}),
    "thomas": frozenset({"tom", "tommy"}),
    "elizabeth": frozenset({"liz", "beth", "betty", "eliza", "lizzie"}),
    "katherine": frozenset({"kate", "kathy", "katie"}),
    "catherine": frozenset({"cathy", "kate", "katie"}),
    "margaret": frozenset({"maggie", "meg", "peggy"}),
    "stephen": frozenset({"steve"}),
    "steven": frozenset({"steve"}),
    "david": frozenset({"dave"}),
    "peter": frozenset({"pete"}),
    "charles": frozenset({"chuck", "charlie"}),
    "edward": frozenset({"ted", "ed", "eddie", "ned"}),
    "john": frozenset({"jack", "johnny"}),
    "daniel": frozenset({"dan", "danny"}),
    "samuel": frozenset({"sam"}),
    "benjamin": frozenset({"ben"}),
    "alexander": frozenset({"alex", "sasha", "sandy"}),
    "christopher": frozenset({"chris"}),
    "nicholas": frozenset({"nick"}),
    "patrick": frozenset({"pat"}),
    "susan": frozenset({"sue"}),
    "jennifer": frozenset({"jen", "jenny"}),
}
_PLACEHOLDERS = frozenset(
    {
        "john doe",
        "jane doe",
        "j doe",
        "doe j",
        "doe john",
        "doe jane",
        "jane smith",
        "john smith",
        "j smith",
        "anonymous",
        "anon",
        "anonymous author",
        "unknown",
        "unknown author",
        "author",
        "an author",
        "a author",
        "author a",
        "the author",
        "authors",
        "first author",
        "second author",
        "third author",
        "author one",
        "author two",
        "author three",
        "author 1",
        "author 2",
        "author 3",
        "author name",
        "firstname lastname",
        "first last",
        "last first",
        "lastname firstname",
        "name surname",
        "first name last name",
        "et al",
        "etal",
        "others",
        "n a",
        "na",
        "tbd",
        "todo",
        "foo bar",
        "alice bob",
        "your name",
        "author x",
        "x y",
        "a b",
    }
)


@dataclass(frozen=True)
class PersonName:
    """A parsed person name (all parts folded: lower case, no diacritics).

    ``family`` is the family-name key without particles and spaces (``"beethoven"``);
    ``family_full`` keeps the particles (``"vanbeethoven"``); ``given`` holds the given names
    in order, each a full name or a single initial; ``initials`` the initial of every given part
    (a hyphenated "Ming-Wei" gives ``("m", "w")``).
    """

    raw: str
    family: str
    family_full: str
    given: tuple[str, ...] = ()
    initials: tuple[str, ...] = ()
    particles: tuple[str, ...] = ()
    suffix: str | None = None
    order: str = "given-first"  # "given-first" | "family-first" | "vancouver" | "single"

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (for details)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class AuthorCheck:
    """Result of comparing a cited author list with a record's."""

    ok: bool
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (for details)."""
        return {"ok": self.ok, "reason": self.reason, "detail": dict(self.detail)}


_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1 << 16)
def _clean(name: str) -> str:
    s = delatex(strip_markup(name)).strip()
    s = _HOMONYM.sub("", s)
    s = _SPACES.sub(" ", s)
    return s.strip(" ,;")


@lru_cache(maxsize=1 << 16)
def _key(s: str) -> str:
    key: str = fold(s).replace(" ", "")
    return key


def _given_parts(tokens: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Given-name tokens -> (given names, initials); initials glued like "J.-P." or "JP" split."""
    given: list[str] = []
    initials: list[str] = []
    for tok in tokens:
        t = tok.strip(".,")
        if not t:
            continue
        pieces = [p for p in re.split(r"[-‐‑]", t) if p.strip(".")]
        if not pieces:
            continue
        compact = t.replace(".", "").replace("-", "")
        if "." in t and all(len(_key(p)) <= 2 for p in re.split(r"[.\-\s]", t) if p):
            # "J.", "J.-P.", "J.P.", "Th."
            letters = [_key(p)[0] for p in re.split(r"[.\-\s]", t) if _key(p)]
            given.extend(letters)
            initials.extend(letters)
            continue
        if compact.isupper() and 1 < len(compact) <= 3 and compact.isalpha():
            letters = [c.lower() for c in compact]
            given.extend(letters)
            initials.extend(letters)
            continue
        keys = [_key(p) for p in pieces]
        keys = [k for k in keys if k]
        if not keys:
            continue
        given.append("".join(keys))
        initials.extend(k[0] for k in keys)
    return tuple(given), tuple(initials)


def _family(tokens: list[str]) -> tuple[str, str, tuple[str, ...]]:
    parts = [t for t in tokens if _key(t)]
    particles = tuple(_key(t) for t in parts if _key(t) in _PARTICLES and t[:1].islower())
    core = [t for t in parts if not (_key(t) in _PARTICLES and t[:1].islower())]
    if not core:  # "Van" alone, or a capitalised particle family name ("De")
        core = parts
        particles = ()
    full = "".join(_key(t) for t in parts)
    fam = "".join(_key(t) for t in core)
    # an apostrophe particle glued to the name: d'Amore, O'Brien keep as written; also try
    # without it through family_full / family comparisons.
    return fam, full, particles


def _is_initials_token(tok: str) -> bool:
    t = tok.replace(".", "").replace("-", "")
    return bool(t) and t.isalpha() and t.isupper() and len(t) <= 3


#: A token of dotted initials: "Y.", "S.J.", "J.-P.", "Ch."
_DOTTED_INITIALS = re.compile(r"^(?:[^\W\d_][a-z]?\.-?)+$")


@lru_cache(maxsize=1 << 16)
def parse_person(name: str) -> PersonName:
    """Parse one person name in any of the usual citation forms.

    Handles "Last, First", "Last, F.M.", "First Last", "F. M. Last", Vancouver "Last FM",
    particles ("van der Waals", "Koch S von"), suffixes (Jr., III), DBLP homonym numbers
    ("Jiawei He 0002"), LaTeX accents and all-caps names.
    """
    s = _clean(name)
    suffix: str | None = None
    if "," in s:
        parts = [p.strip() for p in s.split(",") if p.strip()]
        rest = [p for p in parts[1:] if _key(p) not in _SUFFIXES]
        sfx = [p for p in parts[1:] if _key(p) in _SUFFIXES]
        suffix = _key(sfx[0]) if sfx else None
        fam_tokens = parts[0].split() if parts else []
        given_tokens = " ".join(rest).split()
        # particles written after the given names: "Beethoven, Ludwig van"
        while (
            given_tokens and _key(given_tokens[-1]) in _PARTICLES and given_tokens[-1][:1].islower()
        ):
            fam_tokens.insert(0, given_tokens.pop())
        fam, full, particles = _family(fam_tokens)
        given, initials = _given_parts(given_tokens)
        return PersonName(s, fam, full, given, initials, particles, suffix, "family-first")
    tokens = s.split()
    while len(tokens) > 1 and _key(tokens[-1]) in _SUFFIXES and not _is_initials_token(tokens[-1]):
        suffix = _key(tokens.pop())
    if len(tokens) > 1 and _key(tokens[-1]) in {"ii", "iii", "iv"}:
        suffix = _key(tokens.pop())
    if not tokens:
        return PersonName(s, "", "", order="single")
    if len(tokens) == 1:
        k = _key(tokens[0])
        return PersonName(s, k, k, order="single")
    all_caps = all(t.replace(".", "").replace("-", "").isupper() for t in tokens if t.isalpha())
    # Vancouver: "Smith JA", "Koch S von" (trailing particle), not "JOHN SMITH"
    trail: list[str] = []
    body = list(tokens)
    while len(body) > 2 and _key(body[-1]) in _PARTICLES and body[-1][:1].islower():
        trail.insert(0, body.pop())
    last = body[-1]
    if (
        len(body) >= 2
        and _is_initials_token(last)
        and "." not in last
        and not (all_caps and len(_key(body[0])) <= 3)
        and not _is_initials_token(body[0])
    ):
        fam, full, particles = _family(trail + body[:-1])
        given, initials = _given_parts([last])
        return PersonName(s, fam, full, given, initials, particles, suffix, "vancouver")
    # GOST and other Slavic styles: dotted initials after the family name ("LeCun Y.",
    # "Hochreiter S. J.", "Иванов И. И.")
    cut = len(body)
    while cut > 1 and _DOTTED_INITIALS.match(body[cut - 1]):
        cut -= 1
    if (
        0 < cut < len(body)
        and not _is_initials_token(body[0])
        and not _DOTTED_INITIALS.match(body[0])
        # one or two initials, as GOST writes them ("Li H. U.S." is a name and a title's start)
        and sum(1 for t in body[cut:] for c in t if c.isalpha() and c.isupper()) <= 2
    ):
        fam, full, particles = _family(trail + body[:cut])
        given, initials = _given_parts(body[cut:])
        return PersonName(s, fam, full, given, initials, particles, suffix, "family-first")
    # given-first: family = trailing run starting at the first lower-case particle after the
    # first token, else the last token.
    start = len(tokens) - 1
    for i in range(1, len(tokens) - 1):
        if _key(tokens[i]) in _PARTICLES and tokens[i][:1].islower():
            start = i
            break
    fam, full, particles = _family(tokens[start:])
    given, initials = _given_parts(tokens[:start])
    return PersonName(s, fam, full, given, initials, particles, suffix, "given-first")


@lru_cache(maxsize=1 << 16)
def _interpretations(name: str, record_side: bool = False) -> tuple[PersonName, ...]:
    """The parse plus, for plain "A B C" names, the other family/given splits."""
    return tuple(_interpreted(name, record_side))


def _interpreted(name: str, record_side: bool) -> list[PersonName]:
    p = parse_person(name)
    out = [p]
    if record_side and p.order == "vancouver" and len(p.given) == 1 and len(p.given[0]) == 1:
        # a record's "Liliana Bravo-Monroy G" (records print given names first) may be a
        # given-first name whose family name is "G"
        tokens = _clean(name).split()
        fam, full, particles = _family(tokens[-1:])
        given, initials = _given_parts(tokens[:-1])
        out.append(
            PersonName(p.raw, fam, full, given, initials, particles, p.suffix, "given-first")
        )
        return out
    if p.order != "given-first":
        return out
    s = _clean(name)
    tokens = [t for t in s.split() if _key(t) not in _SUFFIXES]
    if p.particles and len(tokens) >= 3 and tokens[-1][:1].isupper():
        # "Maria das Graças Vale Barbosa", "Juan de Dios Figueroa": the particle may belong to a
        # given name; the last word alone is then the family name.
        given, initials = _given_parts(
            [t for t in tokens[:-1] if not (_key(t) in _PARTICLES and t[:1].islower())]
        )
        last = _key(tokens[-1])
        out.append(PersonName(s, last, last, given, initials, (), p.suffix, "given-first"))
    # compound family names ("Simon Peyton Jones", "Gabriel Garcia Marquez")
    for k in range(2, len(tokens)):
        fam_toks = tokens[len(tokens) - k :]
        if any(_is_initials_token(t) or "." in t for t in fam_toks):
            break
        fam, full, particles = _family(fam_toks)
        given, initials = _given_parts(tokens[: len(tokens) - k])
        out.append(PersonName(s, fam, full, given, initials, particles, p.suffix, "given-first"))
    return out


def _given_name_match(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) == 1 or len(b) == 1:
        return a[0] == b[0]
    if a.startswith(b) or b.startswith(a):
        return True
    for full, nicks in _NICKNAMES.items():
        if (a == full and b in nicks) or (b == full and a in nicks) or (a in nicks and b in nicks):
            return True
    return False


def _given_compatible(a: PersonName, b: PersonName) -> bool:
    if not a.given or not b.given:
        return True  # a family name alone says nothing against the given names
    ga, gb = a.given[0], b.given[0]
    if a.initials[0] != b.initials[0] and not (
        len(ga) > 1 and len(gb) > 1 and _given_name_match(ga, gb)
    ):
        return False
    if len(ga) > 1 and len(gb) > 1:
        joined_a = "".join(g for g in a.given if len(g) > 1)
        joined_b = "".join(g for g in b.given if len(g) > 1)
        if not (_given_name_match(ga, gb) or joined_a == joined_b):
            return False
    # middle initials: compare where both state them; "Mingwei" vs "M.-W." has one part only
    if len(a.given) > 1 and len(b.given) > 1:
        ia = a.initials[1:] if len(a.given[0]) == 1 or len(a.given) == len(a.initials) else ()
        ib = b.initials[1:] if len(b.given[0]) == 1 or len(b.given) == len(b.initials) else ()
        for x, y in zip(ia, ib, strict=False):
            if x != y:
                return False
    return True


def _family_equal(a: PersonName, b: PersonName) -> bool:
    if not a.family or not b.family:
        return False
    return (
        a.family == b.family
        or a.family_full == b.family_full
        or a.family_full == b.family
        or a.family == b.family_full
    )


def _token_multiset(name: str) -> list[str]:
    return sorted(fold(_clean(name)).split())


@lru_cache(maxsize=1 << 17)
def _same_name(cited: str, other: str) -> bool:
    # (a pure function of two names: the same pairs recur across citations of a work)
    if not _key(cited) or not _key(other):
        return False
    if _key(cited) == _key(other):
        return True
    for pa in _interpretations(cited):
        for pb in _interpretations(other, record_side=True):
            if _family_equal(pa, pb) and _given_compatible(pa, pb):
                return True
    # family-first order without a comma (CJK "Zhang Wei" for "Wei Zhang"): same full tokens
    ta, tb = _token_multiset(cited), _token_multiset(other)
    return len(ta) >= 2 and ta == tb and all(len(t) > 1 for t in ta)


_TRANSLIT = str.maketrans(
    {
        "ä": "ae",
        "ö": "oe",
        "ü": "ue",
        "Ä": "Ae",
        "Ö": "Oe",
        "Ü": "Ue",
        "å": "aa",
        "Å": "Aa",
        "ø": "oe",
        "Ø": "Oe",
        "ß": "ss",
    }
)
_TRANSLIT_CHARS = frozenset("äöüÄÖÜåÅøØß")


def transliterate(name: str) -> str:
    """The ASCII spelling of a name's umlauts and Nordic letters ("Schölkopf" -> "Schoelkopf").

    Citations often write names that way; folding alone would give "Scholkopf". Names with none
    of these letters (after LaTeX decoding) are returned unchanged.
    """
    s = delatex(name) if "\\" in name else name
    s = unicodedata.normalize("NFC", s)
    return s.translate(_TRANSLIT) if not _TRANSLIT_CHARS.isdisjoint(s) else name


@lru_cache(maxsize=1 << 16)
def name_variants(name: str) -> tuple[str, ...]:
    """``name`` and, when it differs, its transliteration."""
    t = transliterate(name)
    return (name,) if t == name else (name, t)


def same_person(cited: str, record: Author) -> bool:
    """True if the cited name and the record author (``name`` or ``raw_name``) are one person.

    Transliterated umlauts and Nordic letters are the same letters ("Mueller" = "Müller",
    "Aasa" = "Åsa"), in either direction.
    """
    rec_names = [record.name] if record.raw_name is None else [record.name, record.raw_name]
    if any(_same_name(cited, r) for r in rec_names):
        return True
    cv = name_variants(cited)
    for r in rec_names:
        rv = name_variants(r)
        if len(cv) + len(rv) > 2 and any(
            _same_name(a, b) for a in cv for b in rv if (a, b) != (cited, r)
        ):
            return True
    return False


def is_placeholder(name: str) -> bool:
    """True for names that stand in for an author ("John Doe", "Author One", "Anonymous"…)."""
    k = fold(_clean(name))
    if k in _PLACEHOLDERS:
        return True
    return bool(re.fullmatch(r"(author|writer|name)( [a-z0-9])?|[a-z] author", k))


def _is_etal(name: str) -> bool:
    k = fold(name)
    return name.strip() in {"…", "...", "et al.", "et al"} or k in _ETAL


def _short(names: list[str], limit: int = 4) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + ", …"


def _named(record: list[Author]) -> list[Author]:
    """The record's authors that have a name (one with no letters is no author)."""
    return [a for a in record if _key(a.name) or (a.raw_name and _key(a.raw_name))]


def compare_authors(cited: list[str], et_al: bool, record: list[Author]) -> AuthorCheck:
    """Compare the cited author list with the record's: same people, same order, same count.

    With ``et_al`` (or a trailing "others" in the cited list) only the named authors are
    checked, and they must be the first authors of the record in order. A record list that
    itself ends in "others" is truncated: positions past it cannot be checked and are accepted.
    A cited list shorter than the record without "et al." is a mismatch.
    """
    gap = next(
        (i for i, c in enumerate(cited) if 0 < i < len(cited) - 1 and c.strip() in ("…", "...")),
        None,
    )
    if gap is not None:
        return _around_ellipsis(list(cited[:gap]), list(cited[gap + 1 :]), record)
    # a name with no letters ("", ".", "*") is no author, on either side
    names = [c.strip() for c in cited if c and _key(c)]
    while names and _is_etal(names[-1]):
        names.pop()
        et_al = True
    rec = _named(record)
    rec_truncated = False
    while rec and _is_etal(rec[-1].name):
        rec.pop()
        rec_truncated = True
    detail: dict[str, Any] = {
        "cited": names,
        "et_al": et_al,
        "record": [a.name for a in rec],
        "record_truncated": rec_truncated,
    }
    if not names:
        return AuthorCheck(True, "no authors cited", detail)
    if not rec:
        return AuthorCheck(False, "record lists no authors", detail)
    # assign each cited name to a record position: prefer the same position, then the first
    # unused position holding that person.
    used: set[int] = set()
    assigned: list[int | None] = []
    for i, n in enumerate(names):
        pos: int | None = None
        if i < len(rec) and same_person(n, rec[i]):
            pos = i
        else:
            for j, a in enumerate(rec):
                if j not in used and same_person(n, a):
                    pos = j
                    break
        if pos is not None:
            used.add(pos)
        assigned.append(pos)
    detail["positions"] = assigned
    checkable = len(names) if not rec_truncated else min(len(names), len(rec))
    for i, (n, pos) in enumerate(zip(names, assigned, strict=True)):
        if pos is None and i < checkable:
            if is_placeholder(n):
                return AuthorCheck(False, f"placeholder author '{n}'", detail)
            return AuthorCheck(False, f"author {i + 1} '{n}' not in record", detail)
    for n in names[checkable:]:
        if is_placeholder(n):
            return AuthorCheck(False, f"placeholder author '{n}'", detail)
    rec_names = [a.raw_name or a.name for a in rec]
    if not et_al and not rec_truncated and len(names) != len(rec):
        missing = [rec_names[j] for j in range(len(rec)) if j not in used]
        reason = f"cited {len(names)} authors, record has {len(rec)}"
        if missing and len(names) < len(rec):
            reason += f" (missing: {_short(missing)})"
        detail["missing"] = missing
        return AuthorCheck(False, reason, detail)
    if not et_al and rec_truncated and len(names) < len(rec):
        return AuthorCheck(
            False, f"cited {len(names)} authors, record has at least {len(rec)}", detail
        )
    expected = list(range(checkable))
    got = assigned[:checkable]
    if got != expected:
        if sorted(p for p in got if p is not None) == expected:
            rec_order = [rec_names[j] for j in range(checkable)]
            return AuthorCheck(
                False,
                f"author order differs: cited '{_short(names[:checkable], 5)}' but record lists "
                f"'{_short(rec_order, 5)}'",
                detail,
            )
        skipped = [
            rec_names[j] for j in range(max(p for p in got if p is not None) + 1) if j not in used
        ]
        return AuthorCheck(
            False,
            f"named authors are not the record's first {checkable}: record also has "
            f"'{_short(skipped)}' before them",
            detail,
        )
    if et_al:
        return AuthorCheck(True, f"first {len(names)} authors match (et al.)", detail)
    if rec_truncated and len(names) > len(rec):
        return AuthorCheck(
            True, f"{len(rec)} authors match; record list is truncated after them", detail
        )
    return AuthorCheck(True, f"all {len(names)} authors match in order", detail)


def _around_ellipsis(head: list[str], tail: list[str], record: list[Author]) -> AuthorCheck:
    """A cited list cut by an ellipsis ("A, B, … Z", APA 7 for 21 authors and more).

    The names before it are the record's first authors in order, those after it its last, and
    the record has at least as many authors as are named.
    """
    first = compare_authors(head, True, record)
    if not first.ok:
        return first
    tail = [c.strip() for c in tail if c and _key(c)]
    rec = _named(record)
    detail = {**first.detail, "after_ellipsis": tail}
    if rec and _is_etal(rec[-1].name):
        return AuthorCheck(
            True,
            f"first {len(head)} authors match; record list is truncated before the last",
            detail,
        )
    if len(rec) < len(head) + len(tail):
        return AuthorCheck(
            False,
            f"cited {len(head)} + {len(tail)} authors around an ellipsis, record has {len(rec)}",
            detail,
        )
    for n, a in zip(tail, rec[len(rec) - len(tail) :], strict=True):
        if not same_person(n, a):
            rec_last = [x.raw_name or x.name for x in rec[len(rec) - len(tail) :]]
            return AuthorCheck(
                False,
                f"the author after the ellipsis, '{n}', is not the record's last ('{_short(rec_last)}')",
                detail,
            )
    return AuthorCheck(
        True, f"first {len(head)} and last {len(tail)} authors match (ellipsis between)", detail
    )


@lru_cache(maxsize=1 << 16)
def family_key(name: str) -> str:
    """Folded family name of ``name`` (``""`` when none can be read); cheap pre-filter for candidates."""
    if not name or not name.strip():
        return ""
    return parse_person(name).family


@lru_cache(maxsize=1 << 16)
def family_keys(name: str) -> frozenset[str]:
    """:func:`family_key` of ``name`` and of its transliteration (umlauts spelt out)."""
    return frozenset(k for k in (family_key(v) for v in name_variants(name)) if k)
