"""HTML documents: a saved web article (a Wikipedia page) or a generated report exported as HTML.

The page is laid out as text lines the way a browser shows it — a block element (paragraph,
heading, list item, table row, ``<br>``) starts a line, an ordered list's items carry their
numbers ("3. …"), other list items a bullet — and the lines go to the reference finder and the
marker finder like any text document (:func:`~citejudge.documents._plain.document_from_lines`).
What a reader does not read is left out: ``<head>``, scripts and styles, navigation, and the
page furniture that sits inside a reference list (Wikipedia's "^ a b" back-links, "[edit]"
links). A line is numbered by the source line its first text came from, so an error names the
line of the HTML file.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from citejudge.documents._build import IDENTIFIER_TEXT, read_text_file
from citejudge.documents._finder import SUPERSCRIPT_CITATION, Line, superscript_marker
from citejudge.documents._model import Document

__all__ = ["html_lines", "read_html"]

_BLOCK_TAGS = """p div section article main li ul ol dl dt dd h1 h2 h3 h4 h5 h6 br tr table thead
tbody blockquote pre figure figcaption caption hr header footer aside details summary"""
_BLOCK = frozenset(_BLOCK_TAGS.split())
#: Elements whose content no reader reads (``<nav>``: menus; ``<head>``: the page's metadata;
#: ``<footer>``: "last edited", licences).
_SKIP_TAGS = "head script style noscript template svg nav footer button form select"
_SKIP = frozenset(_SKIP_TAGS.split())
#: Class names of the furniture inside articles and reference lists: back-links ("^ a b"),
#: "[edit]" links, print-hidden navigation boxes.
_WEB = re.compile(r"^https?://", re.I)
_ITEM_PREFIX = re.compile(r"\d{1,4}\.|-")
_BIBITEM_TAG = re.compile(r"(?:^|\s)ltx_tag_bibitem(?:\s|$)")
_SKIP_CLASS = re.compile(r"(?:^|\s)(?:mw-cite-backlink|mw-editsection|noprint|navbox)(?:\s|$)")
#: Blocks that end a line but not a paragraph (no blank line after them).
_LINE_TAGS = "li dt dd tr br summary caption figcaption"
_LINE = frozenset(_LINE_TAGS.split())
_VOID_TAGS = "br hr img input meta link area base col embed source track wbr"
_VOID = frozenset(_VOID_TAGS.split())


class _Layout(HTMLParser):
    """Collects the page's text as lines, with the source line each line began on."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[Line] = []
        self._buf: list[str] = []
        self._start = 0
        self._skip = 0  # depth inside skipped elements
        self._stack: list[tuple[str, bool]] = []  # open elements: (tag, skipped here)
        self._lists: list[list[int]] = []  # [next number] of each open <ol>, [] for <ul>
        self._sup: list[str] | None = None  # text of the open <sup>, if one is open
        self._tag: list[str] | None = None  # text of an open LaTeXML bibitem tag
        self._tag_depth = 0
        self._links: list[str] = []  # href of each open <a> ("" when not kept)

    def _flush(self, gap: bool = False) -> None:
        """End the line being collected; ``gap``: and leave a blank line after it."""
        text = " ".join("".join(self._buf).split())
        self._buf = []
        if text:
            self.lines.append(Line(text, None, self._start))
        if gap and self.lines and not self.lines[-1].blank:
            self.lines.append(Line("", None, self.getpos()[0]))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag == "br" and not self._skip:
                self._flush()
            return
        cls = next((v or "" for k, v in attrs if k == "class"), "")
        skipped = tag in _SKIP or bool(_SKIP_CLASS.search(cls))
        self._stack.append((tag, skipped))
        if skipped:
            self._skip += 1
            return
        if self._skip:
            return
        if tag in _BLOCK and not (tag not in ("li", "ol", "ul") and self._only_prefix()):
            self._flush()  # (a <p> inside an <li> stays on the item's line, after its number)
        if tag in ("td", "th"):
            self._buf.append(" ")
        if tag == "a":
            href = next((v or "" for k, v in attrs if k == "href"), "")
            self._links.append(href if _WEB.match(href) and self._sup is None else "")
            if self._links[-1]:
                self._buf.append("[")
        if tag == "sup" and self._sup is None:
            self._sup = []
        if self._tag is not None:
            self._tag_depth += 1
        elif _BIBITEM_TAG.search(cls):
            self._tag, self._tag_depth = [], 1
        if tag == "ol":
            start = next((v for k, v in attrs if k == "start"), None)
            self._lists.append([int(start) if start and start.isdigit() else 1])
        elif tag == "ul":
            self._lists.append([])
        elif tag == "li":
            counter = self._lists[-1] if self._lists else []
            if counter:
                self._buf.append(f"{counter[0]}. ")
                counter[0] += 1
            else:
                self._buf.append("- ")
            self._start = self.getpos()[0]

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _ in self._stack):
            return  # a stray end tag
        while self._stack:
            t, skipped = self._stack.pop()
            if skipped:
                self._skip -= 1
            elif not self._skip:
                if t == "a" and self._links:
                    self._end_link(self._links.pop())
                if t == "sup":
                    self._end_sup()
                if self._tag is not None:
                    self._tag_depth -= 1
                    if self._tag_depth == 0:
                        self._end_tag()
                if t in ("ol", "ul") and self._lists:
                    self._lists.pop()
                if t in _BLOCK:
                    self._flush(gap=t not in _LINE)
            if t == tag:
                break

    def _end_link(self, href: str) -> None:
        """Close a link: one to another site is kept the Markdown way, "[text](https://…)".

        A reference entry keeps its address (its DOI); a chat answer's links are its sources.
        """
        if not href:
            return
        text = "".join(self._buf)
        at = text.rfind("[")
        anchor = text[at + 1 :]
        if at < 0 or not anchor.strip() or IDENTIFIER_TEXT.match(anchor) or "[" in anchor:
            # an identifier written out ("10.1162/…", a PMID) needs no second copy
            self._buf = [text[:at] + anchor] if at >= 0 else [text]
            return
        self._buf = [f"{text}]({href.replace(')', '%29').replace(' ', '%20')})"]

    def _only_prefix(self) -> bool:
        """True when the line so far is a list item's number or bullet and nothing else."""
        return bool(_ITEM_PREFIX.fullmatch("".join(self._buf).strip()))

    def _end_sup(self) -> None:
        """A ``<sup>`` of numbers is a citation ("problem<sup>1,2</sup>" → "problem[1,2]")."""
        if self._sup is None:
            return
        raw, self._sup = "".join(self._sup), None
        if SUPERSCRIPT_CITATION.fullmatch(raw.strip()) is None:
            self._buf.append(raw)  # "[1]" already bracketed, "th", "a,b"…
        else:
            self._buf.append(superscript_marker("".join(self._buf), raw))

    def _end_tag(self) -> None:
        """End a LaTeXML bibitem tag (arXiv's HTML).

        "[12]" is the entry's label; an author–year tag ("Hochreiter and Schmidhuber (1997)")
        repeats the entry's names and is left out.
        """
        raw, self._tag = " ".join("".join(self._tag or []).split()), None
        m = re.fullmatch(r"\[?(\d{1,4})\]?\.?", raw)
        if m:
            if "".join(self._buf).strip() == "-":
                self._buf = []  # the label replaces the list's bullet
            self._buf.append(f"[{m.group(1)}] ")

    def handle_data(self, data: str) -> None:
        if self._skip or not data:
            return
        if self._tag is not None:
            self._tag.append(data)
            return
        if self._sup is not None:
            self._sup.append(data)
            return
        if not any(p and not p.isspace() for p in self._buf):  # (stops at the first text)
            self._start = self.getpos()[0]
        self._buf.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def html_lines(html: str) -> list[Line]:
    """The text lines of an HTML page, laid out as a reader sees them (see the module docstring)."""
    layout = _Layout()
    layout.feed(html)
    layout.close()
    return layout.lines


def read_html(path: Path) -> Document:
    """Read an HTML document: its reference list and the sentences that cite it."""
    from citejudge.documents._plain import document_from_lines

    # the lines carry links the Markdown way: read them as Markdown
    return document_from_lines(str(path), "html", html_lines(read_text_file(path)), markdown=True)
