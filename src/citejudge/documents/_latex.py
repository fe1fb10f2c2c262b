r"""LaTeX: ``.tex`` with ``\\cite{…}``, ``\\citep``, ``\\citet`` and friends; the ``.bib`` or a ``.bbl``.

The reference list is, in this order of preference: the ``.bbl`` beside the ``.tex`` (what
BibTeX printed, ``\\bibitem`` by ``\\bibitem``, or biber for biblatex: structured entries,
read as the BibTeX they stand for), a ``thebibliography`` environment in the ``.tex``, or the entries of the
``.bib`` files named by ``\\bibliography{…}`` / ``\\addbibresource{…}`` that the text cites
(all of them after ``\\nocite{*}``), in order of first citation. A ``.bib`` entry's
``full_citation`` is its BibTeX text as found, read by the project's BibTeX reader; a
``\\bibitem``'s is its text with LaTeX decoded.

Markers are the cite commands themselves: each becomes a marker of kind ``key`` whose targets
are its keys; a narrative command (``\\citet``, ``\\textcite``, ``\\citeauthor``) leaves the
first author's family name in the claim.

A document split over files is read whole: ``\\input``, ``\\include``, ``\\subfile`` and the
``import`` package's ``\\import``/``\\subimport`` are replaced by the files they name (found as
TeX finds them: beside the main file first, then beside the file that names them; ``.tex``
appended when missing), and a sentence read from such a part names it (``source``) with the line
in that file. A part that is missing, or that would include itself, is a warning.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from citejudge.documents._bib import bbl_file_entries, bib_file_entries, bibitems
from citejudge.documents._build import (
    DocumentError,
    Entry,
    Paragraph,
    assemble,
    group_end,
    read_text_file,
)
from citejudge.documents._markers import RawMarker, short_authors
from citejudge.documents._model import Document
from citejudge.text.normalize import delatex

__all__ = ["latex_parts", "latex_read_files", "read_latex"]

_COMMENT = re.compile(r"(?<!\\)%.*$", re.M)
#: A cite command of natbib or biblatex, capitalised or not (``\\citep``, ``\\Citet``,
#: ``\\parencite``, ``\\footfullcite``…), with its optional notes, then its keys (group 2); or a
#: biblatex multicite (``\\cites``, ``\\parencites(pre)(post)[see]{a}[p. 3]{b}``): its key groups
#: are group 4.
_CITE_PREFIX = r"(?:[Pp]aren|[Tt]ext|[Aa]uto|[Ff]oot|[Ss]mart|[Ss]uper|[Ff]ull|[Ff]ootfull)?"
_CITE = re.compile(
    r"\\("
    + _CITE_PREFIX
    + r"[Cc]ite(?:[pt]|alp|alt|author|year|yearpar|num|title|date|url|A|NP)?\*?)"
    r"\s*(?:\[[^\]]*\]\s*){0,2}\{([^{}]*)\}"
    r"|\\(" + _CITE_PREFIX + r"[Cc]ites)\s*(?:\([^()]*\)\s*){0,2}"
    r"((?:(?:\[[^\]]*\]\s*){0,2}\{[^{}]*\}(?:[ \t]*(?=[\[{]))?)+)"
)
#: What looks like a cite command (a macro of the document's own, a package's rare one).
_CITE_LIKE = re.compile(r"\\([A-Za-z]*[Cc]ite[A-Za-z]*)\*?\s*(?:\[[^\]]*\]\s*)*\{")
_NOCITE = re.compile(r"\\nocite\s*\{([^{}]*)\}")
_BIBLIO = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}")
_THEBIB = re.compile(r"\\begin\{thebibliography\}.*?\\end\{thebibliography\}", re.S)
_DROP_ENVS = re.compile(
    r"\\begin\{(equation|align|eqnarray|figure|table|tabular|verbatim|lstlisting|tikzpicture|algorithm)(\*?)\}.*?\\end\{\1\2\}",
    re.S,
)
_TOKEN = re.compile(r"⟦(\d+)⟧")
_FOOTNOTE = re.compile(r"\\footnote\s*(?:\[[^\]]*\]\s*)?\{")
_NOTE_MARK = re.compile(r"⟪(\d+)⟫")
_CAPTION_SHORT = re.compile(r"^\\caption\*?\s*\[[^\]\n]*\]")
#: A natbib ``\\bibitem`` label: "LeCun et al.(2015)LeCun, Bengio, and Hinton" (the short
#: author form, the year, the long form).
_NATBIB_LABEL = re.compile(r"^([^()]+?)\s*\((?:1[5-9]|20)\d\d[a-z]?\)")
#: ``\\input{a}``, ``\\include{a}``, ``\\subfile{a}``; ``\\import{dir/}{a}`` and friends
#: of the ``import`` package; TeX's own ``\\input a`` without braces.
_INPUT = re.compile(
    r"\\(?:input|include|subfile)\s*\{([^{}]+)\}"
    r"|\\(sub)?(?:import|inputfrom|includefrom)\*?\s*\{([^{}]*)\}\s*\{([^{}]+)\}"
    r"|\\input\s+([^\s{}\\%]+)"
)
_GRAPHICS = re.compile(r"\\includegraphics\*?\s*(?:\[[^\]]*\]\s*)?\{([^{}]+)\}")
_GRAPHICSPATH = re.compile(r"\\graphicspath\s*\{((?:\s*\{[^{}]*\})+)\s*\}")
_IFFALSE = re.compile(r"\\iffalse\b.*?\\fi\b", re.S)
#: A file that is not a document of its own: a part of another (``subfiles``) or a figure
#: compiled apart (``standalone``).
_PART_CLASS = re.compile(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{(?:subfiles|standalone)\}")
_MAX_DEPTH = 16
_NARRATIVE = frozenset(
    {"citet", "citeauthor", "citealt", "citeA", "citeNP", "textcite", "textcites"}
)


#: A one-argument macro of the document's own: ``\\newcommand{\\mycite}[1]{\\citep{#1}}``,
#: ``\\def\\mycite#1{…}`` (its name, then the rest of the text from its body's opening brace).
_MACRO_DEF = re.compile(
    r"\\(?:re)?(?:newcommand|providecommand|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z]+)\s*\}?"
    r"\s*\[1\]\s*(?=\{)"
    r"|\\def\s*\\([A-Za-z]+)\s*#1\s*(?=\{)"
)


def _group_end(text: str, at: int, limit: int = 1 << 30) -> int:
    """:func:`group_end`, or the text's end (``at + limit``) when the group never closes."""
    end = group_end(text, at, limit)
    return end if end >= 0 else min(len(text), at + limit)


def _cite_macros(text: str) -> dict[str, str]:
    """The document's own cite macros: name → the cite command its body calls on its argument."""
    out: dict[str, str] = {}
    for m in _MACRO_DEF.finditer(text):
        end = _group_end(text, m.end(), 2000)
        for c in _CITE.finditer(text[m.end() : end]):
            if c.group(2) is not None and c.group(2).strip() == "#1":
                out[m.group(1) or m.group(2)] = c.group(1)
                break
    return out


def _cite_pattern(macros: dict[str, str]) -> re.Pattern[str]:
    """:data:`_CITE`, and the document's own cite macros (groups 5 and 6) when it has some."""
    if not macros:
        return _CITE
    names = "|".join(sorted(map(re.escape, macros), key=len, reverse=True))
    return re.compile(
        _CITE.pattern + r"|\\(" + names + r")(?![A-Za-z])\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^{}]*)\}"
    )


def _cite(m: re.Match[str], macros: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """The command (``citep``, ``Textcite``…) and the keys of a :func:`_cite_pattern` match."""
    if m.group(1) is not None:
        return m.group(1), [k.strip() for k in m.group(2).split(",") if k.strip()]
    if m.group(3) is not None:
        groups = re.findall(r"\{([^{}]*)\}", m.group(4))
        return m.group(3), [k.strip() for g in groups for k in g.split(",") if k.strip()]
    command = (macros or {}).get(m.group(5), "cite")
    return command, [k.strip() for k in m.group(6).split(",") if k.strip()]


def _narrative(command: str) -> bool:
    r"""Whether the command prints the authors' names in the sentence (``\citet``, ``\Textcite``)."""
    name = command.rstrip("*")
    return name in _NARRATIVE or name[:1].lower() + name[1:] in _NARRATIVE


@dataclass
class _Expanded:
    """A LaTeX document with its parts read in, and where each of its lines came from."""

    text: str = ""
    lines: list[tuple[Path, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def where(self, line: int | None) -> tuple[Path | None, int | None]:
        """(file, line in that file) of line ``line`` (1-based) of :attr:`text`."""
        if line is None or not self.lines:
            return None, line
        return self.lines[min(max(line, 1), len(self.lines)) - 1]


def _clean(src: str) -> str:
    r"""``src`` without comments and ``\iffalse`` blocks, each line where it was."""
    text = _COMMENT.sub("", src)
    return _IFFALSE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _named_files(m: re.Match[str], root: Path, here: Path) -> list[Path]:
    r"""Where TeX would look for the part an ``\input``-like command names, in order."""
    if m.group(4) is not None:  # \import{dir}{file}: from the main folder; \subimport: from here
        base = here if m.group(2) else root
        names, bases = [m.group(3).strip() + "/" + m.group(4).strip()], [base]
    else:
        names, bases = [(m.group(1) or m.group(5) or "").strip()], [root, here]
    out: list[Path] = []
    for name in names:
        for b in bases:
            for cand in (b / name, b / (name + ".tex")):
                if cand not in out:
                    out.append(cand)
    return out


def _part(m: re.Match[str], root: Path, here: Path) -> Path | None:
    for cand in _named_files(m, root, here):
        if cand.suffix.lower() in (".tex", ".ltx", "") and cand.is_file():
            return cand
    return None


def _expand(path: Path) -> _Expanded:
    r"""``path`` with every part it names (``\input``, ``\include``, ``\subfile``…) read in."""
    out = _Expanded()
    lines: list[str] = []
    root = path.parent

    def read(f: Path, chain: tuple[Path, ...]) -> None:
        text = _clean(read_text_file(f))
        first = 1
        if chain:  # a subfile is a whole document: only its body is read in
            m = re.search(r"\\begin\{document\}(.*?)(?:\\end\{document\}|$)", text, re.S)
            if m:
                first = text.count("\n", 0, m.start(1)) + 1
                text = m.group(1)
        for k, line in enumerate(text.split("\n"), start=first):
            pos = 0
            for m in _INPUT.finditer(line):
                part = _part(m, root, f.parent)
                if part is None:
                    out.warnings.append(
                        f"{f.name}, line {k}: {m.group(0)} names a file that was not found"
                    )
                    continue
                if part.resolve() in {c.resolve() for c in (*chain, f)} or len(chain) >= _MAX_DEPTH:
                    out.warnings.append(f"{f.name}, line {k}: {m.group(0)} would read itself again")
                    continue
                lines.append(line[pos : m.start()])
                out.lines.append((f, k))
                read(part, (*chain, f))
                pos = m.end()
            lines.append(line[pos:])
            out.lines.append((f, k))

    read(path, ())
    out.text = "\n".join(lines)
    return out


def latex_parts(files: list[Path], folder: Path) -> set[Path]:
    r"""The files that ``files`` (``.tex`` under ``folder``) read as parts: not documents.

    A part is named by another file's ``\input``-like command (looked up beside that file and
    in each folder up to ``folder``), by its ``\bibliography`` or its ``\includegraphics`` (a
    figure's PDF, also in the ``\graphicspath`` folders), or is a ``subfiles`` or
    ``standalone`` class file; when some file has a ``\documentclass`` of its own, a ``.tex``
    without one (a section left over, a draft) is a part too.
    """
    texts: dict[Path, str] = {}
    for f in files:
        try:
            texts[f] = _clean(f.read_text(encoding="utf-8-sig", errors="replace"))
        except OSError:
            continue
    # \graphicspath is set once (in the preamble) for the figures of every part
    graphics_dirs = [
        d
        for text in texts.values()
        for m in _GRAPHICSPATH.finditer(text)
        for d in re.findall(r"\{([^{}]*)\}", m.group(1))
    ]
    parts: set[Path] = set()
    mains: list[Path] = []
    for f, text in texts.items():
        if _PART_CLASS.search(text):
            parts.add(f)
        elif "\\documentclass" in text:
            mains.append(f)
        bases = [f.parent, *(a for a in f.parent.parents if a.is_relative_to(folder))]
        for m in _INPUT.finditer(text):
            for base in bases:
                part = _part(m, base, f.parent)
                if part is not None and part != f:
                    parts.add(Path(os.path.normpath(part)))
                    break
        for m in _BIBLIO.finditer(text):
            for n in m.group(1).split(","):
                if n.strip():
                    name = n.strip() if n.strip().endswith(".bib") else n.strip() + ".bib"
                    parts.add(Path(os.path.normpath(f.parent / name)))
        dirs = [b / d for b in bases for d in ("", *graphics_dirs)]
        for m in _GRAPHICS.finditer(text):
            name = m.group(1).strip()
            parts.update(Path(os.path.normpath(d / n)) for d in dirs for n in (name, name + ".pdf"))
    if mains:
        parts.update(f for f in files if f not in mains)
    return parts


def latex_read_files(path: Path) -> list[Path]:
    r"""The files besides ``path`` that reading it reads: its parts, its ``.bbl`` or ``.bib``."""
    try:
        expanded = _expand(path)
    except DocumentError:
        return []
    out = list(dict.fromkeys(f for f, _ in expanded.lines if f != path))
    bbl = path.with_suffix(".bbl")
    if bbl.is_file():
        out.append(bbl)
    for m in _BIBLIO.finditer(expanded.text):
        for n in m.group(1).split(","):
            bib = path.parent / (n.strip() if n.strip().endswith(".bib") else n.strip() + ".bib")
            if n.strip() and bib.is_file() and bib not in out:
                out.append(bib)
    return out


def read_latex(path: Path) -> Document:
    r"""A LaTeX document, with its ``.bbl``, ``thebibliography`` or ``.bib`` as the reference list.

    Its parts (``\input``, ``\include``, ``\subfile``…) are read in where they are named.
    """
    src = read_text_file(path)
    if "\\" not in src:
        raise DocumentError(f"{path}: not LaTeX (no command in it)")
    expanded = _expand(path)
    text = expanded.text
    warnings = list(expanded.warnings)
    entries: list[Entry] = []
    in_text = False  # the entries' lines are lines of ``text`` (a thebibliography)
    bbl = path.with_suffix(".bbl")
    thebib = _THEBIB.search(text)
    if bbl.is_file():
        entries = bbl_file_entries(bbl)
        if not entries:
            warnings.append(f"{bbl.name} lists no entry; the reference list is read without it")
    if not entries and thebib:
        entries = bibitems(thebib.group(0), text.count("\n", 0, thebib.start()) + 1)
        in_text = True
    elif not entries:
        entries = _bib_entries(path, text, warnings)
    doc = _with_body(path, text, entries, warnings)
    return _located(doc, expanded, path, in_text)


def _bib_entries(path: Path, text: str, warnings: list[str]) -> list[Entry]:
    """The entries of the ``.bib`` files ``text`` names that it cites, in order of first citation."""
    names = [n.strip() for m in _BIBLIO.finditer(text) for n in m.group(1).split(",") if n.strip()]
    bibs: list[Path] = []
    for n in names:
        bib = path.parent / (n if n.endswith(".bib") else n + ".bib")
        if bib.is_file():
            bibs.append(bib)
        else:
            warnings.append(f"bibliography {bib.name} named in the document was not found")
    all_entries = bib_file_entries(*bibs)
    if not names:
        return []  # perhaps notes that read as references (see _footnotes)
    cited: list[str] = []
    macros = _cite_macros(text)
    for m in _cite_pattern(macros).finditer(text):
        cited.extend(k for k in _cite(m, macros)[1] if k not in cited)
    nocite = [k.strip() for m in _NOCITE.finditer(text) for k in m.group(1).split(",")]
    by_key = {e.key: e for e in all_entries}
    keys = list(by_key) if "*" in nocite else [*cited, *(k for k in nocite if k not in cited)]
    entries = [by_key[k] for k in keys if k in by_key]
    return entries if entries or not all_entries else all_entries


def _located(doc: Document, expanded: _Expanded, path: Path, in_text: bool) -> Document:
    """``doc`` with lines of the read-in text given as (file, line) of the part they came from."""
    if all(f == path for f, _ in expanded.lines) and all(
        k == n for n, (_, k) in enumerate(expanded.lines, start=1)
    ):
        return doc

    def place(line: int | None) -> dict[str, object]:
        f, k = expanded.where(line)
        return {"line": k, "source": None if f is None or f == path else str(f)}

    sentences = [s.model_copy(update=place(s.line)) for s in doc.sentences]
    refs = (
        [r.model_copy(update=place(r.line)) for r in doc.references] if in_text else doc.references
    )
    return doc.model_copy(update={"sentences": sentences, "references": refs})


def _captions(env: str) -> list[tuple[int, int]]:
    r"""Spans of the ``\caption{…}`` commands in ``env`` (a figure or a table), braces balanced."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"\\caption\*?\s*(?:\[[^\]]*\]\s*)?\{", env):
        spans.append((m.start(), _group_end(env, m.end() - 1)))
    return [s for k, s in enumerate(spans) if k == 0 or s[0] >= spans[k - 1][1]]


def _footnotes(
    body: str,
    offset_line: int,
    cites: list[tuple[str, str, list[str]]],
    cite_lines: list[int],
    as_entries: bool,
) -> tuple[str, list[tuple[str, int]], list[Entry]]:
    r"""``body`` with its ``\footnote{…}`` notes taken out of the sentences they sit in.

    Notes are numbered as LaTeX numbers them. A note that cites (it holds a cite token) is read
    as a paragraph of its own, after the one it sits in: replaced by a mark ``⟪j⟫`` (``j``: its
    place in the notes returned, with its line). With ``as_entries`` (the document has no
    other reference list: humanities and law write their references in notes), a note that
    reads as a reference, or "Ibid.", is an entry ``fnK`` and its place a cite token pointing
    to it. Any other note (a remark) leaves the sentence. Line breaks stay where they were.
    """
    from citejudge.documents._finder import reads_as_reference
    from citejudge.documents._markers import IBID

    out: list[str] = []
    notes: list[tuple[str, int]] = []
    entries: list[Entry] = []
    pos = 0
    for k, m in enumerate(_FOOTNOTE.finditer(body), start=1):
        if m.start() < pos:  # a note inside a note
            continue
        end = _group_end(body, m.end() - 1)
        content = body[m.end() : end - 1]
        line = offset_line + body.count("\n", 0, m.start())
        out.append(body[pos : m.start()])
        keep = "\n" * body.count("\n", m.start(), end)
        plain = " ".join(delatex(_TOKEN.sub("", content)).replace("~", " ").split())
        if _TOKEN.search(content):
            out.append(f"⟪{len(notes)}⟫{keep}")
            notes.append((content, line))
        elif as_entries and plain and (IBID.match(plain) or reads_as_reference(plain)):
            label = f"fn{k}"
            entries.append(Entry(plain, label, label, None, line))
            cites.append((body[m.start() : end], "footnote", [label]))
            cite_lines.append(line)
            out.append(f"⟦{len(cites) - 1}⟧{keep}")
        else:
            out.append(keep)
        pos = end
    out.append(body[pos:])
    return "".join(out), notes, entries


def _with_body(path: Path, text: str, entries: list[Entry], warnings: list[str]) -> Document:
    m = re.search(r"\\begin\{document\}(.*?)(?:\\end\{document\}|$)", text, re.S)
    body = m.group(1) if m else text
    offset_line = text.count("\n", 0, m.start(1)) + 1 if m else 1
    body = _THEBIB.sub("", body)
    macros = _cite_macros(text)  # defined in the preamble, used in the body
    pattern = _cite_pattern(macros)
    dropped = [0]  # cite commands of figures and tables outside their captions

    def drop(mm: re.Match[str]) -> str:
        """A figure or a table keeps its captions, other blocks only their line breaks."""
        env = mm.group(0)
        kept = _captions(env) if mm.group(1) in ("figure", "table") else []
        out: list[str] = []
        rest: list[str] = []
        pos = 0
        for a, b in [*kept, (len(env), len(env))]:
            rest.append(env[pos:a])
            caption = _CAPTION_SHORT.sub(r"\\caption", env[a:b])  # its short form goes
            out += ["\n" * env.count("\n", pos, a), caption]
            pos = b
        dropped[0] += sum(1 for _ in pattern.finditer("".join(rest)))
        return "".join(out)

    body = _DROP_ENVS.sub(drop, body)
    if dropped[0]:
        warnings = [
            *warnings,
            f"{dropped[0]} citation commands in figures, tables, equations or listings outside "
            "their captions (a table's cells) are not checked",
        ]
    cites: list[tuple[str, str, list[str]]] = []
    cite_lines: list[int] = []  # the line of each cite command
    counted = [0, offset_line]  # (offset, its line): lines are counted once, in order
    families = {e.key: e for e in entries if e.key}

    def token(mm: re.Match[str]) -> str:
        command, keys = _cite(mm, macros)
        cites.append((mm.group(0), command, keys))
        counted[1] += body.count("\n", counted[0], mm.start())
        counted[0] = mm.start()
        cite_lines.append(counted[1])
        return f"⟦{len(cites) - 1}⟧"

    body = pattern.sub(token, body)
    body = _NOCITE.sub("", body)
    unread = Counter(mm.group(1) for mm in _CITE_LIKE.finditer(body))
    if unread:
        names = ", ".join(f"\\{c} ({n})" for c, n in sorted(unread.items()))
        warnings = [
            *warnings,
            f"{sum(unread.values())} citation commands of a kind not read: {names}; "
            "the sentences they cite in are not checked for them",
        ]
    body, notes, note_entries = _footnotes(body, offset_line, cites, cite_lines, not entries)
    entries = entries or note_entries  # a document that cites in its notes alone
    if not entries:
        raise DocumentError(
            f"{path}: no reference list found (no \\bibliography, .bbl, thebibliography or "
            "notes that read as references)",
            hint="put the .bib named by \\bibliography{...} or the .bbl beside the .tex",
        )
    body = re.sub(
        r"\\(?:section|subsection|subsubsection|paragraph|chapter|caption|title|label|ref|eqref|autoref|cref|Cref|url|footnote"
        r"|bibliographystyle|bibliography|addbibresource|printbibliography|author|date|thanks|keywords"
        r"|includegraphics|input|include|vspace|hspace)\*?\s*(?:\[[^\]]*\])?\{[^{}]*\}",
        lambda mm: mm.group(0) if mm.group(0).startswith(("\\caption", "\\footnote")) else "",
        body,
    )
    paragraphs: list[Paragraph] = []
    line = offset_line
    for chunk in re.split(r"\n[ \t]*\n", body):
        n_lines = chunk.count("\n") + 2
        in_notes = [notes[int(k)] for k in _NOTE_MARK.findall(chunk)]
        chunk = _NOTE_MARK.sub("", chunk)
        plain = (
            " ".join(delatex(chunk).replace("~", " ").split())  # a tie before a cite token stays
            if "\\" in chunk or "{" in chunk
            else " ".join(chunk.replace("~", " ").split())
        )
        if plain:
            paragraphs.append(
                Paragraph(plain, [(0, None, line + (len(chunk) - len(chunk.lstrip("\n"))))])
            )
        for note, note_line in in_notes:  # a note that cites: its sentences after the text's
            paragraphs.append(
                Paragraph(" ".join(delatex(note).replace("~", " ").split()), [(0, None, note_line)])
            )
        line += n_lines - 1

    parsed: dict[str, list[str]] = {}  # a .bbl entry's authors, read once

    def narrative(keys: list[str]) -> str:
        r"""The authors a narrative cite prints, every work's (``\textcites{a}{b}``, ``\citet{a,b}``)."""
        names = [n for n in map(one_narrative, dict.fromkeys(keys)) if n]
        return names[0] if len(names) <= 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    def one_narrative(key: str) -> str:
        e = families.get(key)
        if e is None:
            return ""
        m = _NATBIB_LABEL.match(e.label or "")
        if not e.authors and m:
            return " ".join(m.group(1).split())  # natbib's short form: "LeCun et al."
        authors = e.authors
        if not authors:
            from citejudge.readers.freetext import parse_citation_string

            if e.text not in parsed:
                parsed[e.text] = list(parse_citation_string(e.text).authors)
            authors = parsed[e.text]
        return short_authors(authors)

    def markers(sentence: str) -> list[RawMarker]:
        out = []
        for mm in _TOKEN.finditer(sentence):
            original, _cmd, keys = cites[int(mm.group(1))]
            out.append(RawMarker(mm.start(), mm.end(), original, "key", tuple(keys)))
        return out

    def claim(sentence: str, raw: list[RawMarker]) -> str:
        def repl(mm: re.Match[str]) -> str:
            _, cmd, keys = cites[int(mm.group(1))]
            return narrative(keys) if _narrative(cmd) else ""

        s = _TOKEN.sub(repl, sentence)
        s = re.sub(r"\s+([.,;:!?])", r"\1", s).replace("al..", "al.")
        s = re.sub(r"\(\s*\)|\[\s*\]", "", s)
        return " ".join(s.split())

    doc = assemble(
        str(path), "latex", entries, paragraphs, warnings=warnings, markers=markers, claim=claim
    )
    # the sentence as found carries the cite commands, not the tokens; its line is its first
    # cite command's (a paragraph's sentences, and the parts read in, each get their own line)
    fixed = []
    for s in doc.sentences:
        first = _TOKEN.search(s.text)
        fixed.append(
            s.model_copy(
                update={
                    "text": _TOKEN.sub(lambda mm: cites[int(mm.group(1))][0], s.text),
                    "line": cite_lines[int(first.group(1))] if first else s.line,
                }
            )
        )
    return doc.model_copy(update={"sentences": fixed})
