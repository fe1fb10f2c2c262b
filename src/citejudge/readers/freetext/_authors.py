"""Author lists in free-text citations: name shapes, splitting an author segment, initials."""

from __future__ import annotations

import re
from functools import lru_cache

from citejudge.readers._text import _ET_AL_RE, _clean
from citejudge.readers.freetext._vocab import (
    _AUTHOR_MARK_RE,
    _COMPACT_INITIALS_RE,
    _ELLIPSIS_RE,
    _INITIALS_RE,
    _NOT_NAME_WORDS,
    _PARTICLES,
    _UP,
    _WORD_RE,
)
from citejudge.text.normalize import may_match_ci

#: entries of each name-shape predicate's cache (the predicates are pure functions of a string;
#: the same chunks, "Smith", "J. A.", recur across a reference list)
_MEMO = 1 << 15


def _words(s: str) -> list[str]:
    return s.split()  # (the same words as splitting at r"\s+": str.isspace is re's \s)


@lru_cache(maxsize=_MEMO)
def _is_initial_token(w: str) -> bool:
    return bool(_INITIAL_TOKEN_RE.fullmatch(w))


_INITIAL_TOKEN_RE = re.compile(
    rf"(?:[{_UP}][a-z]?\.(?:\s*-\s*)?)+|[{_UP}]\.?|[{_UP}]\.?-[{_UP}]\.?|-[{_UP}]\."
)


# Dotted initials followed by a word: "W. K. Malaria" (initials, then the title's first word).
_INITIALS_THEN_WORD_RE = re.compile(
    rf"^((?:[{_UP}][a-z]?\.\s?-?\s?)*[{_UP}][a-z]?\.)\s+(?=[^\W\d_]{{2}}|A\s)"
)


@lru_cache(maxsize=_MEMO)
def _is_name_word(w: str) -> bool:
    if w.lower() in _PARTICLES:
        return True
    if not _WORD_RE.match(w) or w.lower().strip(".") in _NOT_NAME_WORDS:
        return False
    return w[0].isupper() or w[0] in "'’`" or w[:2].lower() in ("d'", "o'", "l'")


@lru_cache(maxsize=_MEMO)
def _is_initials(s: str) -> bool:
    s = s.strip()
    return bool(_INITIALS_RE.match(s) or _COMPACT_INITIALS_RE.match(s))


@lru_cache(maxsize=_MEMO)
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


@lru_cache(maxsize=_MEMO)
def _is_given(s: str) -> bool:
    ws = _words(s)
    return 1 <= _n_core(s) <= 3 and all(_is_name_word(w) or _is_initial_token(w) for w in ws)


@lru_cache(maxsize=_MEMO)
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


_SEMI_SEP_RE = re.compile(
    r"\s*(?:;?\s*(?:…|\.\.\.)\s*|;\s*(?:(?:and\b|&)\s*)?|\s+and\s+|\s*&\s*)\s*", re.I
)


# patterns of :func:`_split_names`, compiled once
_VANCOUVER_FIRST_RE = re.compile(r"[^\s.,]+(?:\s[^\s.,]+)*\s[A-Z]{1,3}")
_SUFFIX_RE = re.compile(r"(?:Jr|Sr|II|III|IV)\.?")
_VANCOUVER_SENTENCE_RE = re.compile(r"^([^.]+?\s[A-Z]{1,3})\.\s+(?=\S)")
_AND_RE = re.compile(r"\s+and\s+")
_INITIAL_FIRST_RE = re.compile(r"[A-Z][a-z]?\.")


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


def _split_names(
    seg: str, names_only: bool = False, quote_next: bool = False
) -> tuple[list[str], int]:
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
            if (
                tcut
                and not names_only
                and not (k + 1 < len(semi) and _is_inverted_name(semi[k + 1][0].strip()))
            ):
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
    vancouver = bool(chunks) and bool(_VANCOUVER_FIRST_RE.fullmatch(chunks[0][0].strip()))
    while i < len(chunks):
        chunk, _s, e = chunks[i]
        c = chunk.strip()
        nxt = chunks[i + 1][0].strip() if i + 1 < len(chunks) else None
        if names and _SUFFIX_RE.fullmatch(c):
            names[-1] = f"{names[-1]}, {c}"
            end = e
            i += 1
            continue
        if mode != "natural" and nxt is not None and _is_family(c):
            pair_ok = (
                _is_initials(nxt)
                if (mode == "inverted-initials" and not first)
                else (
                    _is_initials(nxt)
                    or (
                        _is_given(nxt)
                        and (first or len(_words(c)) == 1)
                        and _n_core(nxt) <= (3 if first else 2)
                        and (names_only or not _INITIALS_THEN_WORD_RE.match(nxt))
                    )
                )
            )
            if first and mode == "inverted-initials":
                pair_ok = True
            if pair_ok and not (
                not first
                and len(_words(nxt)) >= 2
                and not _is_initials(nxt)
                and mode == "inverted-initials"
            ):
                names.append(f"{c}, {nxt}")
                end = chunks[i + 1][2]
                i += 2
                first = False
                continue
        if nxt is not None and _is_family(c) and (first or mode != "natural"):
            im = _INITIALS_THEN_WORD_RE.match(nxt) or re.match(
                r"^([A-Z]{1,3})\.\s+(?=[^\W\d_])", nxt
            )
            # "Reisen, W. K. Malaria": initials then the title's first word, unless the list goes on
            # with another "Family, Given" pair ("Smith, J. Robert, Doe, K.").
            list_goes_on = (
                i + 3 < len(chunks)
                and _is_family(chunks[i + 2][0].strip())
                and (_is_initials(chunks[i + 3][0].strip()) or _is_given(chunks[i + 3][0].strip()))
            )
            # (only after a bare family name: "Anamika Rani, S. Singh" is two natural names)
            bare_family = len(_words(c)) == 1 or c[:1].islower()
            title_may_follow = first and bare_family and not list_goes_on and not names_only
            if im and (not _is_name(nxt) or title_may_follow) and not _is_initials(nxt):
                names.append(f"{c}, {im.group(1)}")
                end = chunks[i + 1][1] + len(im.group(1))
                break
        vm = _VANCOUVER_SENTENCE_RE.match(c)
        rem_words = _words(c[vm.end() :]) if vm else []
        # "Buckley R. Environmental Opportunities and Risks in Finance": the "and" is the title's
        runs_on = (
            vm is not None
            and nxt is not None
            and bool(_AND_RE.fullmatch(seg[e : chunks[i + 1][1]]))
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
                    and len(
                        [w for w in rem_words if not (w.lower() in _PARTICLES and w[:1].islower())]
                    )
                    <= 2
                )
            )
        ):
            names.append(vm.group(1))
            end = _s + (len(chunk) - len(chunk.lstrip())) + len(vm.group(1))
            break
        if (
            mode == "natural"
            and names
            and _INITIAL_FIRST_RE.match(names[0])
            and not any(
                _is_initial_token(w) or (_COMPACT_INITIALS_RE.match(w) and len(w) <= 2)
                for w in _words(c.replace(".", ". "))
            )
            # a one-word name inside the list ("S. B. Siwach, Jagdish, S. Lahri") or at the end of a
            # list known to hold only names is a mononym author
            and not (
                len(_words(c)) == 1
                and _is_name(c)
                and (
                    quote_next
                    or (nxt is not None and any(_is_initial_token(w) for w in _words(nxt)))
                )
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


# The three commonest whole-list shapes, split by one pattern each (the general splitter gives
# the same names on every AnyStyle author span of these shapes, 2,729 of them, at a fraction of
# the cost): "Family, I. I., Family, I., & Family, I.", "Family AB, Family C",
# "I. I. Family, I. Family, and I. Family".
_FAST_INI = rf"[{_UP}]\.(?:[ -]?[{_UP}]\.){{0,3}}"
_FAST_FAM = rf"[{_UP}][a-zß-öø-ÿ'’]+(?:[- ][{_UP}][a-zß-öø-ÿ'’]+)?"
_FAST_SHAPES = tuple(
    (re.compile(rf"^{name}(?:{sep}{name})*$"), re.compile(name))
    for name, sep in (
        (rf"{_FAST_FAM}, {_FAST_INI}", r"(?:,? (?:&|and) |, )"),
        (rf"{_FAST_FAM} [{_UP}]{{1,3}}", ", "),
        (rf"{_FAST_INI} ?{_FAST_FAM}", r"(?:,? (?:&|and) |, )"),
    )
)


def _fast_split(text: str) -> list[str] | None:
    """The names of ``text`` when the whole list has one of the common shapes, else None."""
    for whole, name in _FAST_SHAPES:
        if whole.match(text):
            return name.findall(text)
    return None


_INVERTED_INITIALS_RE = re.compile(rf"[^,]+,\s*(?:[{_UP}]\.\s?)+")
_LEAD_SEP_RE = re.compile(r"^\s*[,;]?\s*(?:(?:and|und|et|y|e|&)\s+)?", re.I)


#: words one of which every match of ``_ET_AL_RE`` holds (up to case)
_ET_AL_WORDS = ("al", "others", "kol", "u.")


def _drop_et_al(s: str) -> str:
    """``_ET_AL_RE`` removed (the pattern tried only where one of its words occurs)."""
    return _ET_AL_RE.sub("", s) if may_match_ci(s, _ET_AL_WORDS) else s


def _has_et_al(s: str) -> bool:
    """``_ET_AL_RE`` occurs in ``s``."""
    return may_match_ci(s, _ET_AL_WORDS) and _ET_AL_RE.search(s) is not None


def _drop_ellipses(s: str) -> str:
    """Each ellipsis and the spaces around it made one space."""
    return _ELLIPSIS_RE.sub(" ", s) if "…" in s or "..." in s else s


def _drop_marks(s: str) -> str:
    """Footnote marks after names ("Doe*", "Roe†") removed."""
    return _AUTHOR_MARK_RE.sub(r"\1", s) if "*" in s or "†" in s or "‡" in s else s


#: The given name in brackets after the family name, as French bibliographies write it: dotted
#: initials after any family name ("Bugnon (A.-L.)", "Lehner (R. P.)", "Bonhomme (Fl.)"), a
#: given name after a family name in capitals ("LECUN (Yann)", "DE LA FONTAINE (Jean)"). Not a
#: role ("FITNE (Producer)", "(Ed.)", "(Hrsg.)"), a place ("Glareana (Switzerland)") or a year.
_BRACKETED_GIVEN_RE = re.compile(
    r"([^\W\d_][\w'’\-]*(?: [^\W\d_][\w'’\-]*){0,2})\s*\("
    r"(?!(?:Ed|Eds|Éd|Éds|Hrsg|Hg|Hgg|Dir|Coord|Coords|Trad|Trans|Tr|Comp|Org|Orgs|Red|Producer|"
    r"Director|Writer|Editor|Editors|Author|Illustrator|Photographer|Composer|Narrator|Host|"
    r"Interviewer|Speaker|Performer|Presenter|Compiler|Translator)\b)"
    r"((?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]{0,2}\.[ \-]?)*[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]{0,2}\."
    r"|(?:[A-ZÀ-ÖØ-Þ]\.[ \-]?)+[A-ZÀ-ÖØ-Þ]"
    r"|[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:-[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?)\)"
)
#: "LeCun, Y./Bengio, Y./Hinton, G.", "Dierkes, Meinolf/Ute Hoffmann": names separated by
#: slashes (German business and social-science styles); not "ISO/IEC", "médecine/sciences"
_SLASH_SEP_RE = re.compile(r"(?<=[a-zß-öø-ÿ.])\s*/\s*(?=[A-ZÀ-ÖØ-Þ](?:[a-zß-öø-ÿ]|\.))")
_NAME_SEPS_RE = re.compile(r"(?:[,;&.]|\b(?:et|and|und|y|e)\b|\s)+")


def _bracketed_given(m: re.Match[str]) -> str | None:
    """``family, given`` for a match of :data:`_BRACKETED_GIVEN_RE` that is a name, else None."""
    family, given = _LEAD_SEP_RE.sub("", m.group(1), count=1), m.group(2)
    if "." in given or family.isupper():
        return f"{family}, {given.strip()}"
    return None


def _outside_brackets(text: str, at: int) -> bool:
    return text.count("(", 0, at) <= text.count(")", 0, at)


def _name_forms(text: str) -> str:
    """Forms the splitter reads.

    Bracketed given names inverted ("LECUN (Yann), BENGIO (Yoshua) et HINTON (Geoffrey)" →
    "LECUN, Yann; BENGIO, Yoshua; HINTON, Geoffrey"), slashes between names made semicolons.
    """
    if "(" in text:
        found = [(m, _bracketed_given(m)) for m in _BRACKETED_GIVEN_RE.finditer(text)]
        names = [n for _, n in found if n is not None]
        if names and len(names) == len(found):
            rest = _BRACKETED_GIVEN_RE.sub("", text)
            if not _NAME_SEPS_RE.sub("", rest):
                text = "; ".join(names)
            else:
                text = _BRACKETED_GIVEN_RE.sub(lambda m: _bracketed_given(m) or m.group(0), text)
    if "/" in text:
        # a slash after an initial, or two and more: one slash between words may be a double
        # name ("Czerwinski/Pranzas") or a title's ("Mind/Body")
        seps = [m for m in _SLASH_SEP_RE.finditer(text) if _outside_brackets(text, m.start())]
        keep = [m for m in seps if len(seps) >= 2 or text[: m.start()].rstrip().endswith(".")]
        for m in reversed(keep):
            text = text[: m.start()] + "; " + text[m.end() :]
    return text


def split_author_string(text: str, *, all_names: bool = False) -> list[str]:
    """Split a bare author list (``"A and B"``, ``"Last, F., Last2, G."``, ``"A; B"``) into names.

    ``all_names``: the text is known to hold names only (the learned parser's author span),
    so what the splitter leaves after the names it recognised is split again, not dropped
    ("Surname, G., et K. Other": a natural-order name after inverted ones).
    """
    text = _name_forms(text)
    if all_names:
        head = _drop_marks(_drop_ellipses(_drop_et_al(_clean(text))))
        head = head.strip(" ,;")
        fast = _fast_split(head)
        if fast is not None:
            return fast
        names, end = _split_names(head)
        if names:
            found = [c for c in (_clean(n).strip(" ,;") for n in names) if c]
            rest = _LEAD_SEP_RE.sub("", head[end:], count=1).strip(" ,;.")
            lead = re.match(r"^([A-Z][a-z\u00df-\u024f'’\-]+)(?:\s+(?:and|&)\s+|,\s*|$)", rest)
            if lead and found and _INVERTED_INITIALS_RE.fullmatch(found[-1]):
                # "Ohnishi, S. Tsuyoshi", "Grum, R. Edward and Jian Xu": a given name ends the name
                found[-1] = f"{found[-1]} {lead.group(1)}"
                rest = rest[lead.end() :].strip(" ,;.")
                if rest:
                    found += split_author_string(rest, all_names=True)
            elif rest and len(rest) < len(head):
                found += split_author_string(rest, all_names=True)
            # a run of given-first full names the splitter did not cut: "A B C, D E F, G H"
            found = [
                part
                for n in found
                for part in (
                    [c.strip() for c in re.split(r",\s*(?:and\s+|&\s*)?", n) if c.strip()]
                    if "," in n
                    and all(
                        _GIVEN_FIRST_NAME.match(c.strip())
                        for c in re.split(r",\s*(?:and\s+|&\s*)?", n)
                        if c.strip()
                    )
                    and len([c for c in n.split(",") if c.strip()]) >= 2
                    else [n]
                )
            ]
            return found
    s = _clean(text)
    if not s:
        return []
    s = _drop_ellipses(_drop_et_al(s)).strip(" ,;")
    s = _drop_marks(s).strip(" ,;")
    s = s.translate(_NAME_HYPHENS)
    parts = [p.strip(" ,;") for p in re.split(r"\s+and\s+", s)]
    if len(parts) > 1 and all(
        p
        and (
            p.count(",") == 0 or (p.count(",") == 1 and not _VANCOUVER_END.search(p.split(",")[0]))
        )
        for p in parts
    ):
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
        parts = (
            [c.strip() for c in re.split(r",\s*(?:and\s+|&\s*)?", n) if c.strip()]
            if "," in n
            else [n]
        )
        if len(parts) >= 2 and all(_GIVEN_FIRST_NAME.match(c) for c in parts):
            out.extend(parts)
        elif (n is rest and not out) or n is not rest:
            out.append(n)
    return out
