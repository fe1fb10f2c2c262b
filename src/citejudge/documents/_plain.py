"""Markdown and plain text (``.md``, ``.txt``, the text ``pdftotext`` gives), and lines of any reader.

:func:`document_from_lines` is the path every line-based format takes (the PDF reader too):
the finder labels the lines, its reference blocks are split into entries, the other lines are
the body. Markdown adds footnote definitions (``[^3]: …``, each an entry), a YAML front
matter's ``bibliography:`` (a ``.bib`` for pandoc ``[@key]`` citations) and markup that is
not text (headings' ``#``, emphasis, links, images, code).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from citejudge.documents._bib import bib_file_entries
from citejudge.documents._build import (
    Entry,
    LocatedMarkers,
    Paragraph,
    assemble,
    read_text_file,
)
from citejudge.documents._finder import (
    REF_HEADING,
    Line,
    cites,
    entry_label,
    join_entry_lines,
    load_finder,
    reads_as_reference,
    reference_blocks,
    split_entries,
    superscript_marker,
)
from citejudge.documents._markers import find_markers, label_targets
from citejudge.documents._model import Document, DocumentFormat
from citejudge.ids import (
    extract_arxiv,
    extract_dois,
    extract_pmcid,
    extract_pmid,
    extract_publisher_dois,
    strip_tracking,
)

__all__ = ["document_from_lines", "markdown_bibliographies", "read_markdown"]

_FRONT = re.compile(r"\A---\s*\n(.*?)\n(?:---|\.\.\.)\s*\n", re.S)
_FOOTNOTE_DEF = re.compile(r"^\[\^([^\]\s]{1,40})\]:\s*(.*)$")
#: A reference-style link definition with a number, the sources list of a chat answer:
#: '[2]: https://www.nature.com/articles/nature14539 "Deep learning"'.
_LINK_DEF = re.compile(r'^ {0,3}\[(\d{1,4})\]:\s*<?(\S+?)>?(?:\s+["\'(](.*)["\')])?\s*$')
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+\S|={3,}\s*$|-{3,}\s*$)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_MD_NUM_LINK = re.compile(r"\[(\d[\d,;\s–—-]*)\]\([^)\s]*\)")
_MD_FOOT_LINK = re.compile(r"\[\[\^?(\d+)\]\]\([^)\s]*\)")
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]\[^@][^\]\[]*)\]\(([^)\s]*)\)")
_MD_EMPH = re.compile(r"(\*\*|__|\*|(?<!\w)_)(?=\S)(.+?)(?<=\S)\1")
_MD_CODE = re.compile(r"`([^`]*)`")


def _md_inline(s: str, *, keep_links: bool = False) -> str:
    """Markdown inline markup removed.

    ``keep_links`` (a reference entry): the web addresses of links go to the end, and a linked
    text of two words or more, which is the entry's title, is quoted ("[Long short-term
    memory](https://doi.org/…)" keeps its DOI, and the parser reads its title as one).
    """
    urls: list[str] = []

    def link(m: re.Match[str]) -> str:
        text, url = m.group(1), m.group(2)
        if not keep_links or not url.lower().startswith(("http://", "https://")):
            return text
        if url not in text:
            urls.append(strip_tracking(url))
        bare = text.strip()
        if len(bare.split()) >= 2 and not _HOSTLIKE.match(bare) and bare[:1] not in "“\"'‘«":
            # a linked text of an entry is its title: quoted, the parser reads it as one
            return f"“{bare}”"
        return text

    s = _MD_IMAGE.sub("", s)
    s = _MD_FOOT_LINK.sub(r"[\1]", s)
    s = _MD_NUM_LINK.sub(r"[\1]", s)
    s = _MD_LINK.sub(link, s)
    if urls:
        s = f"{s.rstrip()} {' '.join(dict.fromkeys(urls))}"
    s = _MD_CODE.sub(r"\1", s)
    for _ in range(2):
        s = _MD_EMPH.sub(r"\2", s)
    return s


#: An entry that opens with its linked title, the authors after it: "[Title](https://…) — A.
#: Author, B. Author (2021)", "[Title](https://…), Authors, Venue 2021" (generated reading lists).
_TITLE_LINK_FIRST = re.compile(
    r"^\s*\[(?P<title>[^\[\]]{2,400})\]\((?P<url>https?://[^)\s]+)\)\s*(?:[—–]|-{1,2}|,)\s*(?P<rest>.+)$"
)
_YEAR_PAT = r"(?:1[5-9]\d\d|20\d\d)[a-z]?"
_AUTHORS_YEAR = re.compile(
    rf"^(?P<authors>[^()]+?),?\s*\((?P<year>{_YEAR_PAT})\)\s*[.,;:]?\s*(?P<after>.*)$"
)
_AUTHORS_VENUE_YEAR = re.compile(
    rf"^(?P<authors>[^()]+),\s*(?P<venue>[^,()\d]*[^\W\d][^,()\d]*?),?\s+(?P<year>{_YEAR_PAT})\.?\s*$"
)
_NAME_SPLIT = re.compile(r"\s*(?:;|,|\band\b|&)\s*")
_PARTICLES = frozenset(
    {"van", "von", "de", "der", "den", "da", "di", "du", "del", "la", "le", "dos"}
)
_ET_AL_END = re.compile(r",?\s+et\s+al\.?\s*$")
_INITIALS = re.compile(r"^(?:[^\W\d_]\.-?\s*)+$")
#: words of a blog's, a team's or an organisation's name, never of a person's
_NO_PERSON_WORDS = frozenset(
    ("blog", "team", "lab", "labs", "inc", "ltd", "institute", "university", "foundation",
     "press", "news", "magazine", "times", "post", "journal", "review", "research", "group",
     "center", "centre", "society", "association", "company", "corporation", "ai", "wiki")
)  # fmt: skip
_INITIALS_IN = re.compile(r"(?:^|\s)[^\W\d_]\.")


def _names(authors: str) -> list[str] | None:
    """The names of an author list ("A. Author, B. Author", "Kingma and Ba").

    None when a part of it is no name (a word in lower case, a number).
    """
    text, et_al = _ET_AL_END.subn("", authors.strip())
    parts = [p for p in _NAME_SPLIT.split(text.strip().rstrip(".")) if p]
    if not 1 <= len(parts) <= 40:
        return None
    for part in parts:
        words = part.split()
        if not 1 <= len(words) <= 5 or any(c.isdigit() for c in part):
            return None
        if not all(w[:1].isupper() or w.lower() in _PARTICLES for w in words):
            return None
    return [*parts[:-1], f"{parts[-1]} et al."] if et_al else parts


def linked_title_first(text: str) -> str:
    """An entry that opens with its linked title, in the usual order: "Authors (year). “Title”.".

    "[Deep learning](https://doi.org/10.1038/nature14539) — Y. LeCun, Y. Bengio, G. Hinton
    (2015)" or "[Deep learning](…), LeCun, Bengio, Hinton, Nature 2015": written as they are, the
    parser reads the authors into the title. Any other entry is returned as it is (what follows
    the link must be a list of names and a year, in parentheses or after a venue).
    """
    m = _TITLE_LINK_FIRST.match(text)
    if m is None:
        return text
    rest = " ".join(m.group("rest").split())
    shape = _AUTHORS_YEAR.match(rest) or _AUTHORS_VENUE_YEAR.match(rest)
    if shape is None:
        return text
    names = _names(shape.group("authors"))
    if names is None:
        return text
    from citejudge.readers.freetext import names_a_person, names_a_venue

    alone = len(names) == 1 and not _INITIALS_IN.search(names[0]) and "et al." not in names[0]
    words = names[0].split()
    if (
        names_a_venue(names[-1])
        or all(names_a_venue(n) for n in names)
        or (alone and len(words) == 1 and not names_a_person(names[0]))
        or (alone and any(w.lower().strip(".,") in _NO_PERSON_WORDS for w in words))
    ):
        # "[Deep learning](…) — Nature (2015)", "… — OpenAI Blog (2023)", "…, Nature
        # Communications, Springer 2019", "— Smith, Nature (2019)": a venue or a publisher
        # after the link; a single name must be a person's ("— Hinton (2006)", "— Andrew Ng")
        return text
    if any(_INITIALS.match(n) for n in names):
        authors = shape.group("authors").strip().rstrip(",")  # "LeCun, Y., Bengio, Y.": as written
    else:
        authors = "; ".join(names)  # family names alone are no "Family, Given" pairs
    groups = shape.groupdict()
    after = (groups.get("after") or groups.get("venue") or "").strip().rstrip(".")
    title = " ".join(m.group("title").split()).rstrip(".")
    out = f"{authors} ({shape.group('year')}). “{title}”."
    if after:
        out += f" {after}."
    return f"{out} {strip_tracking(m.group('url'))}"


def _paragraphs(
    lines: Sequence[Line], skip: set[int], markdown: bool, labels: Sequence[str] = ()
) -> list[Paragraph]:
    """Body paragraphs: runs of non-blank lines; headings, list items and page changes start new ones.

    Lines the finder labelled ``title`` (headings) or ``meta`` (page furniture) are no part of one,
    except a ``title`` line of a sentence that cites (eight words or more, four of them in lower
    case, a marker inside: the first paragraph of a short answer, which the finder can take for
    its title; an author line with superscript affiliations, "Sepp Hochreiter[1], Jürgen
    Schmidhuber[2]", is no prose).
    """
    out: list[Paragraph] = []
    cur: list[Line] = []

    def flush() -> None:
        if not cur:
            return
        parts: list[str] = []
        offsets: list[tuple[int, int | None, int | None]] = []
        text = ""
        for ln in cur:
            s = ln.text.strip()
            if markdown:
                s = _md_inline(_LIST_ITEM.sub("", s, count=1) if _LIST_ITEM.match(s) else s)
            if not s:
                continue
            joined = join_entry_lines([*parts[-1:], s]) if parts else s
            if parts and joined.startswith(parts[-1]):
                text = text[: len(text) - len(parts[-1])] + joined
                offsets.append((len(text) - len(joined) + len(parts[-1]), ln.page, ln.number))
                parts[-1] = joined
            else:
                offsets.append((len(text) + (1 if text else 0), ln.page, ln.number))
                text = f"{text} {s}" if text else s
                parts.append(s)
        if text:
            out.append(Paragraph(text, offsets))
        cur.clear()

    for i, ln in enumerate(lines):
        dropped = bool(labels) and (
            labels[i] == "meta"
            or (labels[i] == "title" and not (_prose(ln.text) and cites(ln.text)))
        )
        if i in skip or ln.blank or dropped:
            flush()
            continue
        s = ln.text.strip()
        if REF_HEADING.match(s) or (markdown and _HEADING.match(s)):
            flush()
            continue
        if (markdown and _LIST_ITEM.match(ln.text)) or (
            cur and cur[-1].page != ln.page and cur[-1].text.rstrip().endswith((".", "!", "?"))
        ):
            flush()
        cur.append(ln)
    flush()
    return out


def cited_labels(lines: Sequence[Line], skip: set[int]) -> frozenset[str]:
    """The labels (``[GNOME]``, ``[RFC-2119]``) that the lines outside ``skip`` cite."""
    return frozenset(
        t for i, ln in enumerate(lines) if i not in skip for t in label_targets(ln.text)
    )


#: An inline link, bracketed or not: "([arxiv.org](https://arxiv.org/abs/1412.6980))", a chat
#: assistant's way to cite, or "[Attention is all you need](https://arxiv.org/abs/1706.03762)".
_LINK_CITE = re.compile(
    r"\(\[([^\]\[]{1,300})\]\((https?://[^)\s]+)\)\)|(?<!!)\[([^\]\[^@]{1,300})\]\((https?://[^)\s]+)\)"
)
_HOSTLIKE = re.compile(r"^(?:https?://)?[\w.-]+\.[a-z]{2,}(?:/\S*)?$", re.I)


def link_citations(lines: Sequence[Line]) -> tuple[list[Line], list[Entry]]:
    """The lines with each inline link replaced by a numeric marker, and an entry per address.

    For a Markdown answer without a reference list, whose sources are its links (a chat
    assistant's "([nature.com](https://www.nature.com/articles/…?utm_source=chatgpt.com))").
    Each distinct address (tracking parameters dropped) is one entry, numbered in order of first
    link. An address that holds an identifier (a DOI, arXiv id, PMID…) is the entry alone: the
    link's text ("a recent study") claims nothing. Another address takes a link text that reads
    as a title (three words or more, a capital first, no host name) as the entry's title. A link
    text that is no host name stays in the sentence, before its marker.
    """
    numbers: dict[str, int] = {}
    entries: list[Entry] = []
    out: list[Line] = []
    for ln in lines:

        def marker(m: re.Match[str], ln: Line = ln) -> str:
            anchor = " ".join((m.group(1) or m.group(3) or "").split())
            url = strip_tracking(m.group(2) or m.group(4) or "")
            hostlike = bool(_HOSTLIKE.match(anchor))
            n = numbers.get(url)
            if n is None:
                n = numbers[url] = len(numbers) + 1
                titled = (
                    len(anchor.split()) >= 3
                    and anchor[:1].isupper()
                    and not hostlike
                    and not _names_an_id(url)
                )
                text = f"“{anchor.rstrip('.')}.” {url}" if titled else url  # quoted: a title
                entries.append(Entry(text, str(n), None, ln.page, ln.number))
            kept = "" if hostlike or m.group(1) is not None else anchor
            return f"{' ' + kept if kept else ''} [{n}]"

        out.append(Line(_LINK_CITE.sub(marker, ln.text), ln.page, ln.number))
    return out, entries


def _names_an_id(url: str) -> bool:
    return bool(
        extract_dois(url)
        or extract_publisher_dois(url)
        or extract_arxiv(url)
        or extract_pmid(url)
        or extract_pmcid(url)
    )


_SUP_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUP_RUN = re.compile(f"(?P<sup>⁻?[{_SUP_DIGITS}]+(?:[˒,⁻‐-][{_SUP_DIGITS}]+)*)")
_SUP_TABLE = str.maketrans(_SUP_DIGITS + "˒⁻‐", "0123456789,--")


def unicode_superscripts(text: str) -> str:
    """Unicode superscript numbers as citation markers.

    A Markdown answer's "gradients¹˒²." is "gradients[1,2]."; a line that starts with one
    ("¹ Hochreiter, S. …") is a labelled entry "[1] Hochreiter, S. …"; after a digit or a unit
    it is an exponent ("10⁵" → "10^5", "km²" → "km^2": :func:`superscript_marker`).
    """
    if not any(c in text for c in _SUP_DIGITS):
        return text

    def sub(m: re.Match[str]) -> str:
        digits = m.group("sup").translate(_SUP_TABLE)
        if not text[: m.start("sup")].strip():
            return f"[{digits}]"  # a line's label: "¹ Hochreiter, S. …"
        return superscript_marker(text[: m.start("sup")], digits)

    return _SUP_RUN.sub(sub, text)


def _prose(text: str) -> bool:
    words = text.split()
    return len(words) >= 8 and sum(1 for w in words if w[:1].islower()) >= 4


def _heading_block(lines: Sequence[Line]) -> list[int]:
    """Lines after the last references heading, up to the next Markdown heading (the finder's fallback)."""
    heads = [i for i, ln in enumerate(lines) if REF_HEADING.match(ln.text.strip())]
    if not heads:
        return []
    block: list[int] = []
    for i in range(heads[-1] + 1, len(lines)):
        if _HEADING.match(lines[i].text) and not lines[i].blank:
            break
        block.append(i)
    return block if any(not lines[i].blank for i in block) else []


def document_from_lines(
    path: str,
    fmt: DocumentFormat,
    lines: Sequence[Line],
    *,
    markdown: bool = False,
    extra_entries: Sequence[Entry] = (),
    extra_skip: set[int] | None = None,
    warnings: Sequence[str] = (),
    find_with_extra: bool = False,
    located: LocatedMarkers | None = None,
    prose_lists: bool = False,
) -> Document:
    """The document of ``lines``: the finder's reference blocks and the body around them.

    ``extra_entries`` (Markdown footnotes, a front matter's ``.bib``) replace the finder's list,
    unless ``find_with_extra`` (a Word document's reference notes beside its bibliography).
    ``located``: markers the reader knows at a line (:func:`~citejudge.documents._build.assemble`).
    ``prose_lists``: the document's lists are numbered by its word processor, so a numbered
    list of steps looks like a reference list to the finder (:func:`_without_prose_lists`).
    """
    warn = list(warnings)
    skip = set(extra_skip or ())
    entries: list[Entry] = list(extra_entries)
    labels: list[str] = []
    if not entries or find_with_extra:
        labels = load_finder().labels(lines)
        blocks = reference_blocks(labels)
        if not blocks and not entries:
            fallback = _heading_block(lines)
            if fallback:
                blocks = [fallback]
                warn.append(
                    "the finder labelled no reference line; the list after the references heading was read"
                )
        keys = cited_labels(lines, {i for b in blocks for i in b})
        if not blocks and not entries and markdown:
            lines, linked = link_citations(lines)
            if linked:
                entries.extend(linked)
                warn.append(
                    f"no reference list: the {len(linked)} web addresses the text links to are "
                    "its references"
                )
        found = [(block, split_entries(lines, block, keys)) for block in blocks]
        if prose_lists:
            found, prose = _without_prose_lists(lines, found, keys)
            for block, ents in prose:
                since, until = lines[block[0]].number, lines[block[-1]].number
                warn.append(
                    f"{path}: paragraphs {since}–{until}: a numbered list of {len(ents)} items "
                    "that read as no reference is read as the body's text"
                )
        for block, ents in found:
            for ent in ents:
                first = lines[ent[0]]
                raw = [lines[i].text for i in ent]
                label, rest = entry_label(raw[0], keys)
                text = join_entry_lines([rest, *raw[1:]])
                if markdown:
                    text = _md_inline(linked_title_first(text), keep_links=True)
                if text:
                    entries.append(Entry(text, label, None, first.page, first.number))
            skip.update(block)
    return assemble(
        path,
        fmt,
        entries,
        _paragraphs(lines, skip, markdown, labels),
        warnings=warn,
        located=located,
    )


def _without_prose_lists(
    lines: Sequence[Line], found: list[tuple[list[int], list[list[int]]]], keys: frozenset[str]
) -> tuple[list[tuple[list[int], list[list[int]]]], list[tuple[list[int], list[list[int]]]]]:
    """The finder's blocks (block, its entries) without the lists of prose beside a reference list.

    A block none of whose entries reads as a reference (:func:`reads_as_reference`, the label
    left out) nor holds a web address or a DOI is a numbered list of steps or findings, when
    another block's entries read as references; its lines stay the body's. Returns (the blocks
    kept, the blocks given back to the body).
    """

    def reads(ent: list[int]) -> bool:
        text = entry_label(" ".join(lines[i].text for i in ent), keys)[1]
        return (
            reads_as_reference(text)
            or "://" in text
            or bool(extract_dois(text))
            # a humanities list without years: "Foucault, Michel. Discipline and Punish.",
            # "British Library, Add MS 41234, …" (a name or an archive before a comma)
            or _NAME_COMMA_START.match(text) is not None
        )

    verdicts = [any(reads(e) for e in ents) for _, ents in found]
    if not any(verdicts):
        return found, []
    return [f for f, v in zip(found, verdicts, strict=True) if v], [
        f for f, v in zip(found, verdicts, strict=True) if not v
    ]


#: an entry that opens with a name or an institution before a comma: "Foucault, Michel.",
#: "The National Archives, Kew", "British Library, Add MS" (capitalised words, no step's verb
#: phrase "Collect the data")
_NAME_COMMA_START = re.compile(r"^(?:[A-Z][^\s,]*\s){0,3}[A-Z][^\s,]*,\s")


def _front_matter(text: str) -> tuple[dict[str, object], int]:
    m = _FRONT.match(text)
    if not m:
        return {}, 0
    import yaml

    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return {}, 0
    return (data if isinstance(data, dict) else {}), m.group(0).count("\n")


def _bibliographies(meta: dict[str, object], path: Path) -> list[Path]:
    """The ``.bib`` files a front matter's ``bibliography:`` names (one, or a list)."""
    bib = meta.get("bibliography")
    names = [bib] if isinstance(bib, str) else bib if isinstance(bib, list) else []
    return [path.parent / b for b in names if isinstance(b, str) and b.strip()]


def markdown_bibliographies(path: Path) -> list[Path]:
    """The ``.bib`` files the Markdown document ``path`` names in its front matter, found or not."""
    try:
        head = path.read_text(encoding="utf-8-sig", errors="replace")[:20_000]
    except OSError:
        return []
    return _bibliographies(_front_matter(head)[0], path)


def read_markdown(path: Path, *, markdown: bool = True) -> Document:
    """A Markdown (``markdown=True``) or plain-text document."""
    text = read_text_file(path)
    meta, skip_n = _front_matter(text) if markdown else ({}, 0)
    raw_lines = text.splitlines()
    lines = [Line(unicode_superscripts(t), None, n) for n, t in enumerate(raw_lines, start=1)]
    skip = set(range(skip_n))
    entries: list[Entry] = []
    warnings: list[str] = []
    if markdown:
        # footnote definitions: each an entry (continuation lines indented)
        i = 0
        while i < len(lines):
            m = _FOOTNOTE_DEF.match(lines[i].text)
            if not m:
                i += 1
                continue
            parts, first = [m.group(2)], i
            skip.add(i)
            i += 1
            while (
                i < len(lines) and lines[i].text.startswith(("    ", "\t")) and not lines[i].blank
            ):
                parts.append(lines[i].text)
                skip.add(i)
                i += 1
            entries.append(
                Entry(
                    _md_inline(join_entry_lines(parts), keep_links=True),
                    m.group(1),
                    m.group(1),
                    None,
                    lines[first].number,
                )
            )
        # numbered link definitions: each an entry (its title, if given, before the address)
        for i, ln in enumerate(lines):
            m = _LINK_DEF.match(ln.text)
            if m and i not in skip:
                url, title = strip_tracking(m.group(2)), (m.group(3) or "").strip()
                text = f"“{title.rstrip('.')}.” {url}" if title else url
                entries.append(Entry(text, m.group(1), None, None, ln.number))
                skip.add(i)
        bibs = _bibliographies(meta, path)
        for b in bibs:
            if not b.is_file():
                warnings.append(f"bibliography {b.name} named in the front matter was not found")
        keys = {x.key for x in entries}
        entries.extend(
            e for e in bib_file_entries(*(b for b in bibs if b.is_file())) if e.key not in keys
        )
        if bibs and entries:
            # pandoc prints only what is cited: keep the cited keys, in order of first citation
            entries = _cited_only(text, entries)
    return document_from_lines(
        str(path),
        "markdown" if markdown else "text",
        lines,
        markdown=markdown,
        extra_entries=entries,
        extra_skip=skip,
        warnings=warnings,
    )


def _cited_only(text: str, entries: list[Entry]) -> list[Entry]:
    order: list[str] = []
    for m in find_markers(text, numeric=False):
        for t in m.targets:
            if t not in order:
                order.append(t)
    by_key = {e.key: e for e in entries if e.key}
    cited = [by_key[k] for k in order if k in by_key]
    footnotes = [e for e in entries if e.key and e.key == e.label]
    return footnotes + [e for e in cited if e not in footnotes] if cited else entries
