"""Citation managers' fields in Word documents: Zotero, Mendeley, EndNote (their real shapes)."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.documents import read_document
from citejudge.schema import validate_result
from test_documents import _docx, _w_note_ref, _w_par, _w_run
from test_documents import world as world  # the demo world's index (a fixture)


def check_document(path: Path, world: Path) -> list[dict[str, Any]]:
    """``citejudge check document PATH --no-llm`` against ``world``: its result lines."""
    from citejudge.cli import main

    out = path.with_suffix(".results.jsonl")
    argv = ["check", "document", str(path), "--index", str(world), "--out", str(out)]
    assert main([*argv, "--no-llm", "-q"]) == 0
    return [json.loads(x) for x in out.read_text().splitlines()]


LSTM = {
    "id": 101,
    "type": "article-journal",
    "title": "Long Short-Term Memory",
    "container-title": "Neural Computation",
    "volume": "9",
    "issue": "8",
    "page": "1735-1780",
    "DOI": "10.1162/neco.1997.9.8.1735",
    "author": [
        {"family": "Hochreiter", "given": "Sepp"},
        {"family": "Schmidhuber", "given": "Jürgen"},
    ],
    "issued": {"date-parts": [["1997", 11, 15]]},
}
DEEP = {
    "id": 102,
    "type": "article-journal",
    "title": "Deep learning",
    "container-title": "Nature",
    "volume": "521",
    "page": "436-444",
    "DOI": "10.1038/nature14539",
    "author": [
        {"family": "LeCun", "given": "Yann"},
        {"family": "Bengio", "given": "Yoshua"},
        {"family": "Hinton", "given": "Geoffrey"},
    ],
    "issued": {"date-parts": [[2015, 5, 28]]},
}
ADAM = {
    "id": "ITEM-1",
    "type": "article",
    "title": "Adam: A Method for Stochastic Optimization",
    "author": [
        {"dropping-particle": "", "family": "Kingma", "given": "Diederik P.",
         "non-dropping-particle": "", "parse-names": False, "suffix": ""},
        {"dropping-particle": "", "family": "Ba", "given": "Jimmy",
         "non-dropping-particle": "", "parse-names": False, "suffix": ""},
    ],
    "DOI": "10.48550/arxiv.1412.6980",
    "issued": {"date-parts": [["2014"]]},
}  # fmt: skip


def _fld(instr: list[str], shown: str, *, data: str = "", sup: bool = False) -> str:
    """A complex field as Word writes it: begin, instruction runs, separate, result, end."""
    begin = (
        f'<w:fldChar w:fldCharType="begin"><w:fldData xml:space="preserve">{data}</w:fldData></w:fldChar>'
        if data
        else '<w:fldChar w:fldCharType="begin"/>'
    )
    rpr = '<w:rPr><w:vertAlign w:val="superscript"/></w:rPr>' if sup else ""
    return (
        f"<w:r>{begin}</w:r>"
        + "".join(
            f'<w:r><w:instrText xml:space="preserve">{html.escape(part, quote=False)}</w:instrText></w:r>'
            for part in instr
        )
        + '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        + f'<w:r>{rpr}<w:t xml:space="preserve">{html.escape(shown, quote=False)}</w:t></w:r>'
        + '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )


def _csl_citation(items: list[dict[str, Any]], shown: str, prefix: str) -> dict[str, Any]:
    if prefix.startswith("ZOTERO"):
        return {
            "citationID": "a1b2c3",
            "properties": {"formattedCitation": shown, "plainCitation": shown, "noteIndex": 0},
            "citationItems": [
                {"id": it["id"], "uris": [f"http://zotero.org/users/42/items/K{it['id']}"],
                 "itemData": it}
                for it in items
            ],
            "schema": "https://github.com/citation-style-language/schema/raw/master/csl-citation.json",
        }  # fmt: skip
    return {
        "citationItems": [
            {"id": it["id"], "itemData": it, "isTemporary": False,
             "uris": [f"http://www.mendeley.com/documents/?uuid={it['id']}"]}
            for it in items
        ],
        "mendeley": {"formattedCitation": shown, "plainTextFormattedCitation": shown},
        "properties": {"noteIndex": 0},
        "schema": "https://github.com/citation-style-language/schema/raw/master/csl-citation.json",
    }  # fmt: skip


def _csl_field(
    items: list[dict[str, Any]],
    shown: str,
    *,
    prefix: str = "ZOTERO_ITEM CSL_CITATION",
    pieces: int = 1,
) -> str:
    """A Zotero (or Mendeley) citation field; its JSON split across ``pieces`` instrText runs."""
    code = f" ADDIN {prefix} " + json.dumps(_csl_citation(items, shown, prefix)) + " "
    step = -(-len(code) // pieces)
    return _fld([code[i : i + step] for i in range(0, len(code), step)], shown)


def _bibliography(instr: str, entries: list[str]) -> list[str]:
    """A bibliography field: it begins in the first entry's paragraph and ends in the last's."""
    pars = []
    for i, text in enumerate(entries):
        runs = _w_run(text)
        if i == 0:
            runs = (
                '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
                f'<w:r><w:instrText xml:space="preserve">{html.escape(instr, quote=False)}</w:instrText></w:r>'
                '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + runs
            )
        if i == len(entries) - 1:
            runs += '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
        pars.append(_w_par(runs))
    return pars


ZOTERO_BIBL = ' ADDIN ZOTERO_BIBL {"uncited":[],"omitted":[],"custom":[]} CSL_BIBLIOGRAPHY '
LSTM_APA = "Hochreiter, S., &amp; Schmidhuber, J. (1997). Long Short-Term Memory. Neural Computation, 9(8), 1735–1780. https://doi.org/10.1162/neco.1997.9.8.1735"
DEEP_APA = "LeCun, Y., Bengio, Y., &amp; Hinton, G. (2015). Deep learning. Nature, 521, 436–444. https://doi.org/10.1038/nature14539"


ZOTERO_CITES = [
    _w_par(_w_run("Recurrent networks for long sequences")),
    _w_par(
        _w_run("Gated recurrent networks and deep models learn long dependencies ")
        + _csl_field([LSTM, DEEP], "(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015)", pieces=4)
        + _w_run(". Later work extended them ")
        + _csl_field([DEEP], "(LeCun et al., 2015)", pieces=3)
        + _w_run(".")
    ),
    _w_par(_w_run("References")),
]


def test_zotero_fields_split_across_runs_carry_their_works(tmp_path: Path) -> None:
    """Zotero: the JSON is split across instrText runs; a field citing two works points to both;
    the rendered bibliography is no second copy of them."""
    body = [*ZOTERO_CITES, *_bibliography(ZOTERO_BIBL, [LSTM_APA, DEEP_APA])]
    doc = read_document(_docx(tmp_path / "zotero.docx", body))
    assert [r.title for r in doc.references] == ["Long Short-Term Memory", "Deep learning"]
    assert [r.csl for r in doc.references] == [LSTM, DEEP]
    assert [r.key for r in doc.references] == [
        "http://zotero.org/users/42/items/K101",
        "http://zotero.org/users/42/items/K102",
    ]
    assert [(r.line, r.source, r.year) for r in doc.references] == [
        (2, None, 1997),
        (2, None, 2015),
    ]
    first, second = doc.sentences
    # the field's text stays in the sentence as a reader sees it
    assert first.text.endswith("(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015).")
    assert first.claim == "Gated recurrent networks and deep models learn long dependencies."
    assert [(m.text, m.kind, m.entries) for m in first.markers] == [
        ("(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015)", "key", [1, 2])
    ]
    assert [m.entries for m in second.markers] == [[2]] and second.line == 2
    assert doc.unresolved == [] and doc.uncited == [] and doc.warnings == []
    items = doc.items()
    assert [it["full_citation"] for it in items] == [LSTM, DEEP, DEEP]
    assert [it["document"]["marker"] for it in items][1:] == [
        "(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015)",
        "(LeCun et al., 2015)",
    ]


def test_mendeley_fields_in_a_numbered_style(tmp_path: Path) -> None:
    """Mendeley: 'ADDIN CSL_CITATION {json}', a superscript number as its text, and the
    'Mendeley Bibliography CSL_BIBLIOGRAPHY' field's numbered entries."""
    body = [
        _w_par(
            _w_run("Adaptive moment estimates train deep networks quickly")
            + _csl_field([ADAM], "1", prefix="CSL_CITATION").replace(
                "<w:r><w:t", '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:t'
            )
            + _w_run(". Deep networks learn layered representations ")
            + _csl_field([DEEP], "[2]", prefix="CSL_CITATION")
            + _w_run(".")
        ),
        _w_par(_w_run("Bibliography")),
        *_bibliography(
            " ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY ",
            [
                "1. Kingma DP, Ba J. Adam: A Method for Stochastic Optimization. 2014;",
                "2. LeCun Y, Bengio Y, Hinton G. Deep learning. Nature. 2015;521:436–44.",
            ],
        ),
    ]
    doc = read_document(_docx(tmp_path / "mendeley.docx", body))
    assert [r.title for r in doc.references] == [
        "Adam: A Method for Stochastic Optimization",
        "Deep learning",
    ]
    assert doc.references[0].key == "http://www.mendeley.com/documents/?uuid=ITEM-1"
    assert [(m.text, m.entries) for s in doc.sentences for m in s.markers] == [
        ("[1]", [1]),
        ("[2]", [2]),
    ]
    assert doc.warnings == [] and doc.unresolved == [] and doc.uncited == []


ENDNOTE_LSTM = (
    "<EndNote><Cite><Author>Hochreiter</Author><Year>1997</Year><RecNum>12</RecNum>"
    "<DisplayText>(Hochreiter &amp; Schmidhuber, 1997)</DisplayText><record><rec-number>12</rec-number>"
    '<foreign-keys><key app="EN" db-id="x0sfpzs2cevdr5e">12</key></foreign-keys>'
    '<ref-type name="Journal Article">17</ref-type><contributors><authors>'
    '<author><style face="normal" font="default" size="100%">Hochreiter, Sepp</style></author>'
    "<author>Schmidhuber, Jürgen</author></authors></contributors>"
    '<titles><title><style face="normal" font="default" size="100%">Long Short-Term Memory</style></title>'
    "<secondary-title>Neural Computation</secondary-title></titles>"
    "<periodical><full-title>Neural Computation</full-title></periodical><pages>1735-1780</pages>"
    "<volume>9</volume><number>8</number><dates><year>1997</year></dates><isbn>0899-7667</isbn>"
    "<urls></urls><electronic-resource-num>10.1162/neco.1997.9.8.1735</electronic-resource-num>"
    "</record></Cite>"
    "<Cite><Author>LeCun</Author><Year>2015</Year><RecNum>7</RecNum><record><rec-number>7</rec-number>"
    '<ref-type name="Journal Article">17</ref-type><contributors><authors><author>LeCun, Yann</author>'
    "<author>Bengio, Yoshua</author><author>Hinton, Geoffrey</author></authors></contributors>"
    "<titles><title>Deep learning</title><secondary-title>Nature</secondary-title></titles>"
    "<pages>436-444</pages><volume>521</volume><dates><year>2015</year></dates>"
    "<electronic-resource-num>10.1038/nature14539</electronic-resource-num></record></Cite></EndNote>"
)


def _endnote_field(shape: str, shown: str) -> str:
    if shape == "plain":
        return _fld([" ADDIN EN.CITE ", ENDNOTE_LSTM], shown)
    if shape == "escaped":  # the XML escaped once more inside the instruction
        return _fld([" ADDIN EN.CITE " + html.escape(ENDNOTE_LSTM, quote=False)], shown)
    # the XML base64-encoded in the fldData of a nested EN.CITE.DATA field
    data = base64.b64encode(ENDNOTE_LSTM.encode()).decode()
    nested = _fld([" ADDIN EN.CITE.DATA "], "", data="\n".join([data[:76], data[76:]]))
    nested = nested.replace(
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t xml:space="preserve"></w:t></w:r>',
        "",
    )
    return _fld([" ADDIN EN.CITE "], shown).replace(
        '<w:r><w:fldChar w:fldCharType="separate"/>',
        nested + '<w:r><w:fldChar w:fldCharType="separate"/>',
        1,
    )


@pytest.mark.parametrize("shape", ["plain", "escaped", "fldData"])
def test_endnote_fields(tmp_path: Path, shape: str) -> None:
    """EndNote: 'ADDIN EN.CITE <EndNote>…' (escaped once more, or base64 in EN.CITE.DATA), its
    record mapped to CSL; the EN.REFLIST entries are no second copy."""
    body = [
        _w_par(
            _w_run("Gated memory cells keep the error flowing ")
            + _endnote_field(shape, "(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015)")
            + _w_run(".")
        ),
        _w_par(_w_run("References")),
        *_bibliography(" ADDIN EN.REFLIST ", [LSTM_APA, DEEP_APA]),
    ]
    doc = read_document(_docx(tmp_path / f"endnote-{shape}.docx", body))
    assert doc.warnings == []
    lstm, deep = doc.references
    assert lstm.key == "endnote:x0sfpzs2cevdr5e:12" and deep.key == "endnote:7"
    assert lstm.csl == {
        "type": "article-journal",
        "title": "Long Short-Term Memory",
        "author": [
            {"family": "Hochreiter", "given": "Sepp"},
            {"family": "Schmidhuber", "given": "Jürgen"},
        ],
        "issued": {"date-parts": [[1997]]},
        "container-title": "Neural Computation",
        "volume": "9",
        "issue": "8",
        "page": "1735-1780",
        "ISBN": "0899-7667",
        "DOI": "10.1162/neco.1997.9.8.1735",
        "id": "endnote:x0sfpzs2cevdr5e:12",
    }
    assert (lstm.authors, lstm.year, deep.title) == (
        ["Hochreiter, Sepp", "Schmidhuber, Jürgen"],
        1997,
        "Deep learning",
    )
    (s,) = doc.sentences
    assert [m.entries for m in s.markers] == [[1, 2]]
    assert s.text.endswith("(Hochreiter & Schmidhuber, 1997; LeCun et al., 2015).")


def _in_note(runs: str) -> str:
    """Runs for a footnote of ``_docx`` (which writes a note's text into one run: closed here)."""
    return f"</w:t></w:r>{runs}<w:r><w:t>"


def test_a_note_style_cites_in_footnotes_with_fields(tmp_path: Path) -> None:
    """Zotero with a note style (Chicago): the fields are in the footnotes, "Ibid." too; the
    note's mark points to the works its fields carry; a remark note is nothing."""
    chicago = "Sepp Hochreiter and Jürgen Schmidhuber, “Long Short-Term Memory,” Neural Computation 9, no. 8 (1997): 1735–80."
    body = [
        _w_par(_w_run("Memory in recurrent networks")),
        _w_par(_w_run("Gated memory cells keep errors flowing back in time.") + _w_note_ref(1)),
        _w_par(_w_run("The cells learn when to forget.") + _w_note_ref(2)),
        _w_par(_w_run("We ran everything twice.") + _w_note_ref(3)),
        _w_par(_w_run("Both ideas now dominate speech recognition.") + _w_note_ref(4)),
        _w_par(_w_run("Word vectors are cheap to train.") + _w_note_ref(5)),
    ]
    notes = [
        _in_note(_csl_field([LSTM], chicago)),
        _in_note(_csl_field([LSTM], "Ibid., 1740.")),
        "We thank the reviewers for their comments.",
        _in_note(
            _csl_field(
                [LSTM, DEEP],
                "Hochreiter and Schmidhuber, “Long Short-Term Memory”; Yann LeCun, Yoshua Bengio, and Geoffrey Hinton, “Deep Learning,” Nature 521 (2015): 436–44.",
            )
        ),
    ]
    # a field whose JSON is broken: its note, which reads as a reference, is an entry as written
    mikolov = "Tomas Mikolov et al., “Efficient Estimation of Word Representations in Vector Space” (2013)."
    notes.append(
        _in_note(_fld([' ADDIN ZOTERO_ITEM CSL_CITATION {"citationItems":[{"id":'], mikolov))
    )
    path = _docx(tmp_path / "chicago.docx", body, notes)
    doc = read_document(path)
    assert [(r.title, r.label, r.line) for r in doc.references] == [
        ("Long Short-Term Memory", None, 2),
        ("Deep learning", None, 5),
        ("Efficient Estimation of Word Representations in Vector Space", "fn5", None),
    ]
    cited = [(s.text[:12], [e for m in s.markers for e in m.entries]) for s in doc.sentences]
    assert cited == [
        ("Gated memory", [1]),
        ("The cells le", [1]),
        ("Both ideas n", [1, 2]),
        ("Word vectors", [3]),
    ]
    assert doc.warnings == [
        f"{path}: footnote 5: Zotero citation field: its JSON data is not valid (Expecting value "
        "at character 24); the field was skipped"
    ]
    assert doc.unresolved == [] and doc.uncited == []


def test_a_broken_field_is_a_warning_and_the_rest_is_read(tmp_path: Path) -> None:
    """Bad JSON in one Zotero field, XML in one EndNote field: a warning naming the file and the
    paragraph each; the other fields are read."""
    good = _csl_field([DEEP], "(LeCun et al., 2015)")
    broken = _fld(
        [' ADDIN ZOTERO_ITEM CSL_CITATION {"citationItems":[{"id":5,"itemData":{"title":"Eff'],
        "(Mikolov et al., 2013)",
    )
    bad_xml = _fld(
        [" ADDIN EN.CITE <EndNote><Cite><record><titles></EndNote>"], "(Hochreiter, 1997)"
    )
    body = [
        _w_par(_w_run("Deep learning learns representations ") + good + _w_run(".")),
        _w_par(_w_run("Word vectors are cheap to train ") + broken + _w_run(".")),
        _w_par(_w_run("Memory cells help ") + bad_xml + _w_run(".")),
        _w_par(_w_run("References")),
        *_bibliography(ZOTERO_BIBL, [DEEP_APA]),
    ]
    path = _docx(tmp_path / "broken.docx", body)
    doc = read_document(path)
    assert [r.title for r in doc.references] == ["Deep learning"]
    assert len(doc.warnings) == 2
    assert doc.warnings[0].startswith(
        f"{path}: paragraph 2: Zotero citation field: its JSON data is not valid"
    )
    assert doc.warnings[1].startswith(
        f"{path}: paragraph 3: EndNote citation field: its XML is not well-formed"
    )
    # nothing silent: the broken fields' texts are markers that point to no entry
    assert [t for _, _, t in doc.unresolved] == ["Mikolov et al. 2013", "Hochreiter 1997"]


def test_a_field_bibliography_beside_a_typed_list(tmp_path: Path) -> None:
    """Zotero's works and a typed list: the typed entries stay, cited by their typed markers; a
    paragraph of the field's bibliography that renders none of its works stays too (a warning)."""
    body = [
        *ZOTERO_CITES[:2],
        _w_par(
            _w_run(
                "Word vectors are cheap to train (Mikolov et al., 2013), and so are forests "
                "(Pedregosa et al., 2011)."
            )
        ),
        ZOTERO_CITES[2],
        *_bibliography(
            ZOTERO_BIBL,
            [
                LSTM_APA,
                DEEP_APA,
                "Pedregosa, F., Varoquaux, G., et al. (2011). Scikit-learn: Machine learning in "
                "Python. Journal of Machine Learning Research, 12, 2825–2830.",
            ],
        ),
        _w_par(
            _w_run(
                "Mikolov, T., Chen, K., Corrado, G., &amp; Dean, J. (2013). Efficient estimation "
                "of word representations in vector space. arXiv:1301.3781."
            )
        ),
    ]
    path = _docx(tmp_path / "mixed.docx", body)
    doc = read_document(path)
    titles = [r.title for r in doc.references]
    assert titles[:2] == ["Long Short-Term Memory", "Deep learning"]
    assert len(titles) == 4 and all(r.csl is None for r in doc.references[2:])
    assert {r.authors[0].split(",")[0] for r in doc.references[2:]} == {"Pedregosa", "Mikolov"}
    assert doc.warnings == [
        f"{path}: paragraphs 7 of the citation manager's bibliography render no work its citation "
        "fields carry; read as typed entries"
    ]
    cited = {t: m.entries for s in doc.sentences for m in s.markers for t in m.targets}
    assert cited["Mikolov et al. 2013"] and cited["Pedregosa et al. 2011"]
    assert doc.unresolved == [] and doc.uncited == []


def test_other_fields_stay_ignored(tmp_path: Path) -> None:
    """PAGE, HYPERLINK, TOC, REF fields are no citations: their text is text, no work comes of them."""
    toc = _bibliography(' TOC \\o "1-3" \\h \\z \\u ', ["Introduction\t1", "References\t2"])
    body = [
        *toc,
        _w_par(
            _w_run("Deep networks learn layered representations [1], as the code at ")
            + _fld([' HYPERLINK "https://example.org/code" '], "example.org/code")
            + _w_run(" shows on page ")
            + _fld([" PAGE "], "3")
            + _w_run(" and in ")
            + _fld([" REF _Ref123 \\h "], "Table 1")
            + _w_run(".")
        ),
        _w_par(_w_run("References")),
        _w_par(
            _w_run(
                "[1] LeCun, Y., Bengio, Y., &amp; Hinton, G. (2015). Deep learning. Nature, 521, 436–444."
            )
        ),
    ]
    doc = read_document(_docx(tmp_path / "plain.docx", body))
    assert [(r.label, r.title, r.csl, r.key) for r in doc.references] == [
        ("1", "Deep learning", None, None)
    ]
    (s,) = doc.sentences
    assert "example.org/code shows on page 3 and in Table 1." in s.text
    assert [m.entries for m in s.markers] == [[1]] and doc.warnings == []


@pytest.mark.parametrize(
    ("instruction", "kind"),
    [
        (" ADDIN ZOTERO_ITEM CSL_CITATION {}", "csl"),
        ("ADDIN CSL_CITATION {}", "csl"),
        (' ADDIN ZOTERO_BIBL {"uncited":[]} CSL_BIBLIOGRAPHY ', "bibliography"),
        (" ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY ", "bibliography"),
        (" ADDIN EN.CITE <EndNote/>", "endnote"),
        (" ADDIN EN.CITE.DATA ", "endnote-data"),
        (" ADDIN EN.REFLIST ", "bibliography"),
        (" PAGE ", None),
        (' HYPERLINK "https://doi.org/10.1038/nature14539" ', None),
        (' TOC \\o "1-3" ', None),
        (" ADDIN ZOTERO_PREF ", None),
    ],
)
def test_field_kinds(instruction: str, kind: str | None) -> None:
    from citejudge.documents._fields import field_kind

    assert field_kind(instruction) == kind


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300), st.sampled_from(["csl", "endnote"]), st.text(max_size=60))
def test_field_works_never_raise(text: str, kind: str, data: str) -> None:
    """Whatever a field's instruction holds, its works are read or a problem is named."""
    from citejudge.documents._fields import field_works, render_csl

    for prefix in ("", " ADDIN ZOTERO_ITEM CSL_CITATION ", " ADDIN EN.CITE "):
        works, problems = field_works(prefix + text, kind, data)  # type: ignore[arg-type]
        assert works or problems
        for w in works:
            assert w.key and isinstance(render_csl(w.csl), str)


def test_check_document_on_zotero_fields(tmp_path: Path, world: Path) -> None:
    """End to end: the DOI a Zotero field carries matches the world's record ("Yes")."""
    body = [*ZOTERO_CITES, *_bibliography(ZOTERO_BIBL, [LSTM_APA, DEEP_APA])]
    path = _docx(tmp_path / "zotero.docx", body)
    lines = check_document(path, world)
    assert len(lines) == 3
    for ln in lines:
        assert validate_result("references", ln["result"]) == []
    verdicts = [ln["result"]["reference_grounding"] for ln in lines]
    assert verdicts[0].startswith("Yes. Matches W9000000008 via doi")
    assert verdicts[1].startswith("Yes. Matches W9000000004 via doi")
    assert verdicts[2] == verdicts[1]
    manifest = json.loads(path.with_suffix(".results.jsonl.manifest.json").read_text())
    (summary,) = manifest["documents"]
    assert summary["references"] == 2 and summary["reference_grounding"] == {"Yes": 2}
    assert summary["citing_sentences"] == 2 and summary["warnings"] == []


def _mendeley_no_uri(items: list[dict[str, Any]], shown: str) -> str:
    """A Mendeley field whose items carry no URI (numbered "ITEM-1" in every field)."""
    data = {
        "citationItems": [{"id": "ITEM-1", "itemData": it} for it in items],
        "mendeley": {"formattedCitation": shown},
        "properties": {"noteIndex": 0},
    }
    return _fld([" ADDIN CSL_CITATION " + json.dumps(data) + " "], shown)


def test_works_without_uri_or_doi_are_told_apart(tmp_path: Path) -> None:
    """Two fields' "ITEM-1"s with no URI, DOI or title, and two "Editorial"s of one year in
    two journals, are four works (they were two: a marker pointed to the wrong work)."""
    smith = {
        "id": "ITEM-1",
        "type": "report",
        "author": [{"family": "Smith"}],
        "issued": {"date-parts": [[2001]]},
    }
    jones = {
        "id": "ITEM-1",
        "type": "report",
        "author": [{"family": "Jones"}],
        "issued": {"date-parts": [[2005]]},
    }
    ed_nature = {
        "id": "ITEM-1",
        "type": "article-journal",
        "title": "Editorial",
        "container-title": "Nature",
        "issued": {"date-parts": [[2001]]},
    }
    ed_science = {**ed_nature, "container-title": "Science"}  # fmt: skip
    body = [
        _w_par(
            _w_run("Reports disagree ")
            + _mendeley_no_uri([smith], "(Smith, 2001)")
            + _w_run(" with later ones ")
            + _mendeley_no_uri([jones], "(Jones, 2005)")
            + _w_run(". Both journals said so ")
            + _mendeley_no_uri([ed_nature], "(Editorial, 2001a)")
            + _w_run(" and ")
            + _mendeley_no_uri([ed_science], "(Editorial, 2001b)")
            + _w_run(".")
        ),
        _w_par(_w_run("References")),
    ]
    doc = read_document(_docx(tmp_path / "mendeley.docx", body))
    assert len(doc.references) == 4
    assert len({r.key for r in doc.references}) == 4
    assert [m.entries for s in doc.sentences for m in s.markers] == [[1], [2], [3], [4]]


def test_a_field_the_splitter_cut_blocks_no_later_field(tmp_path: Path) -> None:
    """ "(Hochreiter, S. 1997)" holds "S. 1997": the first field is still placed, and so is the
    one after it in the paragraph."""
    body = [
        _w_par(
            _w_run("Memory cells help ")
            + _csl_field([LSTM], "(Hochreiter, S. 1997)")
            + _w_run(". Deep nets work ")
            + _csl_field([DEEP], "(LeCun et al., 2015)")
            + _w_run(".")
        ),
        _w_par(_w_run("References")),
    ]
    doc = read_document(_docx(tmp_path / "cut.docx", body))
    assert [(s.claim, [m.entries for m in s.markers]) for s in doc.sentences] == [
        ("Memory cells help.", [[1]]),
        ("Deep nets work.", [[2]]),
    ]
    assert doc.uncited == [] and doc.warnings == []


def test_a_field_nested_too_deeply_is_a_warning(tmp_path: Path) -> None:
    deep = " ADDIN ZOTERO_ITEM CSL_CITATION " + '{"citationItems":' + "[" * 100_000 + " "
    body = [
        _w_par(_w_run("A claim ") + _fld([deep], "(Deep, 2020)") + _w_run(".")),
        _w_par(
            _w_run("Memory cells help ") + _csl_field([LSTM], "(Hochreiter, 1997)") + _w_run(".")
        ),
        _w_par(_w_run("References")),
    ]
    doc = read_document(_docx(tmp_path / "deep.docx", body))
    assert any("nested too deeply" in w for w in doc.warnings)
    assert [r.title for r in doc.references] == ["Long Short-Term Memory"]


def test_a_typed_entry_renders_a_field_work_only_when_it_opens_with_its_author() -> None:
    from citejudge.documents._fields import renders

    bare = {"type": "report", "author": [{"family": "LeCun", "given": "Yann"}],
            "issued": {"date-parts": [[2015]]}, "volume": "12"}  # fmt: skip
    assert renders("3. LeCun, Y. (2015). Notes on convolution. Tech. rep. 12.", bare)
    # another work of a co-author that year (another volume), or the name inside another
    # entry: no rendering
    assert not renders("LeCun, Y. (2015b). A different paper. J. Conv. 7, 1–9.", bare)
    assert not renders("Bengio, Y., & LeCun, Y. (2015). Another report 12.", bare)
    # title-less physics styles put initials first; Zotero's "1997a" / "1997b" are the year
    assert renders("[1] S. Hochreiter and J. Schmidhuber, Neural Comput. 9, 1735 (1997).", LSTM)
    assert renders("Hochreiter, S. and Schmidhuber, J. (1997b) ‘LSTM’, Neural Comput. 9.", LSTM)


def test_a_field_that_never_ends_is_listed_with_a_warning(tmp_path: Path) -> None:
    """A damaged file: the field begins, shows its text and never ends. Its work is a
    reference, and a warning says no sentence cites it (it was lost without a word)."""
    code = " ADDIN ZOTERO_ITEM CSL_CITATION " + json.dumps(
        _csl_citation([LSTM], "(Hochreiter, 1997)", "ZOTERO")
    )
    unended = (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        f'<w:r><w:instrText xml:space="preserve">{html.escape(code, quote=False)}</w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + _w_run("(Hochreiter, 1997)")
    )
    body = [
        _w_par(_w_run("Memory cells help ") + unended + _w_run(".")),
        _w_par(_w_run("References")),
    ]
    doc = read_document(_docx(tmp_path / "unended.docx", body))
    assert [r.title for r in doc.references] == ["Long Short-Term Memory"]
    assert any("no sentence cites them" in w for w in doc.warnings)


def test_superscript_fields_are_placed_after_a_sentence_with_numbers(tmp_path: Path) -> None:
    """A superscript style shows bare numbers: "1" is not found in "3 datasets", "2019" or
    "120", and no later field is taken for an earlier one."""
    body = [
        _w_par(
            _w_run("In 2019 we enrolled 120 patients from 3 sites. Memory helps")
            + _csl_field([LSTM], "1")
            + _w_run(", depth helps")
            + _csl_field([DEEP], "2")
            + _w_run(" and Adam trains fast")
            + _csl_field([ADAM], "3")
            + _w_run(".")
        ),
        _w_par(_w_run("References")),
    ]
    doc = read_document(_docx(tmp_path / "sup.docx", body))
    assert [(s.claim, [m.entries for m in s.markers]) for s in doc.sentences] == [
        ("Memory helps, depth helps and Adam trains fast.", [[1], [2], [3]])
    ]
    assert doc.uncited == []


def test_a_title_less_bibliography_field_renders_its_works(tmp_path: Path) -> None:
    """APS/AIP style: no titles, initials first; the field's paragraphs are no second copy."""
    body = [
        _w_par(_w_run("Intro")),
        _w_par(
            _w_run("Memory cells help ")
            + _csl_field([LSTM], "[1]")
            + _w_run(". Depth helps ")
            + _csl_field([DEEP], "[2]")
            + _w_run(".")
        ),
        _w_par(_w_run("References")),
        *_bibliography(
            ZOTERO_BIBL,
            [
                "[1] S. Hochreiter and J. Schmidhuber, Neural Comput. 9, 1735 (1997).",
                "[2] Y. LeCun, Y. Bengio, and G. Hinton, Nature 521, 436 (2015).",
            ],
        ),
    ]
    doc = read_document(_docx(tmp_path / "aps.docx", body))
    assert len(doc.references) == 2 and doc.uncited == [] and doc.warnings == []
