"""Deterministic repairs around the reference parser's CRF (the fourth round, issue 27).

Each repair was chosen on the dev slice of the training part (a model trained with
``scripts/train_parser.py --dev``, scored by ``scripts/eval_parser.py --dev``) and kept only
where it made dev strings right and none wrong; the counts are in each docstring. They are
cheap: a plain substring test runs before any pattern.

- text repairs, before the string is tokenized: a venue's acronym glued to the title's last
  word, a title and venue glued by ".in." (:func:`unglue_venue`);
- title repairs, on the title span: an unpunctuated "In:" left at its end, a name before a
  quoted title (:func:`title_without_lead`);
- label repairs: names the model read as the title's start after a list conjunction of another
  language ("a", "e", "y", "und", …; :func:`names_before_title`).
"""

from __future__ import annotations

import re

from citejudge.readers.freetext._vocab import _ABBREV_WORDS

__all__ = [
    "comma_chunks",
    "container_without_tail",
    "drop_notes_in_brackets",
    "first_run",
    "journal_head_back",
    "names_before_title",
    "names_then_journal",
    "names_then_journal_end",
    "title_head_after_names",
    "title_in_names",
    "title_tail_in_container",
    "title_without_lead",
    "unglue_venue",
    "vancouver_last_name_in_title",
    "vancouver_names_before_colon",
]

#: a venue's acronym glued to the last word of a title, as some ABNT and German styles print
#: "…for Few-Shot Images ClassificationAAAI. Anais" / "…Manipulation AttacksICML, 2021": four
#: lower-case letters or more, then three capitals or more (or a mixed-case acronym such as
#: "NeurIPS" before a comma or stop), then punctuation or the end (or "DOI:": "… in
#: bacteria. biorxivDOI: 10.…"). Never in a URL, e-mail or identifier (only
#: letters and hyphens before it in its token).
_GLUED_ACRONYM_RE = re.compile(
    r"(?<![^\s(\[“\"'‘«-])((?:[A-Za-z]+-)*[A-Z]?[a-z]{4,})"
    r"([A-Z]{3,}(?=[.,;]?(?:\s|$))|DOI(?=:)|[A-Z][a-z]{2,4}[A-Z]{2,}[a-z]?(?=[.,;](?:\s|$)))"
)
#: a cheap test before :data:`_GLUED_ACRONYM_RE` (every match of it holds one)
_SMALL_THEN_CAPS_RE = re.compile(r"[a-z][A-Z]{2}")
#: a title and a venue glued by ".in.": "…can guide deep learning.in.NeurIPS. s. n."
_GLUED_IN_RE = re.compile(r"(?<=[a-z?!)])\.in[.\s](?=[A-Z])")
#: a title and a venue glued by a bare full stop: "Inverse Geometric Locomotion.ACM Trans.
#: Graph.", "Malaric Placentas.Pathology - Research": never in a URL, e-mail or file name,
#: nor before a role or an imprint's place ("The Symposium.Trans. Christopher Gill.London:
#: Penguin": no venue follows)
_GLUED_STOP_RE = re.compile(
    r"(?<![/@.\w])([A-Za-z][a-z]*[a-z]{3})\.(?!(?:Trans|Transl|Tr|Ed|Eds|Hrsg|Hg|Dir|Comp)\b)"
    r"(?=(?:[A-Z][a-z]{2,}|[A-Z]{2,})\b)(?![A-Za-z]+:)"
)


#: INSPIRE's bracketed notes in high-energy physics bibliographies, which name no field of the
#: work: an erratum or addendum with its own journal, volume and year ("Phys. Rev. D 46, 3169
#: (1992) [erratum: Phys. Rev. D 47, 2157 (1993)]"), and the collaboration after the authors
#: ("R. Aaij et al. [LHCb], Phys. Rev. D 92 …", "G. Aad et al. [ATLAS Collaboration], …").
#: The model read them into the container ("[LHCb], Phys. Rev. D", "erratum: Phys. Rev. D").
#: A number in brackets after "et al." is another entry's label ("In Keane et al. [4], …").
_ERRATUM_NOTE_RE = re.compile(
    r"\s*\[\s*(?:erratum|addendum)\b[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]", re.I
)
_COLLABORATION_NOTE_RE = re.compile(
    r"(?:(?<=et al\.)\s*\[(?=[^\]]*[A-Za-z])[^\[\]]{1,60}\]|\s*\[[^\[\]]{1,50}\s+collaborations?\])"
    r"(?=\s*,)",
    re.I,
)


def drop_notes_in_brackets(text: str) -> str:
    """``text`` without INSPIRE's erratum and collaboration notes (see :data:`_ERRATUM_NOTE_RE`).

    unarXive's 2,086 strings: 38 hold such a note, and the first word of their container
    (``Phys.``, ``Nucl.``) is right for all of them afterwards (see the commit).
    """
    if "[" not in text:
        return text
    return _COLLABORATION_NOTE_RE.sub(_collaboration, _ERRATUM_NOTE_RE.sub("", text))


def _collaboration(m: re.Match[str]) -> str:
    """The note's replacement: nothing for a collaboration's name, the note for anything else.

    "[LHCb]" and "[CDF Collaboration]" go; a translated title in brackets ("et al. [Study of
    the structure of metals],", a word in lower case) stays.
    """
    words = re.findall(r"[^\W\d_]+", m.group(0))
    lower = [w for w in words if w.islower() and not w.startswith("collaboration")]
    return m.group(0) if lower else ""


#: a cheap test before :data:`_GLUED_STOP_RE` (a literal first: the scan is fast)
_DOT_CAPITAL_RE = re.compile(r"\.[A-Z]")


def _bare_in(m: re.Match[str]) -> str:
    """The separator ". In: " for :data:`_BARE_IN_RE`, unless the word before makes "In:" a title's own."""
    before = m.string[max(0, m.start() - 12) : m.start()].rsplit(None, 1)
    word = before[-1].lower() if before else ""
    return m.group(0) if word in _IN_PARTICLE_VERBS else ". In: "


def _glued_stop(text: str) -> str:
    """:data:`_GLUED_STOP_RE` set off, except in a URL, a DOI or arXiv's "[stat.ML]"."""
    out: list[str] = []
    for tok in text.split(" "):
        if "." in tok and not any(c in tok for c in "/@[") and "www" not in tok.lower():
            tok = _GLUED_STOP_RE.sub(r"\1. ", tok).rstrip(" ")
        out.append(tok)
    return " ".join(out)


#: "In:" after a word with no punctuation between ("… Washington, D.C In: Bulletin of …",
#: "… in mid-to-late adulthood In: Clinical epigenetics"): a German style's title end
_BARE_IN_RE = re.compile(r"(?<=[A-Za-z0-9)])\s+In:\s+(?=\S)")
#: the words before which "In:" is a title's own ("The Data Are In: Health Matters …")
_IN_PARTICLE_VERBS = frozenset(
    ("are", "is", "was", "were", "be", "been", "being", "all", "get", "getting", "got", "log",
     "logged", "sign", "signed", "check", "checked", "fill", "opt", "phase", "build", "built",
     "plug", "lean", "let", "stay", "count", "tune", "tuned", "give", "fit", "buy", "move",
     "burn", "lock", "sink", "settle", "cash", "cave", "dig", "breathe", "zoom", "walk",
     "walking", "come", "coming", "left")
)  # fmt: skip


def unglue_venue(text: str, venues: frozenset[str]) -> str:
    """``text`` with a venue glued to the end of the title set off by a full stop.

    The acronym must be a venue word of the model's lexicon (``venues``, lower case): "AAAI",
    "ICML", "KDD"; a title word such as "LightCTS:" or "OrdinalCLIP:" stays whole.
    eval_parser.py --dev, CSL styles: 4 title misses of the acronym shape (two styles), 2
    containers of "biorxivDOI:" and 4 titles of ".in." (one style), none lost.
    """
    if ".in" in text:
        text = _GLUED_IN_RE.sub(". in ", text)
    if _DOT_CAPITAL_RE.search(text) and _GLUED_STOP_RE.search(text):
        text = _glued_stop(text)
    if " In: " in text:
        text = _BARE_IN_RE.sub(_bare_in, text)
    if _SMALL_THEN_CAPS_RE.search(text):

        def split(m: re.Match[str]) -> str:
            acronym = m.group(2)
            if acronym != "DOI" and acronym.lower() not in venues:
                return m.group(0)
            return f"{m.group(1)}. {acronym}"

        text = _GLUED_ACRONYM_RE.sub(split, text)
    return text


#: "In:" ending a title span with no punctuation before it: "…for circadian chromatin control
#: In: biorxiv" (a German author-date style prints no full stop after the title)
_IN_COLON_END_RE = re.compile(r"\s+In:\s*$")
#: a name (or a bracketed note on it) before the whole title in quotes: "Hainline, “Develop…”",
#: "Alon [zdaj Iris]. "The Disruptive …""
_NAME_THEN_QUOTE_RE = re.compile(
    r"^(?P<lead>[A-Z][^“\"«‘]{0,40}?)(?P<sep>[,.]\s*|\s)(?P<open>[“\"«‘])(?P<body>.{3,})$",
    re.S,
)
_CLOSES = {"“": "”", '"': '"', "«": "»", "‘": "’"}
#: what a style prints after a title that is no part of it: a medium in brackets ("[DVD]",
#: "[mémoire inédit]"), an edition (", 2nd edition", ". 2nd rev", ", 3e éd., Bâle/Genève",
#: ". Third edition", ", 2. izd"), a month after a full stop or abbreviated (". July", " Apr"),
#: a translator (". Translated by Arthur Golding", ", trans. J. Doe")
_TITLE_TAIL_RE = re.compile(
    r"\s*\[(?:dvd|cd|cd-rom|film|video|motion picture|television series|tv series|podcast"
    r"|computer software|software|brochure|audio|abstract|data ?set|blog post|video file"
    r"|audio file|lecture notes|photograph|map|mémoire[^\]]{0,20}|thèse[^\]]{0,20}"
    r"|unpublished[^\]]{0,30})\]"
    r"|[,.]\s+\d{1,2}(?:st|nd|rd|th|e|ème|\.)?\s*(?:rev(?:ised)?\.?\s*)?"
    r"(?:(?:ed|edn|edition|éd|édition|aufl|auflage)\b\.?(?:,[^\d,]{2,40})?|(?<=rev)\.?)"
    r"|[,.]\s+(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|revised"
    r"|new|expanded|enlarged)\s+(?:and\s+(?:revised|expanded|enlarged)\s+)?edition"
    r"|[,.]\s+\d{1,2}\.\s*izd\.?"
    r"|(?-i:\.\s+(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December)|\s+(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?)"
    r"|[,.]\s+(?:translated|trans\.|transl\.|traduit|trad\.|übersetzt|übers\.)\s+(?:by\s+|par\s+|von\s+)?"
    r"[A-Z][^,.]{0,40}(?:\.[^,.]{1,30}){0,2}",
    re.I,
)
#: the last letters of what :data:`_TITLE_TAIL_RE` strips (a cheap test before it)
_TITLE_TAIL_WORDS = (
    "]", "ed", "edition", "edn", "éd", "aufl", "auflage", "rev", "revised", "izd", "jan",
    "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "uary",
    "march", "april", "may", "june", "july", "ust", "mber", "ober",
)  # fmt: skip
#: substrings one of which every match of :data:`_TAIL_MARKS_RE` holds (lower case)
_TAIL_MARK_WORDS = ("tra", "übers", "ed", "éd", "aufl")
_TAIL_MARKS_RE = re.compile(
    r"(?i)\b(?:translated|trans\.|transl\.|traduit|trad\.|übersetzt|übers\.)"
    r"|\d(?:st|nd|rd|th|e|ème|\.)?\s*(?:ed|edn|edition|éd|édition|aufl|auflage)\b"
)


#: the role of the names before, left at the title's start: "(Trans.) Kojiki", "(Hrsg.) …"
_ROLE_LEAD_RE = re.compile(
    r"^\((?:trans|transl|tr|ed|eds|edd|hrsg|hg|hgg|dir|dirs|coord|éd|éds|comp|comps)\.?\)[.,:]?\s+(?=\S)",
    re.I,
)
#: names with their initials joined by slashes before the title: "Y. Zhu/H. Liu/Z. Wu, "
_SLASHED_NAMES_RE = re.compile(r"^(?:[A-Z]\.\s?)+[\w'’\-]+(?:/(?:[A-Z]\.\s?)+[\w'’\-]+)+,\s+(?=\S)")
#: a venue's acronym after the title's full stop and a comma: "… Graphs., SIGIR"
_VENUE_AFTER_STOP_RE = re.compile(r"(?<=[a-z])\.,\s+[A-Z][A-Za-z]*[A-Z][A-Za-z]*[\s.,]*$")


def title_without_lead(text: str) -> str:
    """The title span without what a style printed before or after the title itself.

    An "In:" at its end with no punctuation before it ("… chromatin control In:"); a name
    before a quoted title, a label style's author after its label ("Hainline 1992 Hainline,
    “Development of accommodation …”", "Rachamimov, Alon [zdaj Iris]. "The Disruptive …"");
    a medium in brackets, an edition or a
    translator after the title ("Bowling for Columbine [DVD]", "Empirical Model Building, 2nd
    edition", "… vpon the Booke of Iob. Translated by Arthur Golding"). eval_parser.py --dev:
    CSL 2 title misses, AnyStyle 7 (see the commit), none lost.
    """
    if text.endswith(":") and _IN_COLON_END_RE.search(text):
        text = _IN_COLON_END_RE.sub("", text)
    core = text.rstrip(" ,.;:").lower()
    if core.endswith(_TITLE_TAIL_WORDS) or (
        any(m in core for m in _TAIL_MARK_WORDS) and _TAIL_MARKS_RE.search(text)
    ):
        m = _TITLE_TAIL_RE.search(text)
        while m and m.start() > 0 and not text[m.end() :].strip(" ,.;:"):
            text = text[: m.start()]
            m = _TITLE_TAIL_RE.search(text)
    if text[:1] == "(":
        m = _ROLE_LEAD_RE.match(text)
        if m:  # "Philippi, Donald L. (Trans.) Kojiki.": the role of the names before
            text = text[m.end() :]
    if "/" in text[:60]:
        m = _SLASHED_NAMES_RE.match(text)
        if m:  # "Y. Zhu/H. Liu/Z. Wu, Relation-Aware …" (German archaeology styles)
            text = text[m.end() :]
    if "., " in text:
        m = _VENUE_AFTER_STOP_RE.search(text)
        if m:  # "… Neural-Symbolic Graphs., SIGIR"
            text = text[: m.start() + 1]
    if text[:1].isupper() and any(q in text for q in '“"«‘'):
        m = _NAME_THEN_QUOTE_RE.match(text)
        if m:
            body = m.group("body").rstrip(" ,.;:")
            opener = m.group("open")
            close = _CLOSES[opener]
            whole = body.endswith(close) and close not in body[:-1] and opener not in body[:-1]
            # a lead with a comma or full stop after it, never a bare word: "Regarding
            # “Endovascular …”" is one title (bench_parse APA)
            if whole and m.group("sep") != " " and len(m.group("lead").split()) <= 4:
                return opener + body
    return text


#: the words that join the last two names of a list in other languages' styles
_NAME_CONJUNCTIONS = frozenset(("a", "e", "y", "i", "und", "et", "och", "og", "en", "ve", "és"))
_NAME_WORD_RE = re.compile(r"^[A-Z][A-Za-z\u00c0-\u024f'’\-]*[,.]?$")
_CAPS_FAMILY_RE = re.compile(r"^[A-Z\u00c0-\u00de][A-Z\u00c0-\u00de'’\-]+[,.]?$")


def names_before_title(tokens: list[str], labels: list[str]) -> list[str]:
    """Names after a list's conjunction that the model took for the title's first words.

    ISO 690's Czech "ALIMISIS, Foivos, Peter DAVIES, Bart VANDEREYCKEN a Dan ALISTARH.
    Distributed …": the title span opens with names (family names in capitals) joined by a
    conjunction the model did not know, up to the full stop that ends the list. Only after an
    author span ending with a comma, with a family name in capitals among the words, and a
    title going on after the stop. eval_parser.py --dev, CSL styles: 1 title miss, none lost.
    """
    if "author" not in labels or "title" not in labels:
        return labels
    start = labels.index("title")
    if start == 0 or labels[start - 1] != "author":
        return labels
    if not any(t in _NAME_CONJUNCTIONS for t in tokens[start : start + 8]):
        return labels  # (the cheap test first)
    # the name the model cut ("J. Steven | LOVINK a Wouter VEENING."): its family name first
    cut = not tokens[start - 1].endswith(",")
    end = start
    while end < len(labels) and labels[end] == "title" and not tokens[end].endswith("."):
        end += 1
    if end >= len(labels) - 1 or labels[end] != "title" or labels[end + 1] != "title":
        return labels
    words = tokens[start : end + 1]
    if not 3 <= len(words) <= 8 or not any(w in _NAME_CONJUNCTIONS for w in words):
        return labels
    if not all(w in _NAME_CONJUNCTIONS or _NAME_WORD_RE.match(w) for w in words):
        return labels
    chunks: list[list[str]] = [[]]
    for w in words:
        if w in _NAME_CONJUNCTIONS:
            chunks.append([])
            continue
        chunks[-1].append(w)
        if w.endswith(","):
            chunks.append([])
    if cut and (len(chunks[0]) != 1 or not _CAPS_FAMILY_RE.match(chunks[0][0])):
        return labels
    # every name a given name and a family name in capitals: "Bart VANDEREYCKEN"
    for chunk in chunks[1:] if cut else chunks:
        if not (
            2 <= len(chunk) <= 3
            and _CAPS_FAMILY_RE.match(chunk[-1])
            and any(not _CAPS_FAMILY_RE.match(w) for w in chunk[:-1])
        ):
            return labels
    return [*labels[:start], *(["author"] * len(words)), *labels[end + 1 :]]


_FAMILY = r"[A-Z][a-z\u00c0-\u024f'’\-]*[a-z][a-z\u00c0-\u024f'’\-]*"
#: two names or more in Vancouver's form up to a colon: "Dharmapuri A and Thorpe RJ:", "Roe
#: B, Doe AC:" (a family name of one or two words, its undotted initials, "," / "and" / "&")
_VANCOUVER_LIST_RE = re.compile(
    rf"^(?:{_FAMILY}(?: {_FAMILY})? [A-Z]{{1,3}}(?:, | and | & ))+{_FAMILY}(?: {_FAMILY})? [A-Z]{{1,3}}:$"
)


def vancouver_names_before_colon(tokens: list[str], labels: list[str]) -> list[str]:
    """Vancouver names the model took for the title's start, up to the colon that ends the list.

    "Hayes C, Prasad S, Dharmapuri A and Thorpe RJ: White matter …" (a numeric style that
    ends the list with a colon): the title span opens with "Family INITIALS" names and the
    last initials carry the colon. Only right after an author span, two to twelve tokens, the
    last undotted initials with a colon, and two names at least ("Hybrid RL: Using both …" is
    a title). eval_parser.py --dev, CSL styles: 1 title, none lost.
    """
    if "title" not in labels:
        return labels
    start = labels.index("title")
    if start == 0 or labels[start - 1] != "author":
        return labels
    end = start
    while end < len(labels) and end - start < 12 and labels[end] == "title":
        if tokens[end].endswith(":"):
            break
        end += 1
    else:
        return labels
    if end - start < 3 or end + 1 >= len(labels) or labels[end + 1] != "title":
        return labels
    if not _VANCOUVER_LIST_RE.match(" ".join(tokens[start : end + 1])):
        return labels
    return [*labels[:start], *(["author"] * (end + 1 - start)), *labels[end + 1 :]]


def title_tail_in_container(
    tokens: list[str], labels: list[str], places: frozenset[str]
) -> list[str]:
    """The place that ends a title, which the model read as the container's first sentence.

    "… amphetamine users in Sydney, Australia. Addiction 1996;91:81.": the title span ends
    with a comma and the container span opens with one to three words up to a full stop, then
    goes on; when those words are places of the model's lexicon (``places``, lower case) they
    end the title. Not an abbreviated journal ("…climate, Clim. Dynam., 33"). eval_parser.py
    --dev, CSL styles: 4 titles and their containers, none lost.
    """
    if "container" not in labels or "title" not in labels:
        return labels
    start = labels.index("container")
    if start == 0 or labels[start - 1] != "title" or not tokens[start - 1].endswith(","):
        return labels
    end = start
    while end < len(labels) and end - start < 3 and labels[end] == "container":
        if tokens[end].endswith("."):
            break
        end += 1
    else:
        return labels
    if end + 1 >= len(labels) or labels[end + 1] != "container":
        return labels
    for w in tokens[start : end + 1]:
        core = w.rstrip(".,")
        if len(core) < 3 or not core[:1].isupper() or core.isupper() or not core.isalpha():
            return labels
        if core.lower() in _ABBREV_WORDS or core.lower() not in places:
            return labels
    return [*labels[:start], *(["title"] * (end + 1 - start)), *labels[end + 1 :]]


#: an abbreviated word of a journal's name: "Aust.", "Geol.", "J.", "Org."
_ABBREV_TOKEN_RE = re.compile(r"^[A-Z][a-z]{0,5}\.$")
_INITIAL_RE = re.compile(r"^(?:[A-Z]\.-?){1,3}$")
#: an abbreviated word of three to eight letters opening a journal's name: "Nucl.", "Commun."
_JOURNAL_WORD_RE = re.compile(r"^[A-Z][a-z]{2,7}\.$")
#: abbreviations of that shape that open no journal's name
#: ("Rev.", "Trans.", "Comp.", "Org." do: "Rev. Mod. Phys.", "Trans. Amer. Math. Soc.")
_NOT_JOURNAL_WORDS = frozenset(
    ("eds.", "vol.", "vols.", "inc.", "ltd.", "corp.", "mrs.", "hrsg.", "transl.", "repr.",
     "dir.", "coord.", "übers.", "trad.")
)  # fmt: skip


def journal_head_back(tokens: list[str], labels: list[str]) -> list[str]:
    """The first abbreviation of a journal's name, which the model left on the span before.

    "… terrestrial impacts. Aust. | Geol. Geophys. J. 16": the title's last token an
    abbreviation after a sentence's full stop; ACS without titles, "…; Len, C. J. | Org. Chem.
    2014, 79": the "J." read as the last author's second initial. In both the container opens
    with an abbreviation too. eval_parser.py --dev, AnyStyle: see the commit.
    """
    if "container" not in labels:
        return labels
    start = labels.index("container")
    if start < 2 or not _ABBREV_TOKEN_RE.match(tokens[start]):
        return labels
    prev, before = labels[start - 1], tokens[start - 2]
    tok = tokens[start - 1]
    if (
        prev == "title"
        and _ABBREV_TOKEN_RE.match(tok)
        and labels[start - 2] == "title"
        and before.endswith(".")
        and len(before.rstrip(".")) > 3
    ):
        return [*labels[: start - 1], "container", *labels[start:]]
    if (
        prev in ("title", "author")
        and _JOURNAL_WORD_RE.match(tok)
        and tok.lower() not in _NOT_JOURNAL_WORDS
        and labels[start - 2] == prev
        and before.endswith(",")
        and (prev == "title" or (start >= 3 and _INITIAL_RE.match(tokens[start - 3])))
    ):
        # physics and maths styles, a comma before the journal: "…flat spacetimes, Commun. |
        # Math. Phys. 94", and without a title "M. Hamanaka, Nucl. | Phys. B 741" (a word of
        # three letters or more: never an initial; names written "initials family", so the
        # word is no given name as in "Dubrow, Heather. | Biopsy.")
        return [*labels[: start - 1], "container", *labels[start:]]
    if (
        prev == "author"
        and tok == "J."
        and _INITIAL_RE.match(before)
        and labels[start - 2] == "author"
    ):
        # (the author span's names written "Family, I." with semicolons between them)
        run = [t for t, lab in zip(tokens[:start], labels[:start], strict=False) if lab == "author"]
        if any(t.endswith(";") for t in run):
            return [*labels[: start - 1], "container", *labels[start:]]
    return labels


#: a word that shows a comma-separated chunk is a title, not a name: a lower-case word (not a
#: name particle), an elided article ("L’Opéra", "d'une"), a slash ("S/Z")
_PARTICLES = frozenset(
    ("de", "da", "di", "do", "dos", "das", "du", "del", "della", "van", "von", "der", "den",
     "ten", "ter", "zu", "le", "la", "y", "e", "af", "av", "bin", "ibn", "al", "el")
)  # fmt: skip
_ELIDED_RE = re.compile(r"^[LlDd][’']\w")


def first_run(labels: list[str], label: str) -> tuple[int, int]:
    """``(start, end)`` of the first run of ``label`` (which ``labels`` must hold)."""
    start = labels.index(label)
    end = start
    while end < len(labels) and labels[end] == label:
        end += 1
    return start, end


def comma_chunks(tokens: list[str], start: int, end: int) -> list[list[int]]:
    """The indices ``start`` … ``end - 1`` of ``tokens`` in runs that a token's comma ends."""
    chunks: list[list[int]] = [[]]
    for i in range(start, end):
        chunks[-1].append(i)
        if tokens[i].endswith(","):
            chunks.append([])
    return [c for c in chunks if c]


def _title_like(chunk: list[str]) -> bool:
    words = [w.strip(",.;:") for w in chunk]
    if not words or not (words[0][:1].isupper() or _ELIDED_RE.match(words[0])):
        return False
    if any(_INITIAL_RE.match(w) for w in chunk):
        return False  # "C.V. do Bonfim": a name with its initials
    if any(w.endswith(".") for w in chunk[:-1]):
        return False  # "O'Donnell, Ian. Juries and Judges": a given name, then a sentence
    return (
        any(w[:1].islower() and w not in _PARTICLES for w in words[1:])
        or _ELIDED_RE.match(words[0]) is not None
    )


def title_in_names(tokens: list[str], labels: list[str]) -> list[str]:
    """The title a humanities style prints between commas after the name, read as names.

    "Karl Bosl, Reichsaristokratie und Uradel, Zeitschrift für …, 21, 1958", "Chernetov,
    L’Opéra Pompidou, Tecniques et Architecture, Vol. xx": no title labelled, and the author
    span goes on after the name with a comma-separated chunk that is no name (a lower-case
    word in it that is no name particle, or an elided article; no initial and no full stop
    inside it: "Moura, João Ricardo Fidalgo de Moura,", "O'Donnell, Ian. Juries and Judges"
    stay names, bench_parse degraded); that chunk is the title. The name is
    the first chunk, with a one-word given name after it ("Barthes, Roland,"). eval_parser.py
    --dev, AnyStyle: see the commit.
    """
    if "title" in labels or "author" not in labels:
        return labels
    start, end = first_run(labels, "author")
    chunks = comma_chunks(tokens, start, end)
    if len(chunks) < 2 or len(chunks[0]) > 3:
        return labels
    k = 1
    first = [tokens[i] for i in chunks[0]]
    nxt = [tokens[i] for i in chunks[1]]
    if len(first) == 1 and len(nxt) == 1 and nxt[0].rstrip(",")[1:].islower() and len(chunks) > 2:
        k = 2  # "Barthes, Roland, S/Z": the given name after the family name
    if k >= len(chunks) or not _title_like([tokens[i] for i in chunks[k]]):
        return labels
    idx = chunks[k]
    return [*labels[: idx[0]], *(["title"] * len(idx)), *labels[idx[-1] + 1 :]]


#: an initial with its full stop, or initials ("Y.", "P. J.", "C.;", "F.,")
_DOTTED_INITIAL_RE = re.compile(r"^(?:[A-Z]\.-?){1,3}[,;]?$")
_HEAD_WORD_RE = re.compile(r"^[A-Z0-9][A-Za-z0-9\-]*:?$")
#: the end of "et al." / "u. a." / "i in." closing a list ("a.:", "al.,")
_ET_AL_END_RE = re.compile(r"^(?:al|a|in)\.[,:;]?$")


def title_head_after_names(tokens: list[str], labels: list[str]) -> list[str]:
    """A title's first words the model kept in a list of names with dotted initials.

    "…, A. Krishnamurthy and W. Sun, Hybrid RL: Using Both …", "…; POMO, C. EvalRS 2023:
    Well-Rounded …": after the last initial or comma of the list, one to three capitalised
    words up to a colon (the colon may end a year the model called the date) can be no name
    in a list whose names carry dotted initials; they open the title. Not in a Vancouver list
    ("Thorpe RJ:" is a name there: no dotted initial). eval_parser.py --dev, CSL styles: 2 titles, none lost.
    """
    if "author" not in labels or "title" not in labels:
        return labels
    start, end = first_run(labels, "author")
    if end >= len(labels) - 1 or not (
        tokens[end - 1].endswith(":") or (labels[end] == "date" and tokens[end].endswith(":"))
    ):
        return labels  # (the cheap test first: a colon ends the run or the year after it)
    run = tokens[start:end]
    k = max(
        (
            i
            for i, t in enumerate(run)
            if _DOTTED_INITIAL_RE.match(t) or t.endswith((",", ";")) or _ET_AL_END_RE.match(t)
        ),
        default=-1,
    )
    if not any(_DOTTED_INITIAL_RE.match(t) or _ET_AL_END_RE.match(t) for t in run[: k + 1]):
        return labels
    tail = run[k + 1 :]
    if not 1 <= len(tail) <= 3 or not all(_HEAD_WORD_RE.match(t) for t in tail):
        return labels
    if tail[-1].endswith(":") and labels[end] == "title":
        stop = end
    elif (
        labels[end] == "date"
        and tokens[end].endswith(":")
        and tokens[end][:-1].isdigit()
        and labels[end + 1] == "title"
    ):
        stop = end + 1  # "EvalRS 2023:": the year is the title's
    else:
        return labels
    if not any(
        sum(c.isupper() for c in t) >= 2 or t[:-1].isdigit() for t in tokens[start + k + 1 : stop]
    ):
        return labels  # an acronym or a year among them: "RL:", "EvalRS"
    a = start + k + 1
    return [*labels[:a], *(["title"] * (stop - a)), *labels[stop:]]


#: what a style prints after a container's name that is no part of it: a tome or part number,
#: a special issue, a report's kind (", tome VII", ", Part II", ", special issue")
_CONTAINER_PART_TAIL_RE = re.compile(
    r",\s*(?:(?:tome|t\.|part|teil|tomo|fasc\.?|fascicule)\s*[IVXLC\d]+[a-z]?|special issue"
    r"|numéro spécial|sonderheft|\[en ligne\])\.?$",
    re.I,
)


def container_without_tail(venue: str | None) -> str | None:
    """``venue`` without a part number or a special issue a style printed after it.

    "Consumer Installment Credit, Part II", "Gazette des Beaux-arts, tome VII", "Kinephanos
    [en ligne], special issue". eval_parser.py --dev, AnyStyle: 1 container right, none lost
    (a place after the comma, tried too, changed none).
    """
    if not venue or "," not in venue:
        return venue
    m = _CONTAINER_PART_TAIL_RE.search(venue, max(0, len(venue) - 30))
    if m is None or m.start() < 3:
        return venue
    return venue[: m.start()].rstrip(" ,.;:")


#: a Vancouver name's undotted initials, hyphenated too: "M", "AS", "H-T", "F-Y"
_VANCOUVER_INITIALS_RE = re.compile(r"^[A-Z]{1,3}(?:-[A-Z]{1,2})?$")
_VANCOUVER_NAME_END_RE = re.compile(r"^[A-Z]{1,3}(?:-[A-Z]{1,2})?,$")


def vancouver_last_name_in_title(tokens: list[str], labels: list[str]) -> list[str]:
    """The last name of an unfinished Vancouver list, read as the title's first words.

    "Braune T, Gillespie M, Tong Y, Desbrun M Discrete Torsion of …" (a style that prints no
    full stop after the list): the author span ends with a comma after a name's initials, so
    the list goes on; a capitalised family name and its undotted initials that open the title
    span are that last name. eval_parser.py --dev (24 records a style): see the commit.
    """
    if "title" not in labels:
        return labels
    start = labels.index("title")
    if start < 2 or labels[start - 1] != "author" or start + 2 >= len(labels):
        return labels
    if not _VANCOUVER_NAME_END_RE.match(tokens[start - 1]):
        return labels
    family, initials = tokens[start], tokens[start + 1]
    if (
        labels[start + 1] == "title"
        and labels[start + 2] == "title"
        and family[:1].isupper()
        and family[1:].replace("-", "").replace("’", "").replace("'", "").isalpha()
        and not family.isupper()
        and _VANCOUVER_INITIALS_RE.match(initials)
    ):
        return [*labels[:start], "author", "author", *labels[start + 2 :]]
    return labels


#: a name's initials as physics styles print them: "P.", "J.-P.", "B.S.", "Yu."
_NAME_INITIALS_RE = re.compile(r"^(?:[A-Z][a-z]?\.-?){1,3}$")
#: a family name, possibly ending its name with a comma: "Skands,", "Lee-Wong,", "Barnaś"
_FAMILY_RE = re.compile(r"^[A-Z][^\W\d_]*(?:[-'’][A-Z]?[^\W\d_]+)*,?$")
#: a word of a journal's abbreviated name, or its series letter: "Phys.", "J.", "Rev.", "D"
_JOURNAL_PART_RE = re.compile(r"^(?:[A-Z][a-z]{0,7}\.|[A-Z])$")


def names_then_journal(labels: list[str], found: tuple[int, int]) -> list[str]:
    """``labels`` with the names and the journal :func:`names_then_journal_end` ``found``."""
    names, k = found
    want = ["author"] * names + ["container"] * (k - names)
    return labels if labels[:k] == want else [*want, *labels[k:]]


def names_then_journal_end(tokens: list[str]) -> tuple[int, int] | None:
    """Where the names and the journal end when ``tokens`` open a title-less physics reference.

    "P. Z. Skands, Phys. Rev. D 82, 074018 (2010)", "S. Friot and D. Greynat, J. Math. Phys.
    53 (2012)", "… and S. H. Autler, Phys. Rev. 133, A1226 (1964)" (unarXive; APS and INSPIRE
    styles): the model read a family name as the title or the container, or the journal's
    first word as a name. Only when the string opens exactly so: names each written as
    initials then a family name, joined by commas or "and"; a comma after the last; then two
    or more journal words (abbreviations with a full stop, a series letter) and a number.
    Returns (end of the names, end of the journal), else None.
    """
    n = len(tokens)
    i = 0
    names = 0
    while True:
        j = i
        while j < n and _NAME_INITIALS_RE.match(tokens[j]):
            j += 1
        if j == i or j >= n or not _FAMILY_RE.match(tokens[j]):
            break  # no name here: the journal may start at i
        names += 1
        i = j + 1
        if tokens[j].endswith(","):
            if i < n and tokens[i] in ("and", "&"):
                i += 1
            continue
        if i < n and tokens[i] in ("and", "&"):
            i += 1
            continue
        return None  # a name not followed by a separator: not this shape
    if names == 0 or i == 0 or not tokens[i - 1].endswith(","):
        return None
    k = i
    while k < n and _JOURNAL_PART_RE.match(tokens[k].rstrip(",")):
        k += 1
    if k - i < 2 or k >= n or not tokens[k][:1].isdigit():
        return None
    return i, k
