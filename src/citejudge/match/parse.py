"""Turn what an item says about a cited work into a :class:`CitedWork`.

Four input shapes are handled:

* a free-text citation string in any common style (APA, MLA, Chicago, Harvard, IEEE,
  Vancouver, ACS, AIP, Elsevier, plain, Markdown) -> :func:`parse_citation_string`;
* a BibTeX entry -> :func:`parse_bibtex_entry` (also reached from a string starting ``@type{``);
* a CSL-JSON item -> :func:`parse_csl_item`;
* the ``metadata`` fields of a ``references`` item -> :func:`parse_metadata`.

The string parser is a heuristic, punctuation-driven parser, not a learned model. It is total:
any input yields a :class:`CitedWork` (possibly with few fields) and parse problems are listed
in ``warnings``; nothing raises. Identifiers are scanned in the whole string with the linear
extractors of :mod:`citejudge.ids`; the structure (authors, year, title, venue) is read from
the first :data:`MAX_STRUCTURE_CHARS` characters only, so a 1 MB string costs little.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import bibtexparser

from citejudge import ids
from citejudge.match.citation import CitedWork
from citejudge.match.normalize import delatex, strip_markup
from citejudge.match.venues import is_book_series

__all__ = [
    "MAX_STRUCTURE_CHARS",
    "parse_bibtex_entry",
    "parse_citation_string",
    "parse_csl_item",
    "parse_item_citation",
    "parse_metadata",
    "split_author_string",
    "strip_dblp_suffix",
]

logger = logging.getLogger(__name__)

MAX_STRUCTURE_CHARS = 5000
"""Only this many leading characters are parsed for structure (ids are scanned everywhere)."""

_MAX_BIBTEX_CHARS = 100_000

# --------------------------------------------------------------------------------------------
# shared vocabularies and small patterns
# --------------------------------------------------------------------------------------------

_PREPRINT_RE = re.compile(
    r"arxiv|biorxiv|medrxiv|chemrxiv|ssrn|research\s*square|preprints?\.org|\bpreprint\b|psyarxiv|osf\s*preprints",
    re.I,
)
_ET_AL_RE = re.compile(r"\b(?:et\.?\s*al\b\.?|and\s+others\b|a\s+kol\b\.?|u\.\s*a\.)", re.I)
_ELLIPSIS_RE = re.compile(r"\s*(?:…|\.\.\.)\s*")
_PARTICLES = frozenset(
    ["van", "von", "der", "den", "de", "del", "della", "da", "das", "dos", "du", "di", "la", "le", "ter", "ten", "bin", "ibn", "al", "el", "y", "zu", "zur", "zum", "vom", "do", "dei", "degli", "af", "av", "v.", "v", "vd"]
)
# Words that never occur in personal names but are common in venues and titles.
_NOT_NAME_WORDS = frozenset(
    ["journal", "review", "reviews", "proceedings", "proc", "conference", "conf", "letters", "lett", "science", "sciences", "physics", "physical", "university", "univ", "press", "international", "society", "transactions", "research", "annals", "bulletin", "institute", "chemistry", "chemical", "biology", "medicine", "medical", "engineering", "technology", "report", "reports", "workshop", "symposium", "meeting", "congress", "academy", "association", "committee", "department", "ministry", "organization", "organisation", "council", "group", "project", "collaboration", "thesis", "dissertation", "handbook", "edition", "vol", "volume", "pp", "editor", "editors", "eds", "ed", "in", "advances", "applied", "computer", "computing", "nature", "cell", "studies", "systems", "quarterly", "magazine", "economics", "economic", "management", "education", "health", "clinical", "molecular", "national", "american", "european", "world", "new", "the", "a", "an", "of", "on", "for", "with", "from", "to", "by", "and", "at", "as", "its", "is", "are"]
)
_ABBREV_WORDS = frozenset(
    ["j", "jr", "sr", "st", "phys", "rev", "lett", "chem", "soc", "am", "biol", "med", "sci", "mater", "magn", "nat", "proc", "natl", "acad", "appl", "eng", "int", "res", "trans", "ann", "mol", "clin", "surf", "environ", "geophys", "astrophys", "math", "stat", "comput", "inf", "syst", "mech", "struct", "biochem", "biophys", "immunol", "microbiol", "pharmacol", "neurosci", "psychol", "ecol", "evol", "genet", "anal", "opt", "commun", "electron", "technol", "ind", "assoc", "bull", "eur", "br", "can", "jpn", "exp", "gen", "inorg", "org", "polym", "nucl", "rep", "vol", "no", "nos", "pp", "ed", "eds", "dev", "curr", "opin", "adv", "theor", "chim", "acta", "z", "zh", "angew", "ber", "lond", "ser", "dis", "infect", "sch", "sociol", "econ", "manag", "sens", "agric", "fig", "figs", "e", "g", "i", "ie", "eg", "cf", "et", "al", "dr", "mr", "yu", "th", "kh", "zh", "sh", "ts", "mrs", "ms", "prof", "univ", "dept", "inst", "conf", "symp", "jour", "sect", "suppl", "pt", "ch", "chap", "rep", "repts", "arch", "neurol", "cardiol", "oncol", "surg", "endocrinol", "physiol", "pathol", "virol", "bacteriol", "dermatol", "radiol", "anesth", "anaesth", "obstet", "gynecol", "pediatr", "psychiatr", "ophthalmol", "otolaryngol", "urol", "nephrol", "hepatol", "gastroenterol", "rheumatol", "hematol", "respir", "perspect", "mon", "not", "roy", "astron", "astrophys", "geol", "geogr", "hist", "philos", "educ", "lang", "ling", "lit", "cogn", "behav", "comp", "sys", "biotechnol", "bioeng", "nanotechnol", "electrochem", "photochem", "spectrosc", "cryst", "crystallogr", "thermodyn", "hydrol", "meteorol", "oceanogr", "agron", "hortic", "entomol", "zool", "bot", "vet", "anim", "nutr", "food", "dent", "orthop", "rehabil", "med", "rep", "tech", "mem", "diss"]
)
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|spring|summer|fall|autumn|winter)"
)
_YEAR_RE = re.compile(r"(?<![\d/.:\-–])((?:1[6-9]|20)\d\d)([a-z])?(?![\d])(?!\s*[-–]\s*\d)")
_YEAR_WORDS_RE = re.compile(
    r"\b(in\s+press|(?-i:n\.\s?d\.)|no\s+date|forthcoming|in\s+preparation|submitted|accepted)", re.I
)
_QUOTES_OPEN = "“\"«„”"
_ID_NOISE_RE = re.compile(
    r"(?:\bdoi\s*(?:[:=]\s*|(?=10\.\d)|$)|\bhttps?://\S+|\b10\.\d{4,9}\s?/\S+|\barxiv\s*:\s*\S+(?:\s*\[[\w.\-]+\])?|"
    r"\bpmid\s*[:=]?\s*\d+|\bpmcid\s*[:=]?\s*(?:pmc)?\s*\d+|\bpmc\d{3,}|\bavailable\s+(?:at|from|online)\s*:?|"
    r"\bretrieved\s+from\b|\[online\]\.?|\[\s*spires\s*\]|\burn:\S+|\bwww\.\S+)",
    re.I,
)
_ID_NOISE_KEYS = ("doi", "http", "10.", "arxiv", "pmid", "pmc", "available", "retrieved", "online", "spires", "urn:", "www.")
_UNPRINTABLE_RE = re.compile(r"[^\n\t\x20-\x7e\u00a0-\ud7ff\ue000-\ufffc\U00010000-\U0010ffff]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_WS_RE = re.compile(r"\s+")
_NUMBERING_RE = re.compile(r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|(?!(?:1[6-9]|20)\d\d\b)\d{1,4}\s*[.)]\s+|\d{1,3}\s+(?=[A-Z])|\d{1,3}(?=[A-Z][a-z]|[A-Z]\.))\s*")
# Capital letters for initials: ASCII plus Latin-1/Latin Extended-A capitals ("Â. F.", "Ö.").
_UP = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x180)) if c.isupper() and len(c.lower()) == 1)
_INITIALS_RE = re.compile(rf"^(?:(?:[{_UP}]\.?|[{_UP}][a-z]\.)\s*(?:-\s*)?){{1,4}}$")
_COMPACT_INITIALS_RE = re.compile(rf"^[{_UP}]{{1,3}}$")
_WORD_RE = re.compile(r"^[^\W\d_][\w'’`.\-\u2010\u2011\u2013\ufffd\u0300-\u036f]*$")


def _bool_warn(warnings: list[str], msg: str) -> None:
    if msg not in warnings:
        warnings.append(msg)


def _clean(text: str) -> str:
    text = _CONTROL_RE.sub(" ", text)
    return _WS_RE.sub(" ", text).strip()


def _strip_italics(text: str) -> str:
    # Markdown emphasis only around whole words: "Oncology*Biology*Physics" keeps its stars
    s = re.sub(r"(?<![\w*])\*{1,2}(?=[^\s*])([^*]+?)\*{1,2}(?![\w*])", r"\1", text)
    s = re.sub(r"(?<!\w)_([^_]+)_(?!\w)", r"\1", s)
    return s.strip(" *_")


def _tidy(text: str | None) -> str | None:
    if text is None:
        return None
    s = _strip_italics(_clean(text)).strip(" ,;:.")
    s = s.strip(" ,;:")
    return s or None


# --------------------------------------------------------------------------------------------
# names
# --------------------------------------------------------------------------------------------


def strip_dblp_suffix(name: str) -> str:
    """Remove DBLP's homonym number from a name: ``"Jiawei He 0002"`` -> ``"Jiawei He"``."""
    return re.sub(r"\s+\d{4}\s*$", "", name).strip()


def _words(s: str) -> list[str]:
    return [w for w in re.split(r"\s+", s.strip()) if w]


def _is_initial_token(w: str) -> bool:
    return bool(_INITIAL_TOKEN_RE.fullmatch(w))


_INITIAL_TOKEN_RE = re.compile(rf"(?:[{_UP}][a-z]?\.(?:\s*-\s*)?)+|[{_UP}]\.?|[{_UP}]\.?-[{_UP}]\.?|-[{_UP}]\.")
# Dotted initials followed by a word: "W. K. Malaria" (initials, then the title's first word).
_INITIALS_THEN_WORD_RE = re.compile(rf"^((?:[{_UP}][a-z]?\.\s?-?\s?)*[{_UP}][a-z]?\.)\s+(?=[^\W\d_]{{2}}|A\s)")


def _is_name_word(w: str) -> bool:
    if w.lower() in _PARTICLES:
        return True
    if not _WORD_RE.match(w) or w.lower().strip(".") in _NOT_NAME_WORDS:
        return False
    return w[0].isupper() or w[0] in "'’`" or w[:2].lower() in ("d'", "o'", "l'")


def _is_initials(s: str) -> bool:
    s = s.strip()
    return bool(_INITIALS_RE.match(s) or _COMPACT_INITIALS_RE.match(s))


def _is_family(s: str) -> bool:
    """A surname alone: 1-4 name words, no initials, at least one capitalised word."""
    ws = _words(s)
    if not 1 <= len(ws) <= 4:
        return False
    if any(_is_initial_token(w) for w in ws):
        return False
    if len(ws) > 1 and not s.isupper() and any(_COMPACT_INITIALS_RE.match(w) for w in ws):
        return False
    if not all(_is_name_word(w) for w in ws):
        return False
    return (len(ws) == 1 and ws[0][0].isupper()) or any(w.lower() not in _PARTICLES for w in ws)


def _n_core(s: str) -> int:
    """Words of ``s`` that are not lower-case particles ("Maria das Graças Vale" has 3)."""
    return len([w for w in _words(s) if not (w.lower() in _PARTICLES and w[:1].islower())])


def _is_given(s: str) -> bool:
    ws = _words(s)
    return 1 <= _n_core(s) <= 3 and all(_is_name_word(w) or _is_initial_token(w) for w in ws)


def _is_name(s: str, max_full: int = 3) -> bool:
    """A complete personal name in any order (``M. J. Shea``, ``Shea MJ``, ``Jacob Devlin``).

    A name of only full words has at most ``max_full`` of them (more is a title or venue, unless
    the list already has names: "Juan Pablo Pizarro Ruiz").
    """
    s = s.strip()
    if not s or len(s) > 60 or any(ch.isdigit() for ch in s):
        return False
    ws = _words(s.replace(".", ". ").replace(". -", ".-"))
    if not 1 <= len(ws) <= 7:
        return False
    n_full = 0
    for w in ws:
        if _is_initial_token(w) or _COMPACT_INITIALS_RE.match(w):
            continue
        if not _is_name_word(w):
            return False
        if w.lower() not in _PARTICLES or w[0].isupper():
            n_full += 1
    if n_full == 0 and not (len(ws) == 1 and ws[0][0].isupper()):
        return False
    # "Physical Review B": several full words and no initials is a name only if short.
    return not (n_full > max_full and len(ws) == n_full)


def _initials_then_title(s: str) -> tuple[str, int] | None:
    """``"Rao, M. Protected Areas"`` -> (``"Rao, M."``, characters used); None if not that shape."""
    if s.count(",") != 1:
        return None
    fam, given = s.split(",")
    if not _is_family(fam) or _is_initials(given):
        return None
    g = given.lstrip()
    m = _INITIALS_THEN_WORD_RE.match(g)
    if not m:
        return None
    return f"{fam.strip()}, {m.group(1)}", len(fam) + 1 + (len(given) - len(g)) + len(m.group(1))


def _is_inverted_name(s: str) -> bool:
    """``Family, Given`` written with a comma (semicolon-separated lists, BibTeX)."""
    if s.count(",") != 1:
        return False
    fam, given = s.split(",")
    return _is_family(fam) and (_is_initials(given) or _is_given(given))


_SEP_RE = re.compile(
    r"\s*(?:,?\s*(?:…|\.\.\.)\s*|,\s*(?:and|&)\s+|\s+and\s+|\s+and(?=[A-Z]\.)|\s*&\s*|,|\s+und\s+|\s+u\.\s*|\s+y\s+|\s+et\s+(?!al))\s*"
)
_SEMI_SEP_RE = re.compile(r"\s*(?:;?\s*(?:…|\.\.\.)\s*|;\s*(?:(?:and\b|&)\s*)?|\s+and\s+|\s*&\s*)\s*", re.I)


def _chunks(seg: str, sep: re.Pattern[str]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    pos = 0
    for m in sep.finditer(seg):
        if m.start() > pos or out:
            out.append((seg[pos : m.start()], pos, m.start()))
        pos = m.end()
    out.append((seg[pos:], pos, len(seg)))
    return [c for c in out if c[0].strip()]


def _cut_sentence_name(chunk: str) -> str | None:
    """A name followed by ``. Title...`` inside one chunk (``Katsouyanni K. Short-term``)."""
    m = re.match(r"^(.{2,60}?)\.\s+(?=\S)", chunk)
    if m and _is_name(m.group(1)):
        return m.group(1)
    return None


def _split_names(seg: str, names_only: bool = False, quote_next: bool = False) -> tuple[list[str], int]:
    """Names in ``seg`` (an author segment) and how many leading characters they use.

    ``names_only``: the segment is known to hold only names (a quoted title or the year follows
    it), so "Baird, J. Kevin" is a name, not initials followed by the title's first word.
    ``quote_next``: a quoted title follows the segment, so a last one-word chunk is a mononym
    author ("J. S. Kirti and Shipali, “Title,”"), not a venue.
    """
    if ";" in seg:
        names: list[str] = []
        end = 0
        semi = _chunks(seg, _SEMI_SEP_RE)
        for k, (chunk, _s, e) in enumerate(semi):
            c = chunk.strip()
            tcut = _initials_then_title(c)
            if tcut and not names_only and not (k + 1 < len(semi) and _is_inverted_name(semi[k + 1][0].strip())):
                # ACS "Rao, M. Protected Areas...": the initials end the list, a title follows
                names.append(tcut[0])
                end = _s + (len(chunk) - len(chunk.lstrip())) + tcut[1]
                break
            if _is_inverted_name(c) or _is_name(c):
                names.append(c)
                end = e
                continue
            m = re.match(r"^([^,]{1,40},\s*(?:[A-Z][a-z]?\.\s*-?\s*){1,4})", c)
            if m and _is_inverted_name(m.group(1).strip()):
                names.append(m.group(1).strip())
                end = _s + len(chunk) - len(chunk.lstrip()) + len(m.group(1))
            break
        if names:
            return names, end
    chunks = _chunks(seg, _SEP_RE)
    names = []
    end = 0
    i = 0
    mode = "natural"
    if len(chunks) >= 2:
        c0, c1 = chunks[0][0].strip(), chunks[1][0].strip()
        if _is_family(c0) and _is_initials(c1):
            mode = "inverted-initials"
        elif (
            _is_family(c0)
            and (len(_words(c0)) <= 2 or c0[:1].islower())
            and _is_given(c1)
            and not _is_initials(c0)
        ):
            later = [c[0].strip() for c in chunks[2:4]]
            # "Wang, Xiaoxiao, Shaoqing Guo" (first inverted only) or "Devlin, Jacob, Chang, Ming-Wei";
            # MLA/Chicago "von Schirnding, Yasmin" / "De Marchi, Massimo, Martino Cassandro": a
            # lower-case particle or a one-word second chunk also marks the inverted first name.
            if (
                len(_words(c0)) == 1
                or (later and _is_initials(later[0]))
                or c0[:1].islower()
                or len(_words(c1)) == 1
            ):
                mode = "inverted-given"
    first = True
    vancouver = bool(chunks) and bool(re.fullmatch(r"[^\s.,]+(?:\s[^\s.,]+)*\s[A-Z]{1,3}", chunks[0][0].strip()))
    while i < len(chunks):
        chunk, _s, e = chunks[i]
        c = chunk.strip()
        nxt = chunks[i + 1][0].strip() if i + 1 < len(chunks) else None
        if names and re.fullmatch(r"(?:Jr|Sr|II|III|IV)\.?", c):
            names[-1] = f"{names[-1]}, {c}"
            end = e
            i += 1
            continue
        if mode != "natural" and nxt is not None and _is_family(c):
            pair_ok = _is_initials(nxt) if (mode == "inverted-initials" and not first) else (
                _is_initials(nxt)
                or (
                    _is_given(nxt)
                    and (first or len(_words(c)) == 1)
                    and _n_core(nxt) <= (3 if first else 2)
                    and (names_only or not _INITIALS_THEN_WORD_RE.match(nxt))
                )
            )
            if first and mode == "inverted-initials":
                pair_ok = True
            if pair_ok and not (not first and len(_words(nxt)) >= 2 and not _is_initials(nxt) and mode == "inverted-initials"):
                names.append(f"{c}, {nxt}")
                end = chunks[i + 1][2]
                i += 2
                first = False
                continue
        if nxt is not None and _is_family(c) and (first or mode != "natural"):
            im = _INITIALS_THEN_WORD_RE.match(nxt) or re.match(r"^([A-Z]{1,3})\.\s+(?=[^\W\d_])", nxt)
            # "Reisen, W. K. Malaria": initials then the title's first word, unless the list goes on
            # with another "Family, Given" pair ("Smith, J. Robert, Doe, K.").
            list_goes_on = i + 3 < len(chunks) and _is_family(chunks[i + 2][0].strip()) and (
                _is_initials(chunks[i + 3][0].strip()) or _is_given(chunks[i + 3][0].strip())
            )
            # (only after a bare family name: "Anamika Rani, S. Singh" is two natural names)
            bare_family = len(_words(c)) == 1 or c[:1].islower()
            title_may_follow = first and bare_family and not list_goes_on and not names_only
            if im and (not _is_name(nxt) or title_may_follow) and not _is_initials(nxt):
                names.append(f"{c}, {im.group(1)}")
                end = chunks[i + 1][1] + len(im.group(1))
                break
        vm = re.match(r"^([^.]+?\s[A-Z]{1,3})\.\s+(?=\S)", c)
        rem_words = _words(c[vm.end() :]) if vm else []
        # "Buckley R. Environmental Opportunities and Risks in Finance": the "and" is the title's
        runs_on = (
            vm is not None
            and nxt is not None
            and bool(re.fullmatch(r"\s+and\s+", seg[e : chunks[i + 1][1]]))
            and not _is_name(nxt, max_full=5)
        )
        if (
            vm
            and _is_name(vm.group(1))
            and (len(rem_words) >= 2 or vancouver or runs_on)
            and not _is_initial_token(rem_words[0])
            and rem_words[0].rstrip(".") not in ("Jr", "Sr")
            and (
                vancouver
                or runs_on
                or not (
                    _is_family(c[vm.end() :])
                    and len([w for w in rem_words if not (w.lower() in _PARTICLES and w[:1].islower())]) <= 2
                )
            )
        ):
            names.append(vm.group(1))
            end = _s + (len(chunk) - len(chunk.lstrip())) + len(vm.group(1))
            break
        if (
            mode == "natural"
            and names
            and re.match(r"[A-Z][a-z]?\.", names[0])
            and not any(
                _is_initial_token(w) or (_COMPACT_INITIALS_RE.match(w) and len(w) <= 2)
                for w in _words(c.replace(".", ". "))
            )
            # a one-word name inside the list ("S. B. Siwach, Jagdish, S. Lahri") or at the end of a
            # list known to hold only names is a mononym author
            and not (
                len(_words(c)) == 1
                and _is_name(c)
                and (quote_next or (nxt is not None and any(_is_initial_token(w) for w in _words(nxt))))
            )
        ):
            break  # "Y. LeCun, Y. Bengio, Nuclear Instruments": the venue, not a name
        if _is_name(c, max_full=5 if names else 3):
            names.append(c)
            end = e
            i += 1
            first = False
            continue
        cut = _cut_sentence_name(c)
        if cut:
            names.append(cut)
            end = _s + (len(chunk) - len(chunk.lstrip())) + len(cut)
        break
    return names, end


# "Romero Marcos Pedrosa Brandão-Costa", "Alexsandra Frazão de Andrade", "Thiago Moreno L. Souza"
_GIVEN_FIRST_NAME = re.compile(
    rf"^[{_UP}][\w'’\-]*\.?(?:\s+(?:[{_UP}][\w'’\-]*\.?|(?:de|da|das|do|dos|del|della|di|du|van|von|der|den|le|la|dias|y|e)))"
    r"{1,6}$"
)
_VANCOUVER_END = re.compile(r"\s[A-Z]{1,3}\s*$")  # "Smith JA": a Vancouver name, not "Smith, John"
_NAME_HYPHENS = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013"})


def split_author_string(text: str) -> list[str]:
    """Split a bare author list (``"A and B"``, ``"Last, F., Last2, G."``, ``"A; B"``) into names."""
    s = _clean(text)
    if not s:
        return []
    s = _ELLIPSIS_RE.sub(" ", _ET_AL_RE.sub("", s)).strip(" ,;")
    s = _AUTHOR_MARK_RE.sub(r"\1", s).strip(" ,;")
    s = s.translate(_NAME_HYPHENS)
    parts = [p.strip(" ,;") for p in re.split(r"\s+and\s+", s)]
    if len(parts) > 1 and all(p and (p.count(",") == 0 or (p.count(",") == 1 and not _VANCOUVER_END.search(
            p.split(",")[0]))) for p in parts):
        # BibTeX's "A and B and Last, First": every name is delimited by "and"
        return parts
    names, end = _split_names(s)
    rest = s[end:].strip(" ,;") if names else ""
    if not names:
        names = [p.strip() for p in re.split(r"\s*(?:;|\band\b|&)\s*", s) if p.strip()]
    if rest:
        names.append(rest)
    out: list[str] = []
    for n in names:
        # a run of given-first full names the splitter did not cut: "A B C, D E F, G H"
        parts = [c.strip() for c in re.split(r",\s*(?:and\s+|&\s*)?", n) if c.strip()] if "," in n else [n]
        if len(parts) >= 2 and all(_GIVEN_FIRST_NAME.match(c) for c in parts):
            out.extend(parts)
        elif (n is rest and not out) or n is not rest:
            out.append(n)
    return out


# --------------------------------------------------------------------------------------------
# year, sentences, venue
# --------------------------------------------------------------------------------------------


def _year_candidates(s: str, quoted: tuple[int, int] | None = None) -> list[tuple[int, int, int, str]]:
    """(score, start, end, raw) of every plausible year in ``s``.

    A year inside the quoted title span ``quoted`` or written as part of a running date inside a
    sentence ("... from March to August 2006.") is a title word, not the publication year.
    """
    out: list[tuple[int, int, int, str]] = []
    for m in _YEAR_RE.finditer(s):
        y = int(m.group(1))
        if y > 2035:
            continue
        st, en = m.start(), m.end()
        before = s[max(0, st - 12) : st]
        after = s[en : en + 3]
        score = 0
        if re.search(r"\(\s*(?:" + _MONTHS + r"\.?\s*\d{0,2},?\s*)?$", before, re.I) and re.match(
            r"\s*(?:\)|,|/|;|\s*[a-z]?\))", after, re.I
        ):
            score += 3
        if re.match(r"\s*;", after):
            score += 2
        if (re.search(r"(?:[.,:]|\))\s*$", before) or st == 0) and re.match(r"\s*(?:[.,):;]|$)", after):
            score += 1
        if re.search(_MONTHS + r"\.?\s*\d{0,2},?\s*$", before, re.I):
            ctx = s[max(0, st - 40) : st]
            mm = re.search(r"\b" + _MONTHS + r"\.?\s*\d{0,2},?\s*$", ctx, re.I)
            pre = re.sub(r"\d{1,2}(?:\s*[-–]\s*\d{1,2})?$", "", ctx[: mm.start()].rstrip()).rstrip() if mm else ""
            # "Nature, 19 March 2020" / "(March 2020)" is a date; "... to August 2006" is title text
            score += 1 if not pre or pre[-1] in "(,.;:" else -1
        if re.match(r"\s+(?!" + _MONTHS + r"\b)[^\W\d_]{2}", s[en : en + 12], re.I) and not re.search(r"\(\s*$", before):
            score -= 1  # "18–19 November 2008 Washington": running text goes on after the year
        if quoted is not None and quoted[0] <= st < quoted[1]:
            score -= 5
        if re.search(r"\b(?:pp?|vol|no)\.?\s*$", before, re.I):
            score -= 3
        if re.match(r"\s*[-–]\s*\d", after) or re.search(r"\d\s*[-–:]\s*$", before):
            score -= 3
        out.append((score, st, en, m.group(0)))
    return out


def _best_year(s: str, quoted: tuple[int, int] | None = None) -> tuple[int, int, int, str] | None:
    cands = [c for c in _year_candidates(s, quoted) if c[0] >= 0]
    if not cands:
        return None
    return max(cands, key=lambda c: (c[0], -c[1]))


_VENUE_START_RE = re.compile(r"\s+(?:Journal|Proceedings|Annals|Bulletin|Transactions|Review|In:)\b")


def _is_boundary(s: str, dot: int) -> bool:
    """True if the ``.`` at ``s[dot]`` ends a sentence (is not an initial or an abbreviation)."""
    m = re.search(r"([^\s.(]*)$", s[max(0, dot - 40) : dot])
    word = (m.group(1) if m else "").lstrip("-‐")
    if not word:
        return True
    if re.fullmatch(r"[A-Z](?:[.-]+[A-Z])*", word) or (len(word) == 1 and word.isalpha()):
        return bool(_VENUE_START_RE.match(s, dot + 1))
    return word.lower() not in _ABBREV_WORDS


def _sentences(s: str) -> list[tuple[int, int]]:
    """Spans of sentences in ``s`` split at ``. ``/``? ``/``! `` boundaries (abbreviation-aware)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"[.?!](?=\s|$)|\.(?=[A-Z][a-z])", s):
        p = m.start()
        if s[p] == "." and (s[max(0, p - 2) : p + 1] == "..." or not _is_boundary(s, p)):
            continue
        end = p + 1 if s[p] in "?!" else p
        if s[start:end].strip():
            spans.append((start, end))
        start = p + 1
    if s[start:].strip():
        spans.append((start, len(s)))
    return spans


# A number that is not an ordinal ("Proceedings of the 16th Workshop" goes on).
_NUM = r"\d(?!\d*(?:st|nd|rd|th)\b)(?!\d{3}\s+(?!" + _MONTHS + r"\b)[A-Z][a-z])"
_VENUE_END_RE = re.compile(
    r"(?:,\s*|\s+)(?:vol(?:ume)?\.?\s*\d|no\.\s*\d|pp?\.\s*\d|(?-i:S|Bd)\.\s*\d|" + _NUM + r")|\s*\(\s*(?:pp?\.\s*)?\d|\s*[;:]\s*\d|,\s*(?:"
    + _MONTHS
    + r")\b|\s+"
    + _NUM
    + r"|(?<=[a-z])\d|,\s*\(",
    re.I,
)
_PUBLISHER_WORDS_RE = re.compile(
    r"\b(?:press|publishers?|publishing|verlag|springer|wiley|elsevier|routledge|sage|mcgraw-hill|"
    r"prentice|academic|addison|pergamon|blackwell|kluwer|birkh[aä]user|cambridge university|oxford university|"
    r"taylor\s*&\s*francis|crc|lippincott|saunders|norton|penguin|macmillan)\b",
    re.I,
)


# "In: X", "in X", "InX" (glued, capital after): only a separate "In" is the prefix, never the
# start of a word ("International", "Information", "Innovation").
_IN_PREFIX_RE = re.compile(r"^(?:(?i:in)\s*:\s*|(?i:in)\s+|In(?=[A-Z]))")


def _venue_fields(part: str, work: CitedWork) -> None:
    """Fill venue, volume, pages and publisher from the text after the title."""
    s = part.strip(" .,;")
    if not s:
        return
    s = _IN_PREFIX_RE.sub("", s, count=1)
    # editors: "Crawford R.M.M. (ed.), Plant life ..." / "O'Connor F, editor. Title"
    s = re.sub(r"^.{0,120}?\((?:eds?|hrsg|editors?)\.?\)\s*[,.:]?\s*", "", s, flags=re.I)
    s = re.sub(r"^.{0,120}?,\s*(?:eds?|editors?)\.\s*", "", s, flags=re.I)
    s = re.sub(r"^(?:eds?\.|edited by)\s*.{0,120}?,\s*", "", s, flags=re.I)
    pub = re.search(r"(?:^|[.,]\s*)([A-Z][A-Za-z .'-]{1,40}):\s*([^.:;]{2,80})", s)
    if pub and not re.search(r"\d", pub.group(2)):
        work.publisher = _tidy(pub.group(2))
        s = s[: pub.start()].strip(" .,")
    elif _PUBLISHER_WORDS_RE.search(s) and not re.search(r"\bjournal\b|\bproceedings\b", s, re.I):
        m = re.search(r"(?:^|[.,]\s*)([^.,;]*" + _PUBLISHER_WORDS_RE.pattern + r"[^.,;]*)", s, re.I)
        if m:
            # LNCS ends with "Springer (2019)" / "Springer, Cham (2019)": the year is not the publisher's
            work.publisher = _tidy(re.sub(r"\s*\(\s*(?:1[6-9]|20)\d\d[a-z]?\s*\)\s*$", "", m.group(1)))
            s = s[: m.start()].strip(" .,")
    if not s:
        return
    m = _VENUE_END_RE.search(s)
    venue = s[: m.start()] if m else s
    venue = re.sub(r"\s*\(\s*$", "", venue)
    tail = s[len(venue) :]
    work.venue = _tidy(venue)
    if work.venue and (len(work.venue) < 2 or not re.search(r"[^\W\d_]{2}", work.venue)):
        work.venue = None
    year_s = str(work.year) if work.year else None
    if year_s:
        # drop the year (and a month or day next to it) so it is not read as a volume or page
        tail = re.sub(r"[(,]?\s*(?:" + _MONTHS + r"\.?\s*\d{0,2},?\s*)?" + year_s + r"[a-z]?\s*\)?", " ", tail, count=1, flags=re.I)
    vm = re.search(r"\bvol(?:ume)?\.?\s*(\d+[A-Za-z]?)", tail, re.I) or re.search(
        r"^[\s,.:;]*([A-Z]?\d{1,5}[A-Z]?)\b(?!\s*[-–])", tail
    )
    if vm:
        work.volume = vm.group(1)
    pm = (
        re.search(r"\bpp?\.\s*([A-Za-z]?\d+(?:\s*[-–]+\s*[A-Za-z]?\d+)?)", tail)
        or re.search(r"(?<![\d(.])([A-Za-z]?\d+\s*[-–]+\s*[A-Za-z]?\d+)(?![\d)])", tail)
        or re.search(r":\s*([A-Za-z]?\d+(?:[-–]\d+)?)", tail)
        or (re.search(r"^[\s,.:;]*[A-Z]?\d{1,5}[A-Z]?\s*(?:\([^)]*\))?\s*[,.:]?\s*([A-Za-z]?\d+)\b", tail) if vm else None)
    )
    if pm:
        work.pages = re.sub(r"\s+", "", pm.group(1)).replace("--", "–")


# --------------------------------------------------------------------------------------------
# the string parser
# --------------------------------------------------------------------------------------------


_DOI_SPLIT_DOT_RE = re.compile(r"(10\.\d{4,9}/[^\s\"<>{}]*\.)\s(\d[\w\-]*[.\-][\w.\-]*\w)")
_DOI_SPACE_DOT_RE = re.compile(r"(10\.\d{4,9}/[^\s\"<>{}.]+)\s(\.\d[\w.\-]*\w)")
_SICI_RE = re.compile(r"10\.\d{4,9}/\(SICI\)[^\s\"{}]+", re.I)


def _extract_dois(text: str) -> list[str]:
    """DOIs via :func:`citejudge.ids.extract_dois`, repairing common breakages first.

    Repairs: a space after a dot inside the DOI (``10.1523/jneurosci. 0300-04.2004``), a space
    before a dot (``10.2217/fca .14.82``) and SICI DOIs with ``<...>`` (which the generic
    extractor stops at).
    """
    fixed = _DOI_SPLIT_DOT_RE.sub(r"\1\2", text) if "10." in text else text
    fixed = _DOI_SPACE_DOT_RE.sub(r"\1\2", fixed) if "10." in text else fixed
    found = ids.extract_dois(fixed)
    for m in _SICI_RE.finditer(fixed):
        full = ids.norm_doi(m.group(0))
        if full:
            found = [full if full.startswith(d) and full != d else d for d in found]
            if full not in found:
                found.append(full)
    return list(dict.fromkeys(found))


# A DOI label or resolver followed by something that is not a DOI, or a DOI whose slash was lost
# ("10.1016jcell.2019.01.001"): a stated identifier that cannot be read.
_BAD_DOI_RE = re.compile(
    r"(?:\bdoi\s*[:=]\s*|doi\.org/)(?!10\.\d{4,9}\s?/)(\S{4,})|(?<![\w./])(10\.\d{4,9}[a-z][\w.\-()]{3,})", re.I
)


def _scan_ids(text: str, work: CitedWork) -> None:
    text = _CONTROL_RE.sub(" ", text)
    work.doi = _extract_dois(text)
    if not work.doi and ("doi" in text.lower() or "10." in text):
        for m in _BAD_DOI_RE.finditer(text):
            bad = (m.group(1) or m.group(2)).rstrip(".,;")
            if bad and not ids.norm_doi(bad):
                work.bad_ids.append(("doi", bad[:200]))
                break
    work.pmid = ids.extract_pmid(text)
    work.pmcid = ids.extract_pmcid(text)
    work.arxiv = ids.extract_arxiv(text)
    if work.arxiv is None:
        for d in work.doi:
            a = ids.arxiv_from_doi(d)
            if a:
                work.arxiv = a
                break
    work.openalex = ids.extract_openalex(text)
    work.urls = list(dict.fromkeys(ids.extract_urls(text)))[:50]


def _find_quote(s: str) -> tuple[int, int, int] | None:
    """(open, close, after) of the first quoted span that looks like a title."""
    for n_tried, m in enumerate(re.finditer(r"[“\"«„]|(?<![\w])[‘'](?=[A-Z\[(])", s)):
        if n_tried >= 20:
            break
        o = m.start()
        ch = s[o]
        closers = {"“": "”\"", '"': '"”', "«": "»", "„": "“”\"", "‘": "’", "'": "'"}[ch]
        if ch == "“" and "”" in s[o + 1 : o + 600]:
            closers = "”"  # “... the project "100 fields" ...”: inner straight quotes do not close it
        close = -1
        for k in range(o + 1, min(len(s), o + 600)):
            if s[k] in closers and (ch not in "‘'" or k + 1 >= len(s) or not s[k + 1].isalpha()):
                close = k
                break
        if close > o + 3:
            return o, close, close + 1
    return None


def _parse_markdown(s: str, work: CitedWork) -> bool:
    m = re.match(r"^\s*\[([^\]\n]{3,500})\]\(([^)\s]+)\)", s)
    if not m:
        return False
    work.title = _tidy(m.group(1))
    rest = s[m.end() :]
    lines = [ln.strip() for ln in rest.splitlines() if ln.strip()]
    for ln in lines:
        body = re.sub(r"^[-*+]\s+", "", ln)
        if not work.authors and ln[:1] in "-*+":
            low = body.lower()
            work.et_al = work.et_al or bool(_ET_AL_RE.search(body))
            body2 = _ET_AL_RE.sub("", body).strip(" ,;.")
            if not low.startswith(("http", "doi", "arxiv")):
                work.authors = split_author_string(body2)
                continue
        y = _best_year(body)
        if y and work.year is None:
            work.year, work.year_raw = int(y[3][:4]), y[3]
    return True


_LEADING_YEAR_RE = re.compile(
    r"^[\s.,:]*(?:\(\s*(?:(?:1[6-9]|20)\d\d[a-z]?|in\s+press|n\.\s?d\.|forthcoming)[^)\n]{0,25}\)"
    r"|(?:(?:1[6-9]|20)\d\d[a-z]?|in\s+press|n\.\s?d\.|forthcoming)(?=\s*[.,:;)]))\s*[.,:]?\s*",
    re.I,
)


def _strip_leading_year(rest: str) -> tuple[str, bool]:
    m = _LEADING_YEAR_RE.match(rest)
    return (rest[m.end() :], True) if m else (rest, False)


# Corresponding-author / affiliation marks after a name: "Jane Doe*, Richard Roe†".
_AUTHOR_MARK_RE = re.compile(r"(?<=[^\W\d_])(\.?)[*†‡]+(?=[\s,;.]|$)")
_EDS_BEFORE_YEAR_RE = re.compile(
    r"[\s,]*\(?\b(?:eds?|editors?|hrsg|coords?)\.?\)?(?=\s*[,.]?\s*\(?(?:1[6-9]|20)\d\d)", re.I
)


def _parse_structure(s: str, work: CitedWork) -> None:
    s = _NUMBERING_RE.sub("", s, count=1)
    low = s.lower()
    if any(k in low for k in _ID_NOISE_KEYS):
        s = _ID_NOISE_RE.sub(" ", s)
    s = _WS_RE.sub(" ", s).strip(" ,;")
    s = _EDS_BEFORE_YEAR_RE.sub("", s, count=1)
    if "*" in s or "†" in s or "‡" in s:
        s = _AUTHOR_MARK_RE.sub(r"\1", s)
    if not s:
        return
    # year (never one inside the quoted title)
    quote = _find_quote(s)
    best = _best_year(s, (quote[0], quote[1]) if quote else None)
    if best is not None:
        work.year = int(best[3][:4])
        work.year_raw = best[3]
    else:
        yw = _YEAR_WORDS_RE.search(s)
        if yw:
            work.year_raw = yw.group(1)
    # where the author list ends: earliest landmark
    landmarks: list[int] = []
    if best is not None and best[0] >= 1:
        st = best[1]
        while st > 0 and s[st - 1] in " (":
            st -= 1
        landmarks.append(st)
    yw2 = _YEAR_WORDS_RE.search(s)
    if yw2:
        landmarks.append(max(0, yw2.start() - (1 if s[yw2.start() - 1 : yw2.start()] == "(" else 0)))
    if quote:
        landmarks.append(quote[0])
    et = _ET_AL_RE.search(s)
    if et:
        landmarks.append(et.start())
    for sp in _sentences(s)[:1]:
        landmarks.append(sp[1])
    colon = re.search(r"(?<=[^\W\d_]|\.):(?!\d)", s)
    if colon:
        landmarks.append(colon.start())
    end = min(landmarks) if landmarks else len(s)
    seg = s[:end]
    after = s[end : end + 12].lstrip(" .,;:")
    names_only = bool(re.match(r"[“\"«„‘']|\(?(?:1[6-9]|20)\d\d\b", after))
    names, used = _split_names(seg, names_only, quote_next=bool(re.match(r"[“\"«„‘']", after)))
    corporate = seg.strip(" .,;")
    tail, _ = _strip_leading_year(s[end:].lstrip(" .,;:"))
    if (
        not names
        and names_only
        and (_find_quote(tail) is not None or len(_sentences(tail)) >= 2)
        and corporate[:1].isupper()
        and len(corporate) <= 80
        and len(_words(corporate)) <= 8
        and not re.search(r"\d", corporate)
    ):
        # "World Bank. 2003. “Title.”": an organisation as author (a quoted title or the year follows)
        names, used = [corporate], end
    rest = s[used:]
    if et and et.start() >= used and re.fullmatch(r"[\s,;.]*", s[used : et.start()]):
        work.et_al = True
        rest = s[et.end() :]
    elif et and et.start() < 200 and et.start() <= end + 2:
        work.et_al = True
    work.authors = [_clean(n).strip(" ,;") for n in names if _clean(n).strip(" ,;")]
    if not names:
        _bool_warn(work.warnings, "no author list recognised")
    # drop the year (author-date styles) and read title / venue
    if ellipsis_in(seg):
        work.et_al = True
    _title_and_venue(rest, best, work)


def ellipsis_in(seg: str) -> bool:
    """An elided author list (APA's ``A, B, … Z``) counts as "et al."."""
    return bool(_ELLIPSIS_RE.search(seg))


_VENUE_WORDS_RE = re.compile(
    r"\b(?:journal|proceedings|transactions|annals|bulletin|review|letters|archives|society|conference|"
    r"symposium|workshop|congress|magazine|acta|zeitschrift|revue|revista)\b",
    re.I,
)
_JOURNAL_START_RE = re.compile(
    r"^\s*(?:the\s+)?(?:proceedings|journal|transactions|annals|bulletin|archives|acta)\b", re.I
)
# "In: X" / "In X" (capital) / "Journal 12(3)": a venue sentence. "In vitro ..." and "A 12-Year
# Analysis" are titles (the number runs on into a word).
_VENUE_SENT_RE = re.compile(
    r"^\s*(?:(?-i:[Ii]n\s*:|In\s+(?=[A-Z]))|[^\W\d_][^\d]{1,150}?(?:,\s*|\s+)(?:vol\.?\s*|volume\s*)?[A-Z]?\d+\s*"
    r"(?:\(|[,:;.]|\s*[-–](?![^\W\d_])|$))",
    re.I,
)


def _title_and_venue(rest: str, best: tuple[int, int, int, str] | None, work: CitedWork) -> None:
    rest, author_date = _strip_leading_year(rest.lstrip(" ,.;:"))
    rest = rest.lstrip(" ,.;:")
    q = _find_quote(rest)
    if q and q[0] <= 3:
        work.title = _tidy(rest[q[0] + 1 : q[1]])
        _venue_fields(rest[q[2] :], work)
        return
    sents = _sentences(rest)
    if not sents:
        return
    # The venue is the last sentence that starts with words and goes on with numbers
    # ("Physical Review B, 47(15), 9967"); the sentences before it are the title.
    k = None
    texts = [rest[a:b] for a, b in sents]
    for i in range(len(sents) - 1, -1, -1):
        text_i = texts[i]
        if re.match(r"^\s*\d", text_i) or not re.search(r"[^\W\d_]{2}", text_i):
            continue
        if _VENUE_SENT_RE.match(text_i) or (
            i + 1 < len(texts)
            and re.match(r"^\s*\d", texts[i + 1])
            and not re.search(r"[^\W\d_]{2}", texts[i + 1])
            and not re.search(r"\d", text_i)
        ):
            k = i
            break
    first = rest[sents[0][0] : sents[0][1]]
    if k == 0 and len(texts) >= 2 and any(re.match(r"\s*[^\W\d_]{2}", t) for t in texts[1:]):
        k = None  # words follow the "venue" sentence: it was a title with a number in it
    if k is not None and k >= 1 and not author_date and _JOURNAL_START_RE.match(first):
        _venue_fields(rest, work)  # "Proceedings of the X. Series B, 17, 109": no title
    elif k is not None and k >= 1:
        work.title = _tidy(rest[sents[0][0] : sents[k - 1][1]])
        _venue_fields(rest[sents[k][0] :], work)
    elif k == 0:
        # ACS / AIP / Elsevier: the venue comes first, unless a comma-separated title precedes it
        # (Elsevier with titles: "Y. LeCun, ..., Deep learning, Nature 521 (2015) 436.")
        m = _VENUE_END_RE.search(rest)
        pre = rest[: m.start()] if m else rest
        if not author_date and work.authors and re.match(r"[A-Z][a-z]?\.", work.authors[0]) and ", " in pre:
            t, v = pre.rsplit(", ", 1)
            if (
                len(_words(t)) >= 2
                and v[:1].isupper()
                and not _PUBLISHER_WORDS_RE.search(v)
                and not _VENUE_WORDS_RE.search(t)
            ):
                work.title = _tidy(t)
                _venue_fields(rest[len(t) + 2 :], work)
                return
        _venue_fields(rest, work)
    else:
        more = len(sents) >= 2 and bool(re.search(r"[^\W\d_]{2}", rest[sents[0][1] :]))
        if more and author_date and len(sents) >= 3 and ":" not in texts[-1]:
            work.title = _tidy(rest[sents[0][0] : sents[-2][1]])
            _venue_fields(rest[sents[-1][0] :], work)
        elif more:
            work.title = _tidy(first)
            _venue_fields(rest[sents[0][1] :], work)
        elif author_date or (len(_words(first)) >= 6 and not re.search(r"\d", first) and work.authors):
            work.title = _tidy(first)
        else:
            _venue_fields(rest, work)
    if work.title and best is not None and not author_date:
        _title_year(rest, best, work)


def _title_year(rest: str, best: tuple[int, int, int, str], work: CitedWork) -> None:
    """Decide whether a year ending the title is a title word or the publication year.

    "Title, 2009." -> "Title" (the year follows the title). But "World Indicators 2006. Venue.
    2006." keeps its title, and "Meeting, 10–15 December 1975. Venue. 1976." keeps it and takes
    the later year (the title was a dated event).
    """
    title = work.title or ""
    m = re.search(r"[\s,.]*\(?\b" + re.escape(best[3]) + r"\)?\s*$", title)
    if not m:
        return
    at = rest.find(title)
    later = _best_year(rest[at + len(title) :]) if at >= 0 else None
    if later is not None:
        if later[3] != best[3]:
            work.year, work.year_raw = int(later[3][:4]), later[3]
        return
    work.title = _tidy(title[: m.start()])


def parse_citation_string(text: str) -> CitedWork:
    """Parse a free-text citation (any common style, Markdown, or a BibTeX entry as a string).

    Never raises: problems are listed in ``warnings`` and the fields that could be read are set.
    """
    if not isinstance(text, str):
        w = CitedWork(raw=repr(text)[:200], form="string")
        w.warnings.append(f"full_citation is {type(text).__name__}, not a string")
        return w
    if re.match(r"^\s*@\s*[A-Za-z]+\s*[{(]", text[:200]):
        return parse_bibtex_entry(text)
    work = CitedWork(raw=text, form="string")
    if not text.strip():
        work.warnings.append("empty citation")
        return work
    try:
        _scan_ids(text, work)
    except Exception as exc:  # pragma: no cover - defensive, the extractors are total
        logger.debug("id scan failed", exc_info=True)
        work.warnings.append(f"identifier scan failed: {type(exc).__name__}")
    head = text[:MAX_STRUCTURE_CHARS]
    if len(text) > MAX_STRUCTURE_CHARS:
        work.warnings.append(f"citation longer than {MAX_STRUCTURE_CHARS} characters; structure read from the start only")
    unprintable = len(_UNPRINTABLE_RE.findall(head)) if not head.isprintable() else 0
    if unprintable > 0.3 * len(head):
        work.warnings.append("citation is mostly non-text; only identifiers were read")
        return work
    try:
        md = _strip_control_keep_lines(strip_markup(head) if "<" in head or "&#" in head else head)
        if not _parse_markdown(md, work):
            _parse_structure(_pre_clean(_clean(md), work), work)
            _name_tail_out_of_title(work)
            _split_container_from_title(work)
    except Exception as exc:  # pragma: no cover - defensive: a parser bug must not lose the item
        logger.debug("citation structure parse failed", exc_info=True)
        work.warnings.append(f"structure parse failed: {type(exc).__name__}")
    work.is_preprint = work.is_preprint or work.arxiv is not None or bool(_PREPRINT_RE.search(head))
    if work.year is None and work.year_raw is None:
        work.warnings.append("no year found")
    return work


_SAME_AUTHORS_RE = re.compile(r"^\s*(?:[—–\-_]{2,}|―{1,})\s*[.,]?\s*")
_EDITOR_NOTE_RE = re.compile(r"^(.{2,200}?),\s*(?:eds?|editors?|hrsg|hg)\.(?=\s)", re.I)


def _pre_clean(text: str, work: CitedWork) -> str:
    """Marks that are not citation content: "———." (same authors as the entry before) and ", ed." after names."""
    m = _SAME_AUTHORS_RE.match(text)
    if m:
        work.warnings.append("authors given as '———' (the previous entry's authors): not checked")
        text = text[m.end() :]
    return _EDITOR_NOTE_RE.sub(r"\1.", text, count=1)


# "Title. In: Editors (eds.) Container. Series, vol. N" (Springer LNCS, German "In:") and Elsevier's
# "Title, in: Proceedings of ..." (lower-case "in:") when the parse left the container in the title.
_IN_CONTAINER_RE = re.compile(r"(?:\.\s+In:\s+|,\s+in:\s+)")
_EDITORS_RE = re.compile(r"^.{2,300}?\((?:eds?|hrsg|hg|editors?)\.?\)\s*[,.:]?\s*", re.I)


def _split_container_from_title(work: CitedWork) -> None:
    for attr in ("title", "venue"):
        text = getattr(work, attr)
        if not text:
            continue
        m = _IN_CONTAINER_RE.search(text)
        if not m or (attr == "venue" and work.title):
            continue
        head, container = text[: m.start()].strip(" .,"), text[m.end() :].strip(" .,")
        container = _EDITORS_RE.sub("", container)
        container = re.split(r"\.\s+(?=[A-Z])", container)[0].strip(" .,")
        container = re.sub(r",\s*(?:S|pp?|vol|Bd)\.?\s*\d.*$|,\s*S$", "", container).strip(" .,")
        if len(head.split()) < 2 or not container:
            continue
        work.title = _tidy(head)
        if attr == "venue" or not work.venue or is_book_series(work.venue):
            work.venue = _tidy(container)
        return


# The rest of an inverted name left at the start of the title: "Ohnishi, S. | Tsuyoshi. EPR ...",
# "Bach | P R. Quantitative ...", "Whikehart, J. | William. DSP-Based ...".
_NAME_TAIL_RE = re.compile(
    rf"^((?:[{_UP}]\.?\s?){{1,3}}|[{_UP}][a-z\u00df-\u024f'\-]{{1,14}}(?:\s[{_UP}][a-z\u00df-\u024f'\-]{{1,14}})?)\.\s+(?=\S)"
)


def _name_tail_out_of_title(work: CitedWork) -> None:
    """Give the last author back the given names the author splitter left at the start of the title.

    Only for an inverted last author ("Family, I." or a bare family name after inverted names)
    and a title that goes on after that short name-shaped sentence; the rest must still be a title
    of several words.
    """
    if not work.authors or not work.title:
        return
    last = work.authors[-1]
    m = _NAME_TAIL_RE.match(work.title)
    if not m:
        return
    rest = work.title[m.end() :]
    if len(rest.split()) < 3:
        return
    tail = m.group(1).strip()
    # the tail must follow the last author directly in the text (no year or title in between)
    last_word = last.replace(",", " ").split()[-1] if last.split() else ""
    if not last_word or not re.search(re.escape(last_word) + r"[\s.,]*" + re.escape(tail) + r"\.\s+"
                                      + re.escape(rest[:12]), work.raw):
        return
    initials_only = bool(re.fullmatch(rf"(?:[{_UP}]\.?\s?){{1,3}}", tail))
    bare_family = "," not in last and len(last.split()) == 1
    inverted_initial = bool(re.fullmatch(rf"[^,]+,\s*(?:[{_UP}]\.\s?){{1,3}}", last))
    others_inverted = len(work.authors) > 1 and all("," in a for a in work.authors[:-1])
    if (initials_only and (bare_family or inverted_initial)) or (
            not initials_only and (inverted_initial or (bare_family and others_inverted))):
        work.authors[-1] = f"{last}, {tail}" if bare_family else f"{last} {tail}"
        work.title = rest


def _strip_control_keep_lines(s: str) -> str:
    return _CONTROL_RE.sub(" ", s)


# --------------------------------------------------------------------------------------------
# BibTeX
# --------------------------------------------------------------------------------------------


def _split_bibtex_authors(value: str) -> tuple[list[str], bool]:
    """Split a BibTeX name list on `` and `` outside braces; ``others`` -> et al."""
    parts: list[str] = []
    depth = 0
    buf: list[str] = []
    i = 0
    low = value.lower()
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and ch.isspace():
            m = re.match(r"\s+and\s+", low[i:])
            if m:
                parts.append("".join(buf))
                buf = []
                i += m.end()
                continue
        buf.append(ch)
        i += 1
    parts.append("".join(buf))
    names: list[str] = []
    et_al = False
    for p in parts:
        n = _clean(delatex(p)).strip(" ,")
        if not n:
            continue
        if n.lower() in ("others", "et al", "et al.", "and others"):
            et_al = True
            continue
        names.append(strip_dblp_suffix(n))
    return names, et_al


_BIB_FIELD_RE = re.compile(r"(?:^|[,{\s])([A-Za-z][\w\-]*)\s*=\s*")


def _fallback_bibtex_fields(text: str) -> tuple[str | None, dict[str, str]]:
    """Best-effort field reading for entries bibtexparser rejects (unbalanced braces...)."""
    m = re.match(r"^\s*@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]*)\s*,?", text)
    etype = m.group(1).lower() if m else None
    body = text[m.end() :] if m else text
    fields: dict[str, str] = {}
    starts = list(_BIB_FIELD_RE.finditer(body))
    for k, fm in enumerate(starts):
        stop = starts[k + 1].start() if k + 1 < len(starts) else len(body)
        raw = body[fm.end() : stop].strip().rstrip(",").strip()
        raw = raw.rstrip("})").strip() if k + 1 == len(starts) else raw
        if raw.startswith(("{", '"')):
            raw = raw[1:]
            raw = re.sub(r"[}\"]\s*,?\s*$", "", raw)
        fields.setdefault(fm.group(1).lower(), raw.strip())
    return etype, fields


def parse_bibtex_entry(text: str) -> CitedWork:
    """Parse one BibTeX entry (the first one in ``text``) with bibtexparser 2; never raises."""
    work = CitedWork(raw=text if isinstance(text, str) else repr(text)[:200], form="bibtex")
    if not isinstance(text, str) or not text.strip():
        work.warnings.append("empty BibTeX entry")
        return work
    src = text[:_MAX_BIBTEX_CHARS]
    if len(text) > _MAX_BIBTEX_CHARS:
        work.warnings.append(f"BibTeX text longer than {_MAX_BIBTEX_CHARS} characters; truncated")
    fields: dict[str, str] = {}
    etype: str | None = None
    try:
        lib = bibtexparser.parse_string(src)  # type: ignore[attr-defined]
        if lib.entries:
            e = lib.entries[0]
            etype = e.entry_type.lower()
            for f in e.fields:
                fields.setdefault(f.key.lower(), str(f.value))
            if len(lib.entries) > 1:
                work.warnings.append(f"{len(lib.entries)} BibTeX entries given; the first was used")
        if lib.failed_blocks and not lib.entries:
            work.warnings.append("BibTeX entry could not be parsed (unbalanced braces?); fields read best-effort")
    except Exception as exc:
        logger.debug("bibtexparser failed", exc_info=True)
        work.warnings.append(f"BibTeX parser error ({type(exc).__name__}); fields read best-effort")
    if not fields:
        try:
            etype, fields = _fallback_bibtex_fields(src)
        except Exception:  # pragma: no cover - defensive
            fields = {}
    work.entry_type = etype
    try:
        _fill_from_bibtex_fields(fields, work)
    except Exception as exc:  # pragma: no cover - defensive
        logger.debug("bibtex field mapping failed", exc_info=True)
        work.warnings.append(f"BibTeX field error: {type(exc).__name__}")
    return work


def _fill_from_bibtex_fields(fields: dict[str, str], work: CitedWork) -> None:
    def get(*keys: str) -> str | None:
        for k in keys:
            v = fields.get(k)
            if v and v.strip():
                return v.strip()
        return None

    title = get("title")
    if title:
        work.title = _tidy(delatex(title))
    authors = get("author")
    if authors:
        work.authors, work.et_al = _split_bibtex_authors(authors)
    venue = get("journal", "booktitle", "journaltitle", "series", "howpublished", "school", "institution")
    if venue:
        work.venue = _tidy(delatex(venue))
    year = get("year", "date")
    if year:
        work.year_raw = _clean(delatex(year))
        ym = re.search(r"(?<!\d)(\d{4})(?!\d)", work.year_raw)
        work.year = int(ym.group(1)) if ym else None
    else:
        work.warnings.append("no year field")
    dois: list[str] = []
    for key in ("doi",):
        v = get(key)
        if v:
            d = ids.norm_doi(v)
            if d:
                dois.append(d)
            else:
                work.bad_ids.append(("doi", v[:200]))
    url = get("url")
    blob = " ".join(v for k, v in fields.items() if k in ("url", "note", "howpublished", "journal", "eprint", "biburl"))
    for d in ids.extract_dois(url or ""):
        if d not in dois:
            dois.append(d)
    work.doi = dois
    if url:
        work.urls = ids.extract_urls(url) or [url]
    work.pmid = ids.norm_pmid(get("pmid"))
    work.pmcid = ids.norm_pmcid(get("pmcid"))
    eprint = get("eprint", "arxivid", "arxiv")
    prefix = (get("archiveprefix", "eprinttype") or "").lower()
    if eprint and (prefix in ("", "arxiv") or "arxiv" in prefix):
        work.arxiv = ids.norm_arxiv(eprint)
    if work.arxiv is None:
        work.arxiv = ids.extract_arxiv(blob)
    if work.arxiv is None:
        for d in dois:
            work.arxiv = ids.arxiv_from_doi(d) or work.arxiv
    work.volume = _tidy(get("volume"))
    pages = get("pages")
    work.pages = re.sub(r"\s*-+\s*", "–", pages) if pages else None
    pub = get("publisher")
    work.publisher = _tidy(delatex(pub)) if pub else None
    # A preprint: the venue says so ("arXiv preprint arXiv:..."), or there is no venue and the
    # entry points at a preprint server (eprint field, note, publisher).
    others = " ".join(x for x in (prefix, get("publisher") or "", get("note") or "", get("howpublished") or "") if x)
    if venue:
        work.is_preprint = bool(_PREPRINT_RE.search(venue))
    else:
        work.is_preprint = work.arxiv is not None or bool(_PREPRINT_RE.search(others))


# --------------------------------------------------------------------------------------------
# CSL-JSON and metadata
# --------------------------------------------------------------------------------------------


def _csl_name(a: Any) -> str | None:
    if isinstance(a, str):
        return _clean(a) or None
    if not isinstance(a, dict):
        return None
    lit = a.get("literal")
    if isinstance(lit, str) and lit.strip():
        return _clean(lit)
    fam = a.get("family") if isinstance(a.get("family"), str) else None
    giv = a.get("given") if isinstance(a.get("given"), str) else None
    particle = a.get("non-dropping-particle")
    if fam and isinstance(particle, str) and particle:
        fam = f"{particle} {fam}"
    if fam and giv:
        return f"{_clean(fam)}, {_clean(giv)}"
    return _clean(fam or giv or "") or None


def _csl_year(issued: Any) -> tuple[int | None, str | None]:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            y = parts[0][0]
            try:
                return int(y), str(y)
            except (TypeError, ValueError):
                return None, str(y)
        for key in ("raw", "literal"):
            v = issued.get(key)
            if isinstance(v, str):
                m = re.search(r"(?<!\d)(\d{4})(?!\d)", v)
                return (int(m.group(1)) if m else None), v
    if isinstance(issued, (int, str)):
        m = re.search(r"(?<!\d)(\d{4})(?!\d)", str(issued))
        return (int(m.group(1)) if m else None), str(issued)
    return None, None


def _as_str(v: Any) -> str | None:
    if isinstance(v, str):
        return v.strip() or None
    if isinstance(v, list) and v and isinstance(v[0], str):  # CSL allows title arrays in the wild
        return v[0].strip() or None
    return None


def parse_csl_item(item: dict[str, Any]) -> CitedWork:
    """Read a CSL-JSON item (``author``, ``issued``, ``container-title``, ``DOI``...); never raises."""
    work = CitedWork(raw=repr(item)[:2000], form="csl")
    if not isinstance(item, dict):
        work.warnings.append(f"CSL item is {type(item).__name__}, not an object")
        return work
    title = _as_str(item.get("title"))
    work.title = _tidy(strip_markup(title)) if title else None
    authors = item.get("author")
    if isinstance(authors, list):
        for a in authors:
            n = _csl_name(a)
            if n:
                if n.lower() in ("others", "et al.", "et al"):
                    work.et_al = True
                else:
                    work.authors.append(n)
    elif authors is not None:
        work.warnings.append("author: not a list of CSL names; ignored")
    work.year, work.year_raw = _csl_year(item.get("issued"))
    venue = _as_str(item.get("container-title"))
    work.venue = _tidy(strip_markup(venue)) if venue else None
    doi = _as_str(item.get("DOI") or item.get("doi"))
    d = ids.norm_doi(doi) if doi else None
    work.doi = [d] if d else []
    if doi and not d:
        work.bad_ids.append(("doi", doi[:200]))
    work.pmid = ids.norm_pmid(_as_str(item.get("PMID")) or None)
    work.pmcid = ids.norm_pmcid(_as_str(item.get("PMCID")) or None)
    url = _as_str(item.get("URL"))
    if url:
        work.urls = [url]
        work.arxiv = ids.extract_arxiv(url)
        for x in ids.extract_dois(url):
            if x not in work.doi:
                work.doi.append(x)
    if work.arxiv is None and work.doi:
        work.arxiv = ids.arxiv_from_doi(work.doi[0])
    work.entry_type = _as_str(item.get("type"))
    work.volume = _as_str(str(item["volume"])) if isinstance(item.get("volume"), (str, int)) else None
    work.pages = _as_str(str(item["page"])) if isinstance(item.get("page"), (str, int)) else None
    work.publisher = _as_str(item.get("publisher"))
    blob = " ".join(x for x in (venue or "", work.publisher or "") if x)
    # CSL type "article" is the generic (preprint / working paper) type
    work.is_preprint = (
        work.arxiv is not None or bool(_PREPRINT_RE.search(blob)) or (work.entry_type == "article" and not venue)
    )
    return work


def parse_metadata(meta: dict[str, Any]) -> CitedWork:
    """Read a ``references`` item's ``metadata`` object; a field of the wrong type is ignored with a warning."""
    work = CitedWork(raw=repr(meta)[:2000], form="metadata")
    if not isinstance(meta, dict):
        work.warnings.append(f"metadata is {type(meta).__name__}, not an object")
        return work

    def text_field(name: str) -> str | None:
        v = meta.get(name)
        if v is None:
            return None
        if isinstance(v, str):
            return v.strip() or None
        work.warnings.append(f"{name}: expected a string, got {type(v).__name__}; ignored")
        return None

    title = text_field("title")
    work.title = _tidy(_strip_italics(delatex(strip_markup(title)))) if title else None
    authors = meta.get("authors")
    if isinstance(authors, str):
        authors = delatex(authors)
        work.et_al = bool(_ET_AL_RE.search(authors))
        work.authors = split_author_string(authors)
    elif isinstance(authors, list):
        for a in authors:
            if isinstance(a, str) and a.strip():
                a = delatex(a)
                if _ET_AL_RE.fullmatch(a.strip()) or a.strip().lower() in ("others", "et al", "et al."):
                    work.et_al = True
                else:
                    work.authors.append(_clean(a))
            elif isinstance(a, dict):
                n = _csl_name(a) or (_clean(a["name"]) if isinstance(a.get("name"), str) else None)
                if n:
                    work.authors.append(n)
                else:
                    work.warnings.append("authors: an entry has no usable name; ignored")
            else:
                work.warnings.append(f"authors: an entry is {type(a).__name__}, not a string; ignored")
    elif authors is not None:
        work.warnings.append(f"authors: expected a list or a string, got {type(authors).__name__}; ignored")
    year = meta.get("year")
    if isinstance(year, bool):
        work.warnings.append("year: expected an integer or a string, got bool; ignored")
    elif isinstance(year, int):
        work.year, work.year_raw = year, str(year)
    elif isinstance(year, str):
        work.year_raw = year.strip() or None
        m = re.search(r"(?<!\d)(\d{4})(?!\d)", year)
        work.year = int(m.group(1)) if m else None
    elif year is not None:
        work.warnings.append(f"year: expected an integer or a string, got {type(year).__name__}; ignored")
    venue = text_field("venue")
    work.venue = _tidy(delatex(venue)) if venue else None
    doi = text_field("doi")
    if doi:
        d = ids.norm_doi(doi)
        if d:
            work.doi = [d]
        else:
            work.bad_ids.append(("doi", doi[:200]))
    pmid = meta.get("pmid")
    if pmid is not None:
        if isinstance(pmid, (str, int)) and not isinstance(pmid, bool):
            work.pmid = ids.norm_pmid(pmid)
            if work.pmid is None and str(pmid).strip():
                work.bad_ids.append(("pmid", str(pmid)[:200]))
        else:
            work.warnings.append(f"pmid: expected a string, got {type(pmid).__name__}; ignored")
    pmcid = meta.get("pmcid")
    if pmcid is not None:
        if isinstance(pmcid, (str, int)) and not isinstance(pmcid, bool):
            work.pmcid = ids.norm_pmcid(pmcid)
            if work.pmcid is None and str(pmcid).strip():
                work.bad_ids.append(("pmcid", str(pmcid)[:200]))
        else:
            work.warnings.append(f"pmcid: expected a string, got {type(pmcid).__name__}; ignored")
    arxiv = text_field("arxiv")
    if arxiv:
        work.arxiv = ids.norm_arxiv(arxiv)
        if work.arxiv is None:
            work.bad_ids.append(("arxiv", arxiv[:200]))
    url = text_field("url")
    if url:
        work.urls = [url]
        if not work.doi:
            work.doi = ids.extract_dois(url)
        work.arxiv = work.arxiv or ids.extract_arxiv(url)
        work.pmcid = work.pmcid or (ids.extract_pmcid(url) if "pmc" in url.lower() else None)
        work.pmid = work.pmid or ids.extract_pmid(url)
    if work.arxiv is None and work.doi:
        work.arxiv = ids.arxiv_from_doi(work.doi[0])
    work.is_preprint = work.arxiv is not None or bool(work.venue and _PREPRINT_RE.search(work.venue))
    return work


def parse_item_citation(item: dict[str, Any]) -> tuple[CitedWork | None, CitedWork | None]:
    """(from ``full_citation``, from ``metadata``) of a ``references`` item; None where absent."""
    if not isinstance(item, dict):
        return None, None
    full: CitedWork | None = None
    fc = item.get("full_citation")
    if isinstance(fc, str) and fc.strip():
        full = parse_citation_string(fc)
    elif isinstance(fc, dict):
        full = parse_csl_item(fc)
    elif fc is not None and not isinstance(fc, str):
        full = CitedWork(raw=repr(fc)[:200], form="string")
        full.warnings.append(f"full_citation: expected a string or an object, got {type(fc).__name__}; ignored")
    meta_w: CitedWork | None = None
    meta = item.get("metadata")
    if isinstance(meta, dict) and meta:
        meta_w = parse_metadata(meta)
    elif meta is not None and not isinstance(meta, dict):
        meta_w = CitedWork(raw=repr(meta)[:200], form="metadata")
        meta_w.warnings.append(f"metadata: expected an object, got {type(meta).__name__}; ignored")
    return full, meta_w
