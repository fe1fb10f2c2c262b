r"""Citations and sentences of a RAG answer (deterministic; no model).

Recognised citation forms (only the first is correct):

* ``\\cite{id}`` / ``\\cite{a,b}`` — the required form (spaces after commas are tolerated);
* ``\\citep{}``, ``\\citet{}``, ``\\parencite{}`` … and ``\\cite[..]{}`` — LaTeX variants;
* ``\\cite{}``, ``\\cite{a,}``, an unclosed ``\\cite{`` or ``\\cite`` without braces — malformed;
* ``【id】`` (also ``【id†source】``), ``[^id]``, ``[id]``, ``[id1, id2]``, ``[1]`` and ``(id)`` —
  wrong forms, recognised when every key is a retrieved chunk id or *looks like one*: the
  shape of a retrieved id with its digits generalised (``chunk_3`` → ``chunk_<n>``), a generic
  ``chunk/doc/source/passage/zdroj… <n>`` name, or (in square brackets only) a 1–3 digit number;
* bare chunk ids in running text, with the same "looks like" rule (ids that are plain words or
  plain numbers are not searched for bare, to avoid false alarms).

Each citation is attached to the sentence it ends or sits in: a citation right after a
sentence's final punctuation belongs to that sentence. Sentences are split on ``.!?…`` before
an upper-case letter, digit or opening quote (Czech and English abbreviations excepted) and on
line breaks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from citejudge.text.normalize import fold

__all__ = [
    "Citation",
    "Sentence",
    "citation_need",
    "id_shape",
    "parse_citations",
    "split_answer",
]

#: Kinds of citation; only ``cite`` is the required form.
FORMS = (
    "cite",
    "variant",
    "malformed",
    "fullwidth",
    "footnote",
    "bracket",
    "numeric",
    "paren",
    "bare",
)

_GENERIC_ID = r"(?:chunk|chunks|doc|document|source|passage|snippet|context|ref|zdroj|úryvek|dokument|pasáž)[\s_:#.\-]*\d+"
_CITE_CMD = re.compile(r"\\([A-Za-z]*cite[A-Za-z]*\*?)")
_FULLWIDTH = re.compile(r"【([^】\n]{1,200})】")
_FOOTNOTE = re.compile(r"\[\^([^\]\s]{1,200})\]")
_BRACKET = re.compile(r"\[([^\[\]\n]{1,300})\](?!\()")
_PAREN = re.compile(r"\(([^()\n]{1,300})\)")
_SPLIT_KEYS = re.compile(r"\s*[,;]\s*")


@dataclass(frozen=True)
class Citation:
    """One citation as written: its form, the keys it names, where it is, and what is wrong."""

    form: str
    raw: str
    keys: tuple[str, ...]
    start: int
    end: int
    problem: str | None = (
        None  # for malformed: "empty" | "empty_key" | "unclosed" | "nobrace" | "option"
    )

    @property
    def correct(self) -> bool:
        r"""True for a well-formed ``\\cite{...}``."""
        return self.form == "cite"

    def fix(self) -> str:
        """The citation rewritten in the required form (keys kept)."""
        return "\\cite{" + ",".join(self.keys) + "}" if self.keys else "\\cite{…}"


@dataclass
class Sentence:
    """One sentence of the answer: original text, text without citations, its citations."""

    index: int
    start: int
    end: int
    text: str
    plain: str
    citations: list[Citation] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        """Distinct cited keys, in order of appearance."""
        return list(dict.fromkeys(k for c in self.citations for k in c.keys))


def id_shape(chunk_id: str) -> str | None:
    """Regex shape of an id-like chunk id (digits generalised), or None for words and numbers."""
    if not re.fullmatch(r"[^\s{}\[\]()]{2,80}", chunk_id) or not re.search(r"\d", chunk_id):
        return None
    if not re.search(r"[^\W\d]", chunk_id):
        return None
    return re.sub(r"\\d\+(?:\\d\+)*", r"\\d+", re.sub(r"\d+", r"\\d+", re.escape(chunk_id)))


class _Keys:
    """Which strings count as chunk ids for the wrong-form patterns."""

    def __init__(self, chunk_ids: Iterable[str]) -> None:
        self.known = {c for c in chunk_ids if c}
        shapes = {s for s in (id_shape(c) for c in self.known) if s}
        parts = [*sorted(shapes), _GENERIC_ID]
        self.looks = re.compile("(?:" + "|".join(parts) + ")", re.I)
        bare = sorted(re.escape(c) for c in self.known if id_shape(c))
        self.bare = re.compile(
            r"(?<![\w\\{\[(])(?:" + "|".join([*bare, *parts]) + r")(?![\w}])", re.I
        )

    def is_key(self, s: str, numeric: bool = False) -> bool:
        s = s.strip()
        if not s:
            return False
        if s in self.known:
            return True
        if numeric and re.fullmatch(r"\d{1,3}", s):
            return True
        return bool(self.looks.fullmatch(s))


def _split_keys(content: str) -> list[str]:
    return [k.strip() for k in _SPLIT_KEYS.split(content)]


def _read_braced(text: str, i: int) -> int | None:
    """Index just past the ``}`` closing the ``{`` at ``i`` (nesting allowed), or None."""
    depth = 0
    for j in range(i, min(len(text), i + 2000)):
        ch = text[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        elif ch == "\n" and j > i and text[j - 1] == "\n":
            return None
    return None


def _latex_cites(text: str, known: set[str]) -> list[Citation]:
    out: list[Citation] = []
    for m in _CITE_CMD.finditer(text):
        cmd = m.group(1)
        i = m.end()
        option = False
        while i < len(text) and text[i] == "[":
            close = text.find("]", i, i + 200)
            if close < 0:
                break
            option = True
            i = close + 1
        while i < len(text) and text[i] == " " and i < m.end() + 2:
            i += 1
        if i >= len(text) or text[i] != "{":
            nxt = re.match(r"\(?([\w\-:#]*\d[\w\-:#]*)\)?", text[i : i + 80])
            if nxt and nxt.group(1):
                stop = i + nxt.end()
                out.append(
                    Citation(
                        "malformed",
                        text[m.start() : stop],
                        (nxt.group(1),),
                        m.start(),
                        stop,
                        "nobrace",
                    )
                )
            else:
                out.append(
                    Citation(
                        "malformed", text[m.start() : m.end()], (), m.start(), m.end(), "nobrace"
                    )
                )
            continue
        end = _read_braced(text, i)
        if end is None:
            stop = min(len(text), i + 1 + 60)
            tail = re.match(r"[^\s.,;!?]*", text[i + 1 : stop])
            stop = i + 1 + (tail.end() if tail else 0)
            keys = tuple(k for k in _split_keys(text[i + 1 : stop]) if k)
            out.append(
                Citation("malformed", text[m.start() : stop], keys, m.start(), stop, "unclosed")
            )
            continue
        content = text[i + 1 : end - 1]
        raw = text[m.start() : end]
        keys = (content.strip(),) if content.strip() in known else tuple(_split_keys(content))
        if not content.strip():
            out.append(Citation("malformed", raw, (), m.start(), end, "empty"))
        elif any(not k for k in keys):
            out.append(
                Citation("malformed", raw, tuple(k for k in keys if k), m.start(), end, "empty_key")
            )
        elif cmd != "cite":
            out.append(Citation("variant", raw, keys, m.start(), end, "option" if option else None))
        elif option:
            out.append(Citation("malformed", raw, keys, m.start(), end, "option"))
        else:
            out.append(Citation("cite", raw, keys, m.start(), end))
    return out


def parse_citations(text: str, chunk_ids: Sequence[str]) -> list[Citation]:
    """Every citation in ``text``, in order of position (see the module docstring for the forms)."""
    keys = _Keys(chunk_ids)
    found = _latex_cites(text, keys.known)
    taken = [(c.start, c.end) for c in found]

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    def add(form: str, m: re.Match[str], ks: Sequence[str]) -> None:
        found.append(Citation(form, m.group(0), tuple(ks), m.start(), m.end()))
        taken.append((m.start(), m.end()))

    for m in _FULLWIDTH.finditer(text):
        if free(m.start(), m.end()):
            ks = [k.split("†")[0].strip() for k in _split_keys(m.group(1))]
            add("fullwidth", m, [k for k in ks if k])
    for m in _FOOTNOTE.finditer(text):
        if free(m.start(), m.end()):
            add("footnote", m, [m.group(1).strip()])
    for m in _BRACKET.finditer(text):
        if not free(m.start(), m.end()):
            continue
        ks = _split_keys(m.group(1))
        if ks and all(keys.is_key(k, numeric=True) for k in ks):
            numeric = all(re.fullmatch(r"\d{1,3}", k) and k not in keys.known for k in ks)
            add("numeric" if numeric else "bracket", m, ks)
    for m in _PAREN.finditer(text):
        if not free(m.start(), m.end()):
            continue
        ks = _split_keys(m.group(1))
        if ks and all(keys.is_key(k) for k in ks):
            add("paren", m, ks)
    for m in keys.bare.finditer(text):
        if free(m.start(), m.end()):
            add("bare", m, [m.group(0)])
    found.sort(key=lambda c: c.start)
    return found


_TERMINAL = re.compile(r"[.!?…]+")
_CLOSERS = "\"'”’“)]»"
_ABBREV = re.compile(
    r"(?:^|[\s(])(?:e\.g|i\.e|et al|fig|figs|eq|ref|vs|cf|approx|no|dr|mr|mrs|ms|st|prof|jr|inc|ltd|resp|incl"
    r"|tj|tzv|např|mj|atd|apod|aj|resp|č|str|s|r|roč|sv|ing|mudr|judr|doc|mgr|bc|phdr|tel|min|max|cca"
    r"|[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ])$",
    re.I,
)
_OPENERS = re.compile(r"[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ0-9\"'“„«(\[*\-•]")


def split_answer(text: str, citations: Sequence[Citation]) -> list[Sentence]:
    """Sentences of ``text`` with their citations attached (citations never split a sentence)."""
    masked = list(text)
    for c in citations:
        for i in range(c.start, c.end):
            masked[i] = "\x01"
    m_text = "".join(masked)
    bounds: list[int] = []
    i = 0
    n = len(m_text)
    for m in _TERMINAL.finditer(m_text):
        if m.start() < i:
            continue
        before = m_text[max(0, m.start() - 12) : m.start()]
        if m.group(0) == "." and (
            _ABBREV.search(before)
            or (
                re.search(r"\d$", before)
                and m.end() < n
                and m_text[m.end() : m.end() + 1].isdigit()
            )
        ):
            continue
        j = m.end()
        while j < n and m_text[j] in _CLOSERS:
            j += 1
        k = j
        while k < n and (m_text[k] in " \t\x01"):
            k += 1
        # citations after the final punctuation belong to this sentence
        last = j
        for p in range(j, k):
            if m_text[p] == "\x01":
                last = p + 1
        lower_ok = (
            k < n
            and k > j
            and m_text[k].islower()
            and m.group(0) == "."
            and re.search(r"[^\W\d_]{3,}$", before) is not None
        )
        if k >= n or m_text[k] == "\n" or _OPENERS.match(m_text[k]) or lower_ok:
            if m.group(0) == "." and k < n and m_text[k].isdigit() and re.search(r"\d$", before):
                continue
            bounds.append(last)
            i = last
    for m in re.finditer(r"\n", m_text):
        bounds.append(m.start())
    bounds = sorted(set(b for b in bounds if 0 < b < n))
    sentences: list[Sentence] = []
    prev = 0
    for b in [*bounds, n]:
        seg_start, seg_end = prev, b
        prev = b
        while seg_start < seg_end and text[seg_start].isspace():
            seg_start += 1
        while seg_end > seg_start and text[seg_end - 1].isspace():
            seg_end -= 1
        if seg_start >= seg_end:
            continue
        cites = [c for c in citations if c.start >= seg_start and c.start < seg_end]
        plain_chars = [ch for idx, ch in enumerate(m_text[seg_start:seg_end]) if ch != "\x01"]
        plain = " ".join("".join(plain_chars).split())
        plain = re.sub(r"\s+([.,;:!?…])", r"\1", plain)
        if not plain.strip(" .,;:!?-*•#>\"'") and not cites:
            continue
        sentences.append(
            Sentence(len(sentences), seg_start, seg_end, text[seg_start:seg_end], plain, cites)
        )
    return sentences


_HEDGE = re.compile(
    r"\b(?:i (?:do not|don't|cannot|can't|could not|couldn't) (?:know|find|say|tell|verify|answer|determine)"
    r"|i am not sure|i'm not sure|not sure|unclear from the (?:sources|context|chunks)|the (?:sources|context|"
    r"chunks|provided (?:documents|sources|context)) (?:do not|don't|does not|doesn't) (?:say|mention|state|"
    r"contain)|no information|hope (?:this|that) helps|let me know|feel free|great question|good question"
    r"|thank you|thanks|hello|hi there|in summary|to summarize|to sum up|overall,|here is|here are"
    r"|based on the (?:provided|retrieved|available) (?:sources|context|chunks|documents)"
    r"|nevím|nejsem si jist|nelze (?:určit|říci|odpovědět)|není (?:jasné|známo)|zdroje (?:neuvádějí|neobsahují)"
    r"|žádné informace|doufám, že|děkuji|dobrý den|ahoj|zdravím|shrnutí|celkově|stručně řečeno"
    r"|na základě (?:poskytnutých|dostupných|vyhledaných) (?:zdrojů|úryvků|dokumentů))",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s*%?|\d{4}")
_CAPWORD = re.compile(r"(?<=\s)[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ][\w\-]+")
_PRONOUN_CAPS = frozenset({"I", "I'm", "I've", "I'd", "I'll"})


def citation_need(sentence: str, query: str) -> tuple[str, str]:
    """Whether an uncited sentence needs a citation: ``("no"|"yes"|"judge", rule)``.

    ``no``: very short, a question, an introduction ending with ``:``, a hedge, greeting,
    transition or "I don't know", or a restatement of the query. ``yes``: at least six words
    with a number or a mid-sentence capitalised name. Everything else goes to the judge.
    """
    s = sentence.strip()
    words = re.findall(r"[^\W_]+", s)
    if len(words) < 4:
        return "no", "short"
    if s.endswith("?"):
        return "no", "question"
    if s.endswith(":"):
        return "no", "introduction"
    if _HEDGE.search(s):
        return "no", "hedge"
    if (
        query.strip()
        and fuzz.token_sort_ratio(fold(s), fold(query), processor=None, score_cutoff=0) >= 85
        and not (set(_NUMBER.findall(s)) - set(_NUMBER.findall(query)))
    ):
        return "no", "restates the query"
    body = re.sub(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+", "", s)
    has_num = bool(_NUMBER.search(body))
    names = [w for w in _CAPWORD.findall(" " + body[1:] if body else "") if w not in _PRONOUN_CAPS]
    if len(words) >= 6 and (has_num or names):
        return "yes", "number" if has_num else "named entity"
    return "judge", "undecided"
