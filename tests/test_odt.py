"""OpenDocument text (.odt, .fodt): the body, lists, notes and citation managers' marks.

The packages are written here part by part, the way LibreOffice lays one out: ``mimetype``
first and stored uncompressed, ``META-INF/manifest.xml``, ``content.xml``, ``styles.xml``.
"""

from __future__ import annotations

import json
import zipfile
from html import escape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.documents import DocumentError, read_document
from citejudge.schema import validate_result
from test_documents import world as world  # the demo world's index (a fixture)
from test_docx_fields import DEEP, LSTM, _csl_citation, check_document

_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
    'xmlns:xlink="http://www.w3.org/1999/xlink" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'office:version="1.3"'
)
_MIME = "application/vnd.oasis.opendocument.text"
#: LibreOffice's automatic styles: a numbered list "L1" ("1." with the number not in the
#: text), a bulleted "L2", a superscript span "T1", a numbered list starting at 5 "L3".
_AUTOMATIC = (
    '<style:style style:name="T1" style:family="text">'
    '<style:text-properties style:text-position="super 58%"/></style:style>'
    '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Standard"/>'
    '<text:list-style style:name="L1"><text:list-level-style-number text:level="1" '
    'style:num-suffix="." style:num-format="1"/><text:list-level-style-number text:level="2" '
    'style:num-suffix="." style:num-format="a"/></text:list-style>'
    '<text:list-style style:name="L2"><text:list-level-style-bullet text:level="1" '
    'text:bullet-char="•"/></text:list-style>'
    '<text:list-style style:name="L3"><text:list-level-style-number text:level="1" '
    'text:start-value="5" style:num-format="1"/></text:list-style>'
)
#: styles.xml's named list style: LibreOffice's "Numbering 123".
_STYLES = (
    f'<office:document-styles {_NS}><office:styles><text:list-style style:name="Numbering_20_123" '
    'style:display-name="Numbering 123"><text:list-level-style-number text:level="1" '
    'style:num-suffix="." style:num-format="1"/></text:list-style></office:styles>'
    "</office:document-styles>"
)


def _content(body: str, automatic: str = _AUTOMATIC) -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_NS}>'
        f"<office:automatic-styles>{automatic}</office:automatic-styles>"
        "<office:body><office:text>"
        '<text:sequence-decls><text:sequence-decl text:display-outline-level="0" '
        'text:name="Table"/></text:sequence-decls>'
        f"{body}</office:text></office:body></office:document-content>"
    )


def _odt(
    path: Path, body: str, *, automatic: str = _AUTOMATIC, properties: dict[str, str] | None = None
) -> Path:
    """An OpenDocument package as LibreOffice writes one; ``properties``: user-defined ones."""
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
        'manifest:version="1.3"><manifest:file-entry manifest:full-path="/" '
        f'manifest:media-type="{_MIME}"/><manifest:file-entry manifest:full-path="content.xml" '
        'manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" '
        'manifest:media-type="text/xml"/></manifest:manifest>'
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), _MIME, compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", manifest)
        z.writestr("content.xml", _content(body, automatic))
        z.writestr("styles.xml", _STYLES)
        if properties is not None:
            z.writestr(
                "meta.xml",
                f'<office:document-meta {_NS} xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:'
                'meta:1.0"><office:meta><meta:generator>LibreOffice/24.2</meta:generator>'
                + "".join(
                    f'<meta:user-defined meta:name="{k}">{escape(v, quote=False)}</meta:user-defined>'
                    for k, v in properties.items()
                )
                + "</office:meta></office:document-meta>",
            )
    return path


def _p(text: str, style: str = "Standard") -> str:
    return f'<text:p text:style-name="{style}">{text}</text:p>'


def _h(text: str) -> str:
    return f'<text:h text:style-name="Heading_20_1" text:outline-level="1">{text}</text:h>'


def _list(items: list[str], style: str = "L1", **attrs: str) -> str:
    extra = "".join(f' text:{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text:list text:style-name="{style}"{extra}>'
        + "".join(f"<text:list-item>{_p(t, 'P1')}</text:list-item>" for t in items)
        + "</text:list>"
    )


def _note(n: int, text: str, kind: str = "footnote") -> str:
    return (
        f'<text:note text:id="ftn{n}" text:note-class="{kind}"><text:note-citation>{n}'
        f"</text:note-citation><text:note-body>{_p(text, 'Footnote')}</text:note-body></text:note>"
    )


def _mark(name: str, shown: str) -> str:
    """A reference mark around ``shown``, as Zotero's LibreOffice plugin writes a citation."""
    n = escape(name, quote=True)
    return (
        f'<text:reference-mark-start text:name="{n}"/>{escape(shown, quote=False)}'
        f'<text:reference-mark-end text:name="{n}"/>'
    )


HOCHREITER = (
    "S. Hochreiter and J. Schmidhuber, “Long short-term memory,” Neural Computation, vol. 9, "
    "no. 8, pp. 1735–1780, 1997."
)
LECUN = "Y. LeCun, Y. Bengio, and G. Hinton, “Deep learning,” Nature, vol. 521, pp. 436–444, 2015."
KINGMA = (
    "D. P. Kingma and J. Ba, “Adam: A method for stochastic optimization,” in Proc. ICLR, 2015."
)


def test_a_libreoffice_manuscript_with_a_numbered_reference_list(tmp_path: Path) -> None:
    """The list's numbers live in its style, not in the text; a numbered list of steps is no
    reference list; deleted tracked changes, comments, a remark footnote are no text; spaces,
    tabs, spans and tables' paragraphs are."""
    body = (
        '<text:tracked-changes><text:changed-region text:id="ct1"><text:deletion>'
        "<office:change-info><dc:creator>Ann</dc:creator></office:change-info>"
        + _p("A deleted claim cites Vaswani et al. [9].")
        + "</text:deletion></text:changed-region></text:tracked-changes>"
        + _h("Recurrent networks for long sequences")
        + _p(
            '<text:change text:change-id="ct1"/>Long<text:s/>short-term memory networks '
            'mitigate the vanishing gradient problem <text:span text:style-name="T9">[1]'
            '</text:span>.<text:s text:c="2"/>Deep networks learn layered representations '
            "[2]."
            + _note(1, "We thank the reviewers for their comments.")
            + "<office:annotation><dc:creator>Bob</dc:creator>"
            + _p("Cite Smith (2020) here?")
            + "</office:annotation>"
        )
        + _p("The method has three steps:")
        + _list(
            [
                "Collect the data from the 2019 survey.",
                "Train the model for 10 epochs.",
                "Evaluate on the held-out set.",
            ],
            style="Numbering_20_123",
        )
        + '<table:table table:name="Table1"><table:table-row><table:table-cell>'
        + _p("Adam<text:tab/>trains fast [3].")
        + "</table:table-cell></table:table-row></table:table>"
        + _h("References")
        + _list([escape(HOCHREITER), escape(LECUN), escape(KINGMA)])
    )
    path = _odt(tmp_path / "paper.odt", body)
    doc = read_document(path)
    assert doc.format == "odt"
    assert [r.label for r in doc.references] == ["1", "2", "3"]
    assert doc.references[0].title == "Long short-term memory"
    # paragraphs: heading 1, body 2, "three steps" 3, the steps 4–6, the table's 7, heading 8
    assert [r.line for r in doc.references] == [9, 10, 11]
    cited = [(s.text[:12], [e for m in s.markers for e in m.entries]) for s in doc.sentences]
    assert cited == [("Long short-t", [1]), ("Deep network", [2]), ("Adam trains ", [3])]
    text = " ".join(s.text for s in doc.sentences)
    assert "Vaswani" not in text and "reviewers" not in text and "Smith" not in text
    assert doc.unresolved == [] and doc.uncited == []


def test_footnotes_that_are_references(tmp_path: Path) -> None:
    """Chicago notes in LibreOffice: each reference note is an entry its mark points to;
    "Ibid., 1740." to the note before it; a remark note is neither; an endnote counts apart."""
    notes = [
        "Sepp Hochreiter and Jürgen Schmidhuber, “Long Short-Term Memory,” Neural Computation 9, "
        "no. 8 (1997): 1735–80.",
        "Ibid., 1740.",
        "We thank the reviewers for their comments.",
    ]
    body = (
        _p(
            "Gated memory cells were introduced to keep errors flowing back in time."
            + _note(1, notes[0])
        )
        + _p("The cells learn when to forget their contents." + _note(2, notes[1]))
        + _p("We reproduced the experiments on two machines." + _note(3, notes[2]))
        + _p(
            "Deep learning now dominates speech recognition."
            + _note(
                1,
                "Yann LeCun, Yoshua Bengio, and Geoffrey Hinton, “Deep Learning,” Nature 521 "
                "(2015): 436–44.",
                "endnote",
            )
        )
    )
    doc = read_document(_odt(tmp_path / "notes.odt", body))
    assert [r.label for r in doc.references] == ["fn1", "en1"]
    assert [r.year for r in doc.references] == [1997, 2015]
    cited = [(s.text[:12], [e for m in s.markers for e in m.entries]) for s in doc.sentences]
    assert cited == [("Gated memory", [1]), ("The cells le", [1]), ("Deep learnin", [2])]
    assert doc.unresolved == [] and doc.uncited == []


def test_list_numbering_starts_continues_and_nests(tmp_path: Path) -> None:
    """A list style's start value, an item's own start value, a list continuing the one before
    it, a sublist that restarts under each item, a bulleted list."""
    from citejudge.documents._odt import odt_parts

    body = (
        _list(["five", "six"], style="L3")
        + _list(["seven"], style="L3", continue_numbering="true")
        + '<text:list text:style-name="L1"><text:list-item>'
        + _p("one")
        + _list(["one a", "one b"])  # its style is the parent's
        + "</text:list-item><text:list-item>"
        + _list(["a nested list alone in an item"])
        + '</text:list-item><text:list-item text:start-value="9">'
        + _p("nine")
        + _list(["nine a"])
        + "</text:list-item></text:list>"
        + _list(["dot"], style="L2")
        + _list(["five again"], style="L3")
    )
    lines = [ln.text for ln in odt_parts(_odt(tmp_path / "lists.odt", body)).lines if ln.text]
    assert lines == [
        "5. five", "6. six", "7. seven", "1. one", "1. one a", "2. one b",
        "1. a nested list alone in an item", "9. nine", "1. nine a", "- dot", "5. five again",
    ]  # fmt: skip


def test_superscripts_links_frames(tmp_path: Path) -> None:
    """A superscript span of numbers is a marker, after a digit an exponent; a hyperlink to the
    web keeps its address; a frame's caption is its own paragraph."""
    from citejudge.documents._odt import odt_parts

    body = _p(
        'Memory cells help<text:span text:style-name="T1">1,2</text:span> on 10'
        '<text:span text:style-name="T1">5</text:span> steps, see '
        '<text:a xlink:type="simple" xlink:href="https://example.org/lstm">the project page</text:a>.'
        '<draw:frame draw:name="Frame1"><draw:text-box>'
        + _p("Figure 1: the cell.")
        + "</draw:text-box></draw:frame>"
    ) + _p("After.")
    lines = [
        (ln.text, ln.number) for ln in odt_parts(_odt(tmp_path / "sup.odt", body)).lines if ln.text
    ]
    assert lines == [
        ("Memory cells help[1,2] on 10^5 steps, see [the project page](https://example.org/lstm).", 1),
        ("Figure 1: the cell.", 2),
        ("After.", 3),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("notazip.odt", b"{\\rtf1 not a package}", r"not an OpenDocument \.odt file"),
        ("nocontent.odt", None, r"no content\.xml in the package"),
        ("badxml.odt", b"<office:document-content>", r"content\.xml is not well-formed XML"),
        ("sheet.odt", "sheet", r"not an OpenDocument text \(its body is spreadsheet\)"),
        ("flat.fodt", b"<office:document", r"flat\.fodt: not well-formed XML"),
        ("locked.odt", b"\x8f\x1b\xe2 encrypted bytes", r"encrypted \(saved with a password\)"),
    ],
)
def test_files_that_cannot_be_read_name_themselves(
    tmp_path: Path, name: str, content: bytes | str | None, match: str
) -> None:
    path = tmp_path / name
    if name == "notazip.odt" or name.endswith(".fodt"):
        assert isinstance(content, bytes)
        path.write_bytes(content)
    else:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("mimetype", _MIME)
            if isinstance(content, bytes):
                z.writestr("content.xml", content)
            if name == "locked.odt":  # LibreOffice's manifest of a password-protected file
                z.writestr(
                    "META-INF/manifest.xml",
                    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
                    'manifest:1.0"><manifest:file-entry manifest:full-path="content.xml">'
                    '<manifest:encryption-data manifest:checksum-type="SHA1/1K"/>'
                    "</manifest:file-entry></manifest:manifest>",
                )
            elif content == "sheet":
                z.writestr(
                    "content.xml",
                    f"<office:document-content {_NS}><office:body><office:spreadsheet/>"
                    "</office:body></office:document-content>",
                )
    with pytest.raises(DocumentError, match=match) as err:
        read_document(path)
    assert str(path) in str(err.value)


# Citation managers: Zotero's LibreOffice plugin and Mendeley's, their marks' real names.
def _citation(items: list[dict[str, Any]], shown: str, prefix: str = "ZOTERO_ITEM") -> str:
    """A Zotero (``ZOTERO_ITEM``) or Mendeley (``CSL_CITATION``) mark with the Word fields' JSON."""
    data = json.dumps(_csl_citation(items, shown, prefix))
    rnd = " RNDq8Fz2kLm1x" if prefix == "ZOTERO_ITEM" else ""
    return _mark(f"{prefix} CSL_CITATION {data}{rnd}" if rnd else f"CSL_CITATION {data}", shown)


LSTM_APA = (
    "Hochreiter, S., &amp; Schmidhuber, J. (1997). Long Short-Term Memory. Neural Computation, "
    "9(8), 1735–1780. https://doi.org/10.1162/neco.1997.9.8.1735"
)
DEEP_APA = (
    "LeCun, Y., Bengio, Y., &amp; Hinton, G. (2015). Deep learning. Nature, 521, 436–444. "
    "https://doi.org/10.1038/nature14539"
)
ZOTERO_BODY = (
    _h("Recurrent networks for long sequences")
    + _p(
        "Gated recurrent networks and deep models learn long dependencies "
        + _citation([LSTM, DEEP], "(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015)")
        + '. See <text:bookmark-ref text:reference-format="text" text:ref-name="_Ref1">the '
        "table</text:bookmark-ref>. Later work extended them "
        + _citation([DEEP], "(LeCun et al., 2015)")
        + "."
    )
    + _p(
        '<text:bookmark-start text:name="_Ref1"/>Table 1<text:bookmark-end text:name="_Ref1"/>'
        ': the <text:reference-mark-start text:name="tab:sizes"/>sizes'
        '<text:reference-mark-end text:name="tab:sizes"/> of the models.'
    )
    + _h("References")
    + '<text:section text:style-name="Sect1" text:name="ZOTERO_BIBL {&quot;uncited&quot;:[],'
    '&quot;omitted&quot;:[],&quot;custom&quot;:[]} CSL_BIBLIOGRAPHY RNDa3Jk9">'
    + _p(LSTM_APA, "Bibliography")
    + _p(DEEP_APA, "Bibliography")
    + "</text:section>"
)


def test_zotero_reference_marks_carry_their_works(tmp_path: Path) -> None:
    """A Zotero mark citing two works points to both; its text as shown is the marker; the
    bibliography section is no second copy; a cross-reference bookmark and a reference mark
    that is no citation are text."""
    doc = read_document(_odt(tmp_path / "zotero.odt", ZOTERO_BODY))
    assert [r.csl for r in doc.references] == [LSTM, DEEP]
    assert [r.key for r in doc.references] == [
        "http://zotero.org/users/42/items/K101",
        "http://zotero.org/users/42/items/K102",
    ]
    assert [r.line for r in doc.references] == [2, 2]
    first, second = doc.sentences
    assert [(m.text, m.kind, m.entries) for m in first.markers] == [
        ("(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015)", "key", [1, 2])
    ]
    assert [m.entries for m in second.markers] == [[2]]
    assert "ZOTERO" not in " ".join(s.text for s in doc.sentences)
    assert doc.unresolved == [] and doc.uncited == [] and doc.warnings == []


def test_mendeley_marks_and_a_bibliography_mark_spanning_paragraphs(tmp_path: Path) -> None:
    """Mendeley's ``CSL_CITATION {json}`` marks; a bibliography that is a reference mark from
    its first paragraph to its last; a point mark shows nothing (a warning, its works listed)."""
    bib = "Mendeley Bibliography CSL_BIBLIOGRAPHY"
    body = (
        _p("Memory cells keep errors flowing " + _citation([LSTM], "[1]", "CSL_CITATION") + ".")
        + _p(
            "Deep models learn representations "
            + '<text:reference-mark text:name="CSL_CITATION '
            + escape(json.dumps({"citationItems": [{"id": 102, "itemData": DEEP}]}), quote=True)
            + '"/>.'
        )
        + _h("References")
        + _p(f'<text:reference-mark-start text:name="{bib}"/>[1] {LSTM_APA}')
        + _p(f'[2] {DEEP_APA}<text:reference-mark-end text:name="{bib}"/>')
    )
    path = _odt(tmp_path / "mendeley.odt", body)
    doc = read_document(path)
    assert [r.title for r in doc.references] == ["Long Short-Term Memory", "Deep learning"]
    assert [(m.text, m.entries) for s in doc.sentences for m in s.markers] == [("[1]", [1])]
    assert doc.warnings == [
        f"{path}: paragraph 2: a Mendeley citation field shows no text in one paragraph; its "
        "works are listed, no sentence cites them"
    ]


def test_a_broken_zotero_mark_is_a_warning_and_the_rest_is_read(tmp_path: Path) -> None:
    broken = _mark(
        'ZOTERO_ITEM CSL_CITATION {"citationItems":[{"id":5,"itemData":{"title":"Eff RNDzz',
        "(Mikolov et al., 2013)",
    )
    body = (
        _p(
            "Deep learning learns representations "
            + _citation([DEEP], "(LeCun et al., 2015)")
            + "."
        )
        + _p("Word vectors are cheap to train " + broken + ".")
        + _h("References")
        + '<text:section text:name="ZOTERO_BIBL {} CSL_BIBLIOGRAPHY">'
        + _p(DEEP_APA)
        + "</text:section>"
    )
    path = _odt(tmp_path / "broken.odt", body)
    doc = read_document(path)
    assert [r.title for r in doc.references] == ["Deep learning"]
    (warning,) = doc.warnings
    assert warning.startswith(
        f"{path}: paragraph 2: Zotero citation field: its JSON data is not valid"
    )
    assert [t for _, _, t in doc.unresolved] == ["Mikolov et al. 2013"]


def test_a_note_style_cites_in_footnotes_with_marks(tmp_path: Path) -> None:
    """Zotero with a note style: the marks are in the footnotes; the note's mark points to
    their works."""
    body = _p(
        "Gated memory cells were introduced to keep errors flowing back in time."
        + _note(1, _citation([LSTM], "Hochreiter and Schmidhuber, “Long Short-Term Memory.”"))
    ) + _p(
        "Deep models learn layered features of speech and images."
        + _note(2, _citation([DEEP, LSTM], "LeCun et al.; Hochreiter."))
    )
    doc = read_document(_odt(tmp_path / "chicago.odt", body))
    assert [r.title for r in doc.references] == ["Long Short-Term Memory", "Deep learning"]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2, 1]]
    assert doc.warnings == [] and doc.unresolved == []


def test_zotero_bookmark_mode_keeps_its_codes_in_the_properties(tmp_path: Path) -> None:
    """Zotero's "store citations as bookmarks": a bookmark ``ZOTERO_BREF_…`` whose field code
    lies in the document's properties, cut into pieces of 255 characters (out of order here)."""
    code = f"ZOTERO_ITEM CSL_CITATION {json.dumps({'citationItems': [{'id': 101, 'itemData': LSTM}]})} RNDa"
    pieces = [code[i : i + 255] for i in range(0, len(code), 255)]
    assert len(pieces) == 2
    props = {f"ZOTERO_BREF_k3J9x_{n}": piece for n, piece in enumerate(pieces, start=1)}
    props = dict(reversed(list(props.items())))
    props["ZOTERO_PREF_1"] = '<data data-version="3"/>'
    body = _p(
        "Memory cells keep errors flowing back in time for many steps "
        '<text:bookmark-start text:name="ZOTERO_BREF_k3J9x"/>(Hochreiter &amp; Schmidhuber, 1997)'
        '<text:bookmark-end text:name="ZOTERO_BREF_k3J9x"/>.'
    ) + _p('See <text:bookmark text:name="ZOTERO_BREF_unknown"/>the appendix.')
    doc = read_document(_odt(tmp_path / "bookmarks.odt", body, properties=props))
    assert [r.csl for r in doc.references] == [LSTM]
    assert [(m.text, m.entries) for s in doc.sentences for m in s.markers] == [
        ("(Hochreiter & Schmidhuber, 1997)", [1])
    ]
    assert doc.warnings == []


def test_a_flat_odt(tmp_path: Path) -> None:
    """``.fodt``: one XML file, ``office:document``, the same body and styles."""
    content = _content(ZOTERO_BODY)
    flat = content.replace("office:document-content", "office:document").replace(
        "<office:automatic-styles>",
        _STYLES.split("<office:document-styles", 1)[1]
        .split(">", 1)[1]
        .replace("</office:document-styles>", "")
        + "<office:automatic-styles>",
    )
    path = tmp_path / "paper.fodt"
    path.write_text(flat, encoding="utf-8")
    doc = read_document(path)
    assert doc.format == "odt" and [r.csl for r in doc.references] == [LSTM, DEEP]


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=80))
def test_any_text_in_a_paragraph_reads(text: str) -> None:
    """Whatever a paragraph holds (escaped), the reader returns its text, whitespace collapsed,
    or a DocumentError (no reference list), never another exception."""
    import tempfile

    from citejudge.documents._odt import odt_parts

    clean = "".join(c for c in text if c.isprintable() or c in "\t\n")
    with tempfile.TemporaryDirectory() as d:
        path = _odt(Path(d) / "t.odt", _p(escape(clean, quote=False)))
        lines = [ln.text for ln in odt_parts(path).lines if ln.text]
    assert lines == ([" ".join(clean.split())] if clean.split() else [])


def test_check_document_on_a_zotero_odt(tmp_path: Path, world: Path) -> None:
    """End to end: the DOI a Zotero mark carries matches the world's record ("Yes")."""
    path = _odt(tmp_path / "zotero.odt", ZOTERO_BODY)
    lines = check_document(path, world)
    assert len(lines) == 3
    for ln in lines:
        assert validate_result("references", ln["result"]) == []
    verdicts = [ln["result"]["reference_grounding"] for ln in lines]
    assert verdicts[0].startswith("Yes. Matches W9000000008 via doi")
    assert verdicts[1].startswith("Yes. Matches W9000000004 via doi")
    manifest = json.loads(path.with_suffix(".results.jsonl.manifest.json").read_text())
    (summary,) = manifest["documents"]
    assert summary["format"] == "odt" and summary["reference_grounding"] == {"Yes": 2}


def test_a_word_list_of_steps_beside_a_reference_list_is_no_reference_list(
    tmp_path: Path,
) -> None:
    """The same steps in Word: the finder labels a short numbered list of steps as references;
    none of its entries reads as one while the reference list's do, so its lines stay prose.
    One list of web addresses alone stays a reference list (nothing beside it reads as one)."""
    from test_documents import _docx, _w_par, _w_run

    steps = [
        "Collect the data from the 2019 survey.",
        "Train the model for 10 epochs.",
        "Evaluate on the held-out set.",
    ]
    body = [
        _w_par(_w_run("Recurrent networks for long sequences")),
        _w_par(
            _w_run(
                "Long short-term memory networks mitigate the vanishing gradient problem [1]. "
                "Deep networks learn layered representations [2]."
            )
        ),
        _w_par(_w_run("The method has three steps:")),
        *(_w_par(_w_run(s), num=(1, 0)) for s in steps),
        _w_par(_w_run("References")),
        *(_w_par(_w_run(f"[{n}] {escape(s)}")) for n, s in ((1, HOCHREITER), (2, LECUN))),
    ]
    doc = read_document(_docx(tmp_path / "steps.docx", body))
    assert [(r.label, r.line) for r in doc.references] == [("1", 8), ("2", 9)]
    assert doc.unresolved == [] and doc.uncited == []
    urls = [
        _w_par(_w_run("Tools we used are listed below [1], [2].")),
        _w_par(_w_run("References")),
        _w_par(_w_run("https://github.com/huggingface/transformers"), num=(1, 0)),
        _w_par(_w_run("https://github.com/pytorch/pytorch"), num=(1, 0)),
    ]
    doc = read_document(_docx(tmp_path / "urls.docx", urls))
    assert [r.text for r in doc.references] == [
        "https://github.com/huggingface/transformers",
        "https://github.com/pytorch/pytorch",
    ]


def test_a_humanities_bibliography_without_years_stays_a_reference_list(tmp_path: Path) -> None:
    """Archival sources and a book list without years read as no reference by themselves; they
    start with a name or an institution before a comma, so no block of the list is given back
    to the body (a block given back would be named in a warning)."""
    from test_documents import _docx, _w_par, _w_run

    primary = [
        "The National Archives, Kew, FO 371/12345, Minutes of the Cabinet.",
        "British Library, Add MS 41234, Letters of Lord Grey.",
    ]
    secondary = [
        "Foucault, Michel. Discipline and Punish. New York: Vintage, 1977.",
        "Said, Edward. Orientalism. New York: Pantheon, 1978.",
    ]
    body = [
        _w_par(_w_run("Intro")),
        _w_par(_w_run("As the minutes show [1], the letters [2] and the critics [3] agree [4].")),
        _w_par(_w_run("Bibliography")),
        _w_par(_w_run("Primary sources")),
        *(_w_par(_w_run(s), num=(1, 0)) for s in primary),
        _w_par(_w_run("Secondary sources")),
        *(_w_par(_w_run(s), num=(1, 0)) for s in secondary),
    ]
    doc = read_document(_docx(tmp_path / "humanities.docx", body))
    texts = [r.text for r in doc.references]
    assert any(t.startswith("British Library") for t in texts)
    assert any(t.startswith("Said, Edward") for t in texts)
    assert not any("read as the body's text" in w for w in doc.warnings)


def test_text_nested_too_deeply_is_an_error_of_that_file(tmp_path: Path) -> None:
    """Spans nested thousands deep (a damaged or hostile file) are this file's error, not a
    crash that stops the batch."""
    body = "<text:p>" + "<text:span>" * 3000 + "deep" + "</text:span>" * 3000 + "</text:p>"
    with pytest.raises(DocumentError, match="nested too deeply"):
        read_document(_odt(tmp_path / "deep.odt", body))
