"""The learned reference parser: tokens, their features and the shipped linear-chain CRF.

A reference string is cut at whitespace into tokens (as AnyStyle does); each token gets a
list of string features and the CRF (``python-crfsuite``, trained by
``scripts/train_parser.py``) gives every token one label of :data:`LABELS`. The features are
the same function at training and at run time (:func:`sequence_features`).

Speed: the features that depend on a token's text alone (word, shape, affixes, punctuation,
dictionaries) are computed once per distinct token string and kept in a bounded per-process
cache, together with the prefixed copies its neighbours use; a sequence then only gathers
tuples (its segments', its marks' and its position's built once per segment or table). The
features are UTF-8 bytes, as crfsuite reads them, and ``citejudge._native.crf_viterbi`` decodes
them in their parts (:meth:`Featurizer.sequence_parts`) from the model's weights
(:mod:`._weights`), with CRFsuite's sums and ties, so CRFsuite's labels; without the C module,
CRFsuite's tagger decodes the joined features.

The model file, its dictionaries (``lexicon.json``) and the training manifest live in
``model/`` beside this module (package data, so a wheel carries them). At load the model's and
the lexicon's sha256 are checked against :data:`MODEL_SHA256` / :data:`LEXICON_SHA256` (written
here by the training script) and the manifest; a mismatch refuses the model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from citejudge.native import load as load_native
from citejudge.readers.freetext._weights import Weights, read_weights

logger = logging.getLogger(__name__)

#: The labels the CRF gives (AnyStyle's fields, merged where this project needs no difference:
#: journal and container-title are ``container``; an issue number is part of ``volume``, as in
#: AnyStyle's data, and a rule splits it off; translators are ``editor``; ``ident`` is a DOI,
#: URL, ISBN or arXiv id, read by rules; ``number`` is the entry's number in a list).
LABELS: tuple[str, ...] = (
    "author",
    "editor",
    "date",
    "title",
    "container",
    "collection",
    "volume",
    "pages",
    "publisher",
    "place",
    "edition",
    "genre",
    "note",
    "ident",
    "number",
)

#: sha256 of the shipped model file and lexicon (``scripts/train_parser.py`` writes these lines).
MODEL_SHA256 = "c761cc5fc36c9ab00187fdcf9e2ce8adb360c3a85f863c0ebb9a3c226b627027"
LEXICON_SHA256 = "53d5305f1ba207e208adbb29702b6ab604080f09b265efbe5447aa1e6224aa22"

MODEL_FILE = "refparser.crfsuite"
LEXICON_FILE = "lexicon.json"
MANIFEST_FILE = "manifest.json"

# Ligatures and invisible characters that PDF text carries; folded before tokens are cut.
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
        "\u00ad": "",  # soft hyphen
        "\u200b": "",
        "\u200c": "",
        "\u200d": "",
        "\u2060": "",
        "\ufeff": "",
    }
)


_FOLD_RE = re.compile("[\ufb00-\ufb06\u00ad\u200b-\u200d\u2060\ufeff]")


def normalise_input(text: str) -> str:
    """The string the tokens are cut from: ligatures spelled out, invisible characters dropped, NFC."""
    if text.isascii():
        return text
    if _FOLD_RE.search(text):
        text = text.translate(_LIGATURES)
    return unicodedata.normalize("NFC", text)


# A list number glued to the first word: "1.Arachie", "[1]Halder", "(1)Davis", "12Smith".
_GLUED_NUMBER_RE = re.compile(
    r"^(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}\.|\d{1,3}(?=[A-Z][a-z]))(?=[^\W\d_])"
)
_TOKEN_RE = re.compile(r"\S+")
_DOUBLE_DOT_INITIAL_RE = re.compile(r"^(?:[^\W\d_]\.[-‐]?){1,4}\.$")


# A year glued to the name before it or the title after it, as some CSL styles print them
# ("Blaschko2023“Improving …”", "2023Tackling …", "A.2019 The …", "(2021)Learning …"): the cut
# points inside a token (two letters or "X." before the year; a capital or an opening quote
# after it). Tokens of identifiers and URLs ("/", ":", "=", "@") are never cut.
_YEAR_ENDS = r"(?=[a-z]?[.,;:)\]”\"»’]*$|(?:[“‘«]|\"(?=\w))|[A-Z][a-z])"
_GLUED_YEAR_HINT_RE = re.compile(
    r"(?:[^\W\d_]{2}|[^\W\d_]\.)(?:1[5-9]|20)\d\d(?!\d)|(?<!\d)(?:1[5-9]|20)\d\d\)?(?:(?:[“‘«]|\"(?=\w))|[A-Z][a-z])"
)
_GLUED_YEAR_CUT_RE = re.compile(
    r"(?<=[^\W\d_]{2})(?=(?:1[5-9]|20)\d\d" + _YEAR_ENDS + ")"
    r"|(?<=[^\W\d_]\.)(?=(?:1[5-9]|20)\d\d" + _YEAR_ENDS + ")"
    r"|(?<=(?<!\d)(?:1[5-9]|20)\d\d)(?=(?:[“‘«]|\"(?=\w))|[A-Z][a-z])"
    r"|(?<=(?:1[5-9]|20)\d\d\))(?=(?:[“‘«]|\"(?=\w))|[A-Z][a-z])"
)
_NO_CUT_RE = re.compile(r"[/:=@]|www\.")
_YEAR_SCAN_RE = re.compile(r"(?:1[5-9]|20)\d\d")
_OPEN_QUOTES = '“‘«"'


def _may_have_glued_year(text: str) -> bool:
    """A cheap superset of :data:`_GLUED_YEAR_HINT_RE` over a whole string (1 µs, not 15)."""
    n = len(text)
    for m in _YEAR_SCAN_RE.finditer(text):
        a, b = m.span()
        if a and (text[a - 1].isalpha() or text[a - 1] == "."):
            return True
        if b < n:
            c = text[b]
            if c.isalpha() or c in _OPEN_QUOTES:
                return True
            if c == ")" and b + 1 < n and (text[b + 1].isupper() or text[b + 1] in _OPEN_QUOTES):
                return True
    return False


def _cut_glued_years(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in spans:
        tok = text[a:b]
        if (
            _YEAR_SCAN_RE.search(tok) is None
            or not _GLUED_YEAR_HINT_RE.search(tok)
            or _NO_CUT_RE.search(tok)
        ):
            out.append((a, b))
            continue
        start = a
        for m in _GLUED_YEAR_CUT_RE.finditer(tok):
            at = a + m.start()
            if start < at < b:
                out.append((start, at))
                start = at
        out.append((start, b))
    return out


def split_glued_year(token: str) -> list[str]:
    """``token`` cut where a year is glued to it (see :data:`_GLUED_YEAR_CUT_RE`)."""
    if not _GLUED_YEAR_HINT_RE.search(token):
        return [token]
    return [token[a:b] for a, b in _cut_glued_years(token, [(0, len(token))])]


def token_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each token of ``text``: whitespace-separated, glued numbers apart.

    A list number glued to the first word and a year glued to a word
    (:data:`_GLUED_YEAR_CUT_RE`) are tokens of their own.
    """
    spans = [m.span() for m in _TOKEN_RE.finditer(text)]
    if spans:
        a, b = spans[0]
        m = _GLUED_NUMBER_RE.match(text, a, b)
        if m:
            spans[0:1] = [(a, m.end()), (m.end(), b)]
        if _may_have_glued_year(text):
            spans = _cut_glued_years(text, spans)
    return spans


def tokenize(text: str) -> list[str]:
    """The tokens of ``text`` after :func:`normalise_input` (see :func:`token_spans`)."""
    text = normalise_input(text)
    toks = text.split()
    if (toks and _GLUED_NUMBER_RE.match(toks[0])) or _may_have_glued_year(text):
        toks = [text[a:b] for a, b in token_spans(text)]
    if ".." in text:
        # "Pletnev, S.. Monomeric ...": a style's dot after an initial's dot
        toks = [t[:-1] if _DOUBLE_DOT_INITIAL_RE.match(t) else t for t in toks]
    return toks


# "regular-⏎ization": a word cut by a hyphen at the end of a (PDF) line; the piece before the
# hyphen (letters, maybe hyphens: "state-of-the-⏎art") and the word after the line break
_LINE_HYPHEN_RE = re.compile(
    r"([^\W\d_](?:[\w'’]*[^\W\d_])?(?:-[\w'’]+)*)-[ \t]*\r?\n\s*([^\W\d_][\w'’]*)"
)
# a suspended hyphen before a conjunction ("Two-⏎and three-dimensional") is no cut word
_SUSPENDED = frozenset(
    ["and", "or", "nor", "und", "oder", "u", "et", "ou", "y", "o", "e", "i", "to", "vs", "versus"]
)


def join_line_breaks(text: str, compounds: frozenset[str] = frozenset()) -> str:
    """``text`` with the words a line-break hyphen cut joined again.

    The rule of :func:`citejudge.text.split_units` for prose, with the hyphen kept where it is
    the word's own: before a lower-case letter the pieces are joined without the hyphen
    ("regular-⏎ization" -> "regularization"), unless the piece before already holds a hyphen
    ("state-of-the-⏎art"), the hyphenated word is one of ``compounds`` (seen in the training
    titles: "cross-⏎validation" -> "cross-validation"), or the next word is a conjunction (a
    suspended hyphen: "Two-⏎and three-"); before a capital the hyphen stays and the line break
    goes ("Kaplan-⏎Meier" -> "Kaplan-Meier"). Other line breaks (after a number: "448-⏎456")
    are left as they are.
    """
    if "\n" not in text:
        return text

    def glue(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        if not b[0].islower():
            return f"{a}-{b}"
        if b.lower() in _SUSPENDED:
            return f"{a}- {b}"
        if "-" in a or f"{a}-{b}".lower() in compounds:
            return f"{a}-{b}"
        return a + b

    return _LINE_HYPHEN_RE.sub(glue, text)


_STRIP = " .,;:()[]{}<>\"'“”„‟«»‘’‚‹›!?*_/\\|–—-"
_STRIP_NO_DOT = _STRIP.replace(".", "")
_CLOSERS = ")]}”»’›\"'>"
_QUOTE_OPEN = "“„«‘‚‹\"'"
_QUOTE_CLOSE = "”»’›\"'“"

_YEAR_RE = re.compile(r"^(?:1[5-9]|20)\d\d[a-z]?$")
_RANGE_RE = re.compile(r"^[A-Za-z]?\d+[a-z]?[-–—‐]+[A-Za-z]?\d+[a-z]?$")
_INITIAL_RE = re.compile(r"^(?:[^\W\d_]\.[-‐]?){1,4}$|^[^\W\d_][^\W\d_]?\.$")
_COMPACT_INIT_RE = re.compile(r"^[A-Z]{1,3}$")
_ORDINAL_RE = re.compile(r"^\d+(?:st|nd|rd|th|e|er|re|ème|\.)$", re.I)
_ROMAN_RE = re.compile(r"^(?=[ivxlcIVXLC]{1,6}$)[IVXLC]+$|^(?=[ivxlc]{1,6}$)[ivxlc]+$")
_URLISH_RE = re.compile(r"https?:|www\.|\.(?:com|org|net|edu|gov|html?|pdf)\b|doi\.org|^doi:", re.I)
_DOI_RE = re.compile(r"10\.\d{4,9}/")
_ISBNISH_RE = re.compile(r"^(?:97[89][‐-]?)?\d[\d‐-]{8,}[\dXx]$")

_MONTH_WORDS = """
jan january feb february mar march apr april may jun june jul july aug august sep sept
september oct october nov november dec december spring summer fall autumn winter janv
janvier févr février fevrier mars avr avril mai juin juil juillet août aout sept septembre
octobre déc décembre decembre januar februar märz maerz juni juli oktober dezember mrz okt
dez enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre
diciembre ene abr ago dic gennaio febbraio aprile maggio giugno luglio settembre ottobre
dicembre genn giu lug ott janeiro fevereiro março maio junho julho setembro outubro novembro
dezembro printemps été automne hiver frühjahr sommer herbst
"""
_MONTHS = frozenset(_MONTH_WORDS.split())

# Locale markers: the words styles put before or after fields, in several languages ("a cura
# di" is "cura"; a word in two lists takes the later one).
_MARKER_LISTS: tuple[tuple[str, str], ...] = (
    ("in", "in"),
    ("ed", "ed eds edn editor editors edited hrsg hg éd éds dir coord coords ed(s) cura red ред"),
    ("trans", "trans transl translated trad traduit traduction übers übersetzt tr"),
    ("pp", "pp p pages page s pág págs str ss seiten sp c с стр"),
    ("vol", "vol vols volume volumes bd band tome t tomo jg jahrgang v т"),
    ("no", "no nos nr num number issue iss heft h n n° nº fasc №"),
    ("chap", "chap chapter ch kap kapitel cap chapitre"),
    ("edn", "edition auflage aufl édition edición edizione ed. rev revised"),
    (
        "genre",
        "thesis dissertation diss phd ph.d master's masters thèse these tesi tesis doctoral habilitation report preprint manuscript unpublished technical working paper abstract poster",
    ),
    (
        "access",
        "retrieved available accessed online abgerufen consulté disponible verfügbar zugegriffen url doi isbn issn pmid pmcid arxiv",
    ),
    (
        "conf",
        "proceedings proc conference conf symposium workshop congress meeting actes tagungsband atti",
    ),
    (
        "jour",
        "journal j review rev revue revista rivista zeitschrift zeitschr annals ann bulletin bull transactions trans letters lett magazine quarterly",
    ),
    (
        "pub",
        "press verlag publishers publisher publishing éditions editions editorial editora editore books university univ universitätsverlag presses",
    ),
    ("and", "and & und et y e i og och en és и"),
    ("etal", "al al. others u.a ua coll"),
    (
        "func",
        "the of a an on for to with from by at as is la le les des du de der die das des den dem von zur zum il lo del della di el los las da do dos",
    ),
)
_MARKERS = {w: kind for kind, words in _MARKER_LISTS for w in words.split()}


@dataclass(frozen=True)
class Lexicon:
    """Word lists the features look tokens up in (lower-case, folded to NFC)."""

    given: frozenset[str]
    place: frozenset[str]
    publisher: frozenset[str]
    venue: frozenset[str]
    family: frozenset[str]
    #: hyphenated words ("cross-validation", "kaplan-meier") seen in the training titles: a
    #: line-break hyphen inside one of them is kept (:func:`join_line_breaks`)
    compounds: frozenset[str] = frozenset()
    #: the features the trained model gives a weight (None while training): the others are
    #: never computed into a sequence, which saves the tagger looking them up
    active: frozenset[str] | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lexicon:
        """Read the lists written by :meth:`to_json`."""
        lists = {k: frozenset(data.get(k, ())) for k in _LISTS}
        active = frozenset(data["active"]) if "active" in data else None
        return cls(**lists, active=active)

    def to_json(self) -> dict[str, list[str]]:
        """Sorted lists (a deterministic file)."""
        out = {k: sorted(getattr(self, k)) for k in _LISTS}
        if self.active is not None:
            out["active"] = sorted(self.active)
        return out


_LISTS = ("family", "given", "place", "publisher", "venue", "compounds")


# Per-token bit flags the sequence pass uses for bracket and year context.
_F_YEAR = 1
_F_QOPEN = 2
_F_QCLOSE = 4
_F_POPEN = 8
_F_PCLOSE = 16
_F_STOP = 32  # ends in "." / ":" / "?" and is not an initial or a short abbreviation
_F_END = 64  # ends a segment
_F_IN = 128  # "In"
_F_SVENUE = 256
_F_SPUB = 512
_F_SPLACE = 1024
_F_SDIGIT = 2048
_F_SED = 4096
_SEG_TAGS = {
    "venue": _F_SVENUE,
    "m:jour": _F_SVENUE,
    "m:conf": _F_SVENUE,
    "pub": _F_SPUB,
    "m:pub": _F_SPUB,
    "place": _F_SPLACE,
    "digit": _F_SDIGIT,
    "m:ed": _F_SED,
    "m:trans": _F_SED,
}
# the tags a token passes to the token after it and to the one before it, as those see them
_PREV_TAGS = {t: "-1" + t for t in ("init", "cap", "given", "month", "caps")}
_NEXT_TAGS = {t: "+1" + t for t in ("init", "cap", "given", "month", "family")}
_ASCII_DIGIT_RE = re.compile("[0-9]")
# (the features are UTF-8 bytes, as crfsuite reads them: a str would be encoded at every call)
_SENT = tuple(f"sent={k}".encode() for k in range(6))
_POS = tuple(f"pos={k}".encode() for k in range(10))
_SEG = tuple(f"seg={k}".encode() for k in range(8))
_SEGR = tuple(f"sgr={k}".encode() for k in range(5))  # segments after this one (4 for 4 or more)
_SEGLEN = tuple(f"sgl={k}".encode() for k in range(10))
_BOS = (b"BOS",)
_EOS = (b"EOS",)
_SGF, _SGZ = b"sgf", b"sgz"  # first and last token of a segment
_POS_SENT = tuple(tuple((p, n) for n in _SENT) for p in _POS)  # [tenth][sentence]
# segment flags -> their features, precomputed for every combination
_SEG_BITS = (
    (_F_SVENUE, "sgV"),
    (_F_SPUB, "sgP"),
    (_F_SPLACE, "sgL"),
    (_F_SDIGIT, "sgD"),
    (_F_YEAR, "sgY"),
    (_F_SED, "sgE"),
)
_SEG_ANY = sum(b for b, _ in _SEG_BITS)
_SEG_FEATS = {
    m: tuple(name.encode() for b, name in _SEG_BITS if m & b)
    for m in range(_SEG_ANY + 1)
    if m & ~_SEG_ANY == 0
}
_SGI = (b"sgI",)
_LASTSEG = (b"lastseg",)
# the running state of a sequence -> its features, in the order they are added
_S_INQ, _S_INP, _S_YEAR, _S_QUOTE, _S_IN = 1, 2, 4, 8, 16
_STATE_FEATS = {
    m: tuple(
        name.encode()
        for b, name in (
            (_S_INQ, "inq"),
            (_S_INP, "inp"),
            (_S_YEAR, "after_year"),
            (_S_QUOTE, "after_quote"),
            (_S_IN, "after_in"),
        )
        if m & b
    )
    for m in range(32)
}
# what the segment before holds: digits, an editor mark ("eds."), a year, a closing quote
_PSEG_BITS = ((_F_SDIGIT, "psgD"), (_F_SED, "psgE"), (_F_YEAR, "psgY"), (_F_QCLOSE, "psgQ"))
_PSEG_ANY = sum(b for b, _ in _PSEG_BITS)
_PSEG_FEATS = {
    m: tuple(name.encode() for b, name in _PSEG_BITS if m & b)
    for m in range(_PSEG_ANY + 1)
    if m & ~_PSEG_ANY == 0
}
_NSEG_BITS = ((_F_SDIGIT, "nsgD"), (_F_SVENUE, "nsgV"), (_F_SPUB, "nsgP"))
_NSEG_ANY = sum(b for b, _ in _NSEG_BITS)
_NSEG_FEATS = {
    m: tuple(name.encode() for b, name in _NSEG_BITS if m & b)
    for m in range(_NSEG_ANY + 1)
    if m & ~_NSEG_ANY == 0
}


_Feats = tuple[bytes, ...]
#: what a token contributes, computed once per distinct token: its own features, those its
#: neighbours take from it (the one before, the one after, two away), its flags, its last mark,
#: its case letter and the two together (case, then mark)
_View = tuple[_Feats, _Feats, _Feats, _Feats, int, str, str, str]
#: a token's features in parts: its own, its neighbours', its marks, its segment's, where it is
_Parts = tuple[_Feats, ...]


class Featurizer:
    """Features of tokens and sequences under one :class:`Lexicon` (a bounded per-token cache)."""

    CACHE_MAX = 200_000

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self._keep = lexicon.active
        self._cache: dict[str, _View] = {}
        # previous mark, case, own mark, next case -> the kept "pc=" / "nc=" features
        self._marks: dict[str, _Feats] = {}

    def _word(self, tok: str) -> _View:
        core = tok.strip(_STRIP)
        low = core.lower()
        lead = tok[0] if tok[0] in _STRIP else ""
        trail = tok[len(tok.rstrip(_STRIP)) :][-2:] if tok[-1] in _STRIP else ""
        flags = 0
        tags: list[str] = []
        mk = _MARKERS.get(low) if core else None
        if not core:
            key = "<p>" + tok[:3]
        elif core.isdigit():
            if _YEAR_RE.match(core):
                key = "<year>"
                flags |= _F_YEAR
            else:
                key = f"<n{min(len(core), 5)}>"
        elif _YEAR_RE.match(core):
            key = "<yearx>"
            flags |= _F_YEAR
        else:
            key = low if len(low) <= 24 else low[:24]
        shape = _shape(tok)
        own = ["w=" + key, "sh=" + shape]
        if lead:
            own.append("lp=" + lead)
        if trail:
            own.append("tp=" + trail)
        if len(low) > 3 and key == low[:24]:
            own.append("p3=" + low[:3])
            own.append("s3=" + low[-3:])
        if core:
            c0 = core[0]
            if c0.isupper():
                tags.append("cap")
                if len(core) > 1 and core.isupper():
                    tags.append("caps")
            elif c0.islower():
                tags.append("low")
            cand = core + ("." if tok.rstrip(_STRIP_NO_DOT).endswith(".") else "")
            # (each pattern is tried only where it can match: the features stay the same)
            if len(cand) <= 12 and "." in cand and _INITIAL_RE.match(cand):
                tags.append("init")
            elif len(core) <= 3 and _COMPACT_INIT_RE.match(core):
                tags.append("cinit")
            if (
                _ASCII_DIGIT_RE.search(core) is not None
                if core.isascii()
                else any(ch.isdigit() for ch in core)
            ):
                tags.append("digit")
                if _RANGE_RE.match(core):
                    tags.append("range")
                if _ORDINAL_RE.match(core):
                    tags.append("ord")
                if _DOI_RE.search(tok):
                    tags.append("doi")
                if _ISBNISH_RE.match(core):
                    tags.append("isbn")
            elif len(core) <= 6 and _ROMAN_RE.match(core):
                tags.append("roman")
            if ("." in tok or ":" in tok) and _URLISH_RE.search(tok):
                tags.append("url")
            lex = self.lexicon
            if low in _MONTHS or low.rstrip(".") in _MONTHS:
                tags.append("month")
            if mk:
                tags.append("m:" + mk)
            if low in lex.given:
                tags.append("given")
            if low in lex.family:
                tags.append("family")
            if low in lex.place:
                tags.append("place")
            if low in lex.publisher:
                tags.append("pub")
            if low in lex.venue:
                tags.append("venue")
            if len(core) > 12:
                tags.append("long")
        if tok[0] in _QUOTE_OPEN:
            flags |= _F_QOPEN
        if tok[-1] in _QUOTE_CLOSE or (len(tok) > 1 and tok[-2] in _QUOTE_CLOSE):
            flags |= _F_QCLOSE
        if tok[0] in "([":
            flags |= _F_POPEN
        if ")" in tok or "]" in tok:
            flags |= _F_PCLOSE
        if (
            trail[-1:] in (".", "?", "!")
            and "init" not in tags
            and "cinit" not in tags
            and len(core) > 3
        ):
            flags |= _F_STOP
        own.extend(tags)
        prev = (
            "-1w=" + key,
            "-1tp=" + trail,
            *[_PREV_TAGS[t] for t in tags if t in _PREV_TAGS],
        )
        nxt = (
            "+1w=" + key,
            "+1lp=" + lead,
            "+1sh=" + shape,
            *[_NEXT_TAGS[t] for t in tags if t in _NEXT_TAGS],
        )
        far: tuple[str, ...] = ("±2w=" + key, "±2sh=" + shape)
        for t in tags:
            flags |= _SEG_TAGS.get(t, 0)
        if (
            (
                core
                and tok[-1] in ".,:;"
                and not (tok[-1] == "." and ("init" in tags or "cinit" in tags))
            )
            or tok[-1] in _CLOSERS
            or (len(tok) > 1 and tok[-2] in _CLOSERS and tok[-1] in ".,:;")
        ):
            flags |= _F_END
        if mk == "in":
            flags |= _F_IN
        keep = self._keep
        # its case ("C"apital, "l"ower, "d"igit, "I"nitial, "p"unctuation) and its last mark,
        # for the features joining a token's end with the next one's start
        case = "C" if "cap" in tags else "l" if "low" in tags else "d" if "digit" in tags else "p"
        if "init" in tags:
            case = "I"
        tcode = trail[-1:] or ("q" if tok[-1] in _QUOTE_CLOSE else "_")
        out = (
            _kept(own, keep),
            _kept(prev, keep),
            _kept(nxt, keep),
            _kept(far, keep),
            flags,
            tcode,
            case,
            case + tcode,
        )
        if len(self._cache) >= self.CACHE_MAX:
            self._cache.clear()
        self._cache[tok] = out
        return out

    def sequence_features(self, tokens: Sequence[str]) -> list[list[bytes]]:
        """One feature list per token of ``tokens`` (UTF-8 bytes, as crfsuite reads them).

        Besides the token's own features and its neighbours': where it is (tenth of the
        string, how many sentences and segments came before), whether it is inside quotes or
        brackets or after the year, and what its segment holds (a segment ends at a token
        ending in ``. , : ;`` or a closing bracket): venue, publisher, place or marker words,
        digits, "In", its length, and whether the next segment has digits or venue words.
        Added with the second model (issue 27, measured on the dev slice of the training part):
        the shape two tokens away, the previous token's last mark with this token's case and
        this token's last mark with the next one's case ("Aust. Geol.": ``.`` then a capital),
        whether the token opens or closes its segment, how many segments follow, "after In",
        and what the segment before holds (digits, an editor mark, a year, a closing quote).
        """
        return [[x for part in parts for x in part] for parts in self.sequence_parts(tokens)]

    def sequence_parts(self, tokens: Sequence[str]) -> list[_Parts]:
        """The features of :meth:`sequence_features` in their parts, in order, not joined.

        (the C decoder reads them so: joining them in lists would cost more than decoding)
        """
        if not tokens:
            return []
        cache = self._cache
        views = [cache.get(t) or self._word(t) for t in tokens]
        n = len(views)
        # segments: for each, the features every token of it has after the position features
        # (what it holds, "In" before it, what the next one holds), built once per segment
        seg_of: list[int] = []
        seg_flags: list[int] = [0]
        seg_len: list[int] = [0]
        for v in views:
            seg_of.append(len(seg_flags) - 1)
            seg_flags[-1] |= v[4]
            seg_len[-1] += 1
            if v[4] & _F_END:
                seg_flags.append(0)
                seg_len.append(0)
        n_seg = len(seg_flags)
        # per segment: its segments-after feature (after "sgf" for its first token and "sgz"
        # for its last: index 1 | 2), its number and length, and what it and its neighbours hold
        seg_mark: list[tuple[_Feats, _Feats, _Feats, _Feats]] = []
        seg_head: list[_Feats] = []
        seg_tail: list[_Feats] = []
        for g in range(n_seg):
            sf = seg_flags[g]
            r = _SEGR[min(n_seg - 1 - g, 4)]
            seg_mark.append(((r,), (_SGF, r), (_SGZ, r), (_SGF, _SGZ, r)))
            seg_head.append((_SEG[g if g < 7 else 7], _SEGLEN[min(seg_len[g], 9)]))
            tail: _Feats = _SEG_FEATS[sf & _SEG_ANY]
            if (g > 0 and seg_flags[g - 1] & _F_IN) or sf & _F_IN:
                tail += _SGI
            if g > 0:
                tail += _PSEG_FEATS[seg_flags[g - 1] & _PSEG_ANY]
            if g + 1 < n_seg:
                tail += _NSEG_FEATS[seg_flags[g + 1] & _NSEG_ANY]
            else:
                tail += _LASTSEG
            seg_tail.append(tail)
        # what each position takes from its neighbours: the one before, the one after, two away
        before = [_BOS, *[v[1] for v in views[:-1]]]
        after = [*[v[2] for v in views[1:]], _EOS]
        far: list[_Feats] = [(), (), *[v[3] for v in views], (), ()]
        next_case = [*[v[6] for v in views[1:]], "$"]
        marks = self._marks
        out: list[_Parts] = []
        state = 0  # _S_* bits: inside quotes, inside brackets, after the year, after a quote
        sent = 0
        first = 1  # the token opens its segment
        last_mark = "^"
        for i in range(n):
            own, _prev, _nxt, _far, flags, tcode, _case, case_mark = views[i]
            # the mark before the token with its case, its own mark with the next token's case
            key = last_mark + case_mark + next_case[i]
            pcnc = marks.get(key)
            if pcnc is None:
                pcnc = self._mark_features(key)
            g = seg_of[i]
            end = 2 if flags & _F_END else 0
            if flags & _F_QOPEN:
                state |= _S_INQ
            if flags & _F_POPEN:
                state |= _S_INP
            out.append(
                (
                    own,
                    before[i],
                    after[i],
                    far[i],
                    far[i + 4],
                    pcnc,
                    seg_mark[g][first | end],
                    _POS_SENT[10 * i // n][sent],
                    seg_head[g],
                    _STATE_FEATS[state],
                    seg_tail[g],
                )
            )
            if flags & _F_QCLOSE:
                if state & _S_INQ:
                    state |= _S_QUOTE
                state &= ~_S_INQ
            if flags & _F_PCLOSE:
                state &= ~_S_INP
            if flags & _F_YEAR:
                state |= _S_YEAR
            if flags & _F_IN:
                state |= _S_IN
            if flags & _F_STOP and not state & _S_INQ and sent < 5:
                sent += 1
            first = end >> 1
            last_mark = tcode
        return out

    def _mark_features(self, key: str) -> _Feats:
        """The kept ``pc=`` and ``nc=`` features of ``key`` (mark before, case, mark, case after)."""
        out = _kept(("pc=" + key[:2], "nc=" + key[2:]), self._keep)
        self._marks[key] = out
        return out


def _kept(feats: Sequence[str], keep: frozenset[str] | None) -> _Feats:
    """``feats`` the model gives a weight (all when ``keep`` is None), as UTF-8 bytes."""
    return tuple([f.encode() for f in feats if keep is None or f in keep])


def _shape(tok: str) -> str:
    """Character classes of ``tok`` (A, a, 0, other characters as they are), runs collapsed, 8 at most."""
    out: list[str] = []
    last = ""
    for ch in tok:
        if ch.isupper():
            c = "A"
        elif ch.islower():
            c = "a"
        elif ch.isdigit():
            c = "0"
        else:
            c = ch
        if c != last:
            out.append(c)
            last = c
        if len(out) >= 8:
            break
    return "".join(out)


class ModelError(RuntimeError):
    """The shipped parser model is missing or fails its checks."""


@dataclass(frozen=True)
class _Model:
    data: bytes
    featurizer: Featurizer
    manifest: dict[str, Any]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_model(folder: Any, *, expect: tuple[str, str] | None = None) -> _Model:
    """The model, lexicon and manifest in ``folder`` (a path or a package resource).

    The files' sha256 must equal the manifest's, and ``expect`` (model, lexicon sha256) when
    given. Raises :class:`ModelError` when a file is missing or a checksum differs.
    """
    try:
        data = folder.joinpath(MODEL_FILE).read_bytes()
        lex_bytes = folder.joinpath(LEXICON_FILE).read_bytes()
        manifest = json.loads(folder.joinpath(MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"the reference parser model cannot be read: {exc}") from exc
    files = manifest.get("files", {})
    for k, (name, have) in enumerate(((MODEL_FILE, _sha(data)), (LEXICON_FILE, _sha(lex_bytes)))):
        recorded = files.get(name, {}).get("sha256")
        want = expect[k] if expect else recorded
        if have != want or have != recorded:
            raise ModelError(
                f"reference parser file {name} has sha256 {have[:16]}..., expected {str(want)[:16]}... "
                f"(manifest: {str(recorded)[:16]}...): reinstall citejudge or retrain with scripts/train_parser.py"
            )
    lexicon = Lexicon.from_json(json.loads(lex_bytes.decode("utf-8")))
    return _Model(data=data, featurizer=Featurizer(lexicon), manifest=manifest)


@lru_cache(maxsize=1)
def load_model() -> _Model:
    """The shipped model (package data), checked against :data:`MODEL_SHA256` and :data:`LEXICON_SHA256`."""
    folder = resources.files("citejudge.readers.freetext").joinpath("model")
    return read_model(folder, expect=(MODEL_SHA256, LEXICON_SHA256))


_local = threading.local()


def _tagger() -> Any:
    tagger = getattr(_local, "tagger", None)
    if tagger is None:
        import pycrfsuite

        model = load_model()
        tagger = pycrfsuite.Tagger()
        tagger.open_inmemory(model.data)
        _local.tagger = tagger
    return tagger


@lru_cache(maxsize=1)
def _decoder() -> tuple[Any, Weights] | None:
    """``citejudge._native.crf_viterbi`` and the shipped model's weights, or None (no C module)."""
    native = load_native()
    if native is None:
        return None
    try:
        return native.crf_viterbi, read_weights(load_model().data)
    except ValueError as exc:  # pragma: no cover - a model file CRFsuite reads and we do not
        logger.warning("the C decoder cannot read the parser model (%s): CRFsuite decodes", exc)
        return None


def tag_tokens(tokens: Sequence[str]) -> list[str]:
    """The CRF's label for each token (an empty list for no tokens). Raises :class:`ModelError`.

    The C decoder (:mod:`._weights`) gives CRFsuite's labels faster; without the C module,
    CRFsuite's tagger decodes.
    """
    if not tokens:
        return []
    featurizer = load_model().featurizer
    decoder = _decoder()
    if decoder is None:
        return list(_tagger().tag(featurizer.sequence_features(tokens)))
    viterbi, w = decoder
    labels = w.labels
    return [
        labels[y] for y in viterbi(featurizer.sequence_parts(tokens), w.attrs, w.state, w.trans)
    ]
