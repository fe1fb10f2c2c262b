r"""LaTeX: ``.tex`` with ``\\cite{…}``, ``\\citep``, ``\\citet`` and friends; the ``.bib`` or a ``.bbl``.

The reference list is, in this order of preference: the ``.bbl`` beside the ``.tex`` (what
BibTeX/biber printed), a ``thebibliography`` environment in the ``.tex``, or the entries of the
``.bib`` files named by ``\\bibliography{…}`` / ``\\addbibresource{…}`` that the text cites
(all of them after ``\\nocite{*}``), in order of first citation. A ``.bib`` entry's
``full_citation`` is its BibTeX text as found, read by the project's BibTeX reader; a
``\\bibitem``'s is its text with LaTeX decoded.

Markers are the cite commands themselves: each becomes a marker of kind ``key`` whose targets
are its keys; a narrative command (``\\citet``, ``\\textcite``, ``\\citeauthor``) leaves the
first author's family name in the claim.
"""

from __future__ import annotations

import re
from pathlib import Path

from citejudge.documents._bib import bib_file_entries
from citejudge.documents._build import DocumentError, Entry, Paragraph, assemble, read_text_file
from citejudge.documents._markers import RawMarker
from citejudge.documents._model import Document
from citejudge.text.normalize import delatex

__all__ = ["read_latex"]

_COMMENT = re.compile(r"(?<!\\)%.*$", re.M)
_CITE = re.compile(
    r"\\((?:[Pp]aren|[Tt]ext|[Aa]uto|[Ff]oot|[Ss]mart|[Ss]uper)?cite(?:[pt]|alp|alt|author|year|yearpar|num|A|NP)?\*?)"
    r"\s*(?:\[[^\]]*\]\s*){0,2}\{([^{}]*)\}"
)
_NOCITE = re.compile(r"\\nocite\s*\{([^{}]*)\}")
_BIBLIO = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}")
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[((?:[^\[\]{}]|\{[^{}]*\})*)\])?\s*\{([^{}]*)\}")
_THEBIB = re.compile(r"\\begin\{thebibliography\}.*?\\end\{thebibliography\}", re.S)
_DROP_ENVS = re.compile(
    r"\\begin\{(equation|align|eqnarray|figure|table|tabular|verbatim|lstlisting|tikzpicture|algorithm)(\*?)\}.*?\\end\{\1\2\}",
    re.S,
)
_TOKEN = re.compile(r"⟦(\d+)⟧")
#: A natbib ``\\bibitem`` label: "LeCun et al.(2015)LeCun, Bengio, and Hinton" (the short
#: author form, the year, the long form).
_NATBIB_LABEL = re.compile(r"^([^()]+?)\s*\((?:1[5-9]|20)\d\d[a-z]?\)")
_NARRATIVE = ("citet", "textcite", "Textcite", "citeauthor", "citealt", "citeA", "citeNP")


def _bibitems(text: str, source_line: int = 1) -> list[Entry]:
    body = re.sub(r"\\(?:begin|end)\{thebibliography\}(?:\{[^{}]*\})?", "", text)
    items = list(_BIBITEM.finditer(body))
    out: list[Entry] = []
    for k, m in enumerate(items):
        raw = body[m.end() : items[k + 1].start() if k + 1 < len(items) else len(body)]
        raw = re.sub(r"\\newblock\s*", " ", raw)
        plain = " ".join(delatex(raw).split())
        label = m.group(1)
        out.append(
            Entry(
                plain,
                " ".join(delatex(label).replace("~", " ").split()) if label else str(k + 1),
                m.group(2).strip(),
                None,
                source_line + body.count("\n", 0, m.start()),
            )
        )
    return out


def read_latex(path: Path) -> Document:
    """A LaTeX document, with its ``.bbl``, ``thebibliography`` or ``.bib`` as the reference list."""
    src = read_text_file(path)
    if "\\" not in src:
        raise DocumentError(f"{path}: not LaTeX (no command in it)")
    text = _COMMENT.sub("", src)
    warnings: list[str] = []
    entries: list[Entry] = []
    bbl = path.with_suffix(".bbl")
    if bbl.is_file():
        entries = _bibitems(read_text_file(bbl))
    elif _THEBIB.search(text):
        m = _THEBIB.search(text)
        assert m is not None
        entries = _bibitems(m.group(0), text.count("\n", 0, m.start()) + 1)
    else:
        names = [
            n.strip() for m in _BIBLIO.finditer(text) for n in m.group(1).split(",") if n.strip()
        ]
        all_entries: list[Entry] = []
        for n in names:
            bib = path.parent / (n if n.endswith(".bib") else n + ".bib")
            if bib.is_file():
                all_entries.extend(bib_file_entries(bib))
            else:
                warnings.append(f"bibliography {bib.name} named in the document was not found")
        if not names:
            raise DocumentError(
                f"{path}: no reference list found (no \\bibliography, .bbl or thebibliography)",
                hint="put the .bib named by \\bibliography{...} or the .bbl beside the .tex",
            )
        cited: list[str] = []
        for m in _CITE.finditer(text):
            cited.extend(
                k.strip() for k in m.group(2).split(",") if k.strip() and k.strip() not in cited
            )
        nocite = [k.strip() for m in _NOCITE.finditer(text) for k in m.group(1).split(",")]
        by_key = {e.key: e for e in all_entries}
        keys = list(by_key) if "*" in nocite else [*cited, *(k for k in nocite if k not in cited)]
        entries = [by_key[k] for k in keys if k in by_key]
        if not entries and all_entries:
            entries = all_entries
    return _with_body(path, text, entries, warnings)


def _with_body(path: Path, text: str, entries: list[Entry], warnings: list[str]) -> Document:
    m = re.search(r"\\begin\{document\}(.*?)(?:\\end\{document\}|$)", text, re.S)
    body = m.group(1) if m else text
    offset_line = text.count("\n", 0, m.start(1)) + 1 if m else 1
    body = _THEBIB.sub("", body)
    body = _DROP_ENVS.sub(lambda mm: "\n" * mm.group(0).count("\n"), body)
    cites: list[tuple[str, str, list[str]]] = []
    families = {e.key: e for e in entries if e.key}

    def token(mm: re.Match[str]) -> str:
        keys = [k.strip() for k in mm.group(2).split(",") if k.strip()]
        cites.append((mm.group(0), mm.group(1), keys))
        return f"⟦{len(cites) - 1}⟧"

    body = _CITE.sub(token, body)
    body = _NOCITE.sub("", body)
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
        plain = (
            " ".join(delatex(chunk).replace("~", " ").split())  # a tie before a cite token stays
            if "\\" in chunk or "{" in chunk
            else " ".join(chunk.replace("~", " ").split())
        )
        if plain:
            paragraphs.append(
                Paragraph(plain, [(0, None, line + (len(chunk) - len(chunk.lstrip("\n"))))])
            )
        line += n_lines - 1

    parsed: dict[str, list[str]] = {}  # a .bbl entry's authors, read once

    def narrative(keys: list[str]) -> str:
        e = families.get(keys[0]) if keys else None
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
        if not authors:
            return ""
        names = [a.split(",")[0].strip() if "," in a else a.split()[-1] for a in authors[:2]]
        if len(authors) >= 3:
            return f"{names[0]} et al."
        return " and ".join(names)

    def markers(sentence: str) -> list[RawMarker]:
        out = []
        for mm in _TOKEN.finditer(sentence):
            original, _cmd, keys = cites[int(mm.group(1))]
            out.append(RawMarker(mm.start(), mm.end(), original, "key", tuple(keys)))
        return out

    def claim(sentence: str, raw: list[RawMarker]) -> str:
        def repl(mm: re.Match[str]) -> str:
            _, cmd, keys = cites[int(mm.group(1))]
            return narrative(keys) if cmd.rstrip("*") in _NARRATIVE else ""

        s = _TOKEN.sub(repl, sentence)
        s = re.sub(r"\s+([.,;:!?])", r"\1", s)
        s = re.sub(r"\(\s*\)|\[\s*\]", "", s)
        return " ".join(s.split())

    doc = assemble(
        str(path), "latex", entries, paragraphs, warnings=warnings, markers=markers, claim=claim
    )
    # the sentence as found carries the cite commands, not the tokens
    fixed = [
        s.model_copy(update={"text": _TOKEN.sub(lambda mm: cites[int(mm.group(1))][0], s.text)})
        for s in doc.sentences
    ]
    return doc.model_copy(update={"sentences": fixed})
