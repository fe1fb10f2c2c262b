"""LaTeX documents split over files, as arXiv sources are: the parts are read in where named."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

import citejudge.api
import citejudge.documents
from citejudge.documents import document_files, read_document
from citejudge.documents._archive import is_archive
from citejudge.documents._items import ItemError
from citejudge.io import Item

ROOT = Path(__file__).resolve().parents[1]

BIB = (
    "@article{lecun2015, author={LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey E.},"
    " title={Deep learning}, journal={Nature}, year={2015}, doi={10.1038/nature14539}}\n"
    "@inproceedings{he2016, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian},"
    " title={Deep Residual Learning for Image Recognition}, booktitle={CVPR}, year={2016}}\n"
    "@article{kingma2014, author={Kingma, Diederik P. and Ba, Jimmy}, title={Adam: A Method for"
    " Stochastic Optimization}, journal={arXiv preprint arXiv:1412.6980}, year={2014}}\n"
)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        f = root / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)


def _project(root: Path) -> None:
    """The shape of a real arXiv source: a main file, sections, macros, a figure, a bib folder."""
    _write(
        root,
        {
            "main.tex": (
                "\\documentclass{article}\n"
                "\\input{macros}\n"
                "\\begin{document}\n"
                "\\maketitle\n"
                "\\input{sections/intro}\n"
                "\\include{sections/method}\n"
                "%\\input{sections/old-draft}\n"
                "\\iffalse\n\\input{sections/never-written}\n\\fi\n"
                "\\begin{figure}\\centering\\input{figures/arch.tex}\\end{figure}\n"
                "Residual connections ease optimisation \\citep{he2016}.\n"
                "\\bibliographystyle{plainnat}\n"
                "\\bibliography{bib/refs}\n"
                "\\end{document}\n"
            ),
            "macros.tex": "\\newcommand{\\method}{ResNet}\n",
            "sections/intro.tex": (
                "\\section{Introduction}\n"
                "Deep learning learns representations at several levels of abstraction\n"
                "\\citep{lecun2015}. It needs a good optimiser.\n"
                "\n"
                "Adam adapts the step size of each parameter \\cite{kingma2014}.\n"
            ),
            "sections/method.tex": (
                "\\section{Method}\n"
                "We train with Adam \\citep{kingma2014} as others did \\cite{smith2099}.\n"
            ),
            "sections/old-draft.tex": "Old text \\cite{lecun2015}.\n",
            "figures/arch.tex": (
                "\\documentclass{standalone}\n\\begin{document}\n"
                "\\begin{tikzpicture}\\end{tikzpicture}\n\\end{document}\n"
            ),
            "bib/refs.bib": BIB,
        },
    )


def test_parts_are_read_where_named_and_sentences_name_their_file(tmp_path: Path) -> None:
    _project(tmp_path)
    doc = read_document(tmp_path / "main.tex")
    assert [r.key for r in doc.references] == ["lecun2015", "kingma2014", "he2016"]
    assert doc.warnings == []  # the commented and \iffalse'd parts are not looked for
    got = [(s.source, s.line, s.entries, s.claim) for s in doc.sentences]
    intro, method = str(tmp_path / "sections/intro.tex"), str(tmp_path / "sections/method.tex")
    assert got == [
        (intro, 3, [1], "Deep learning learns representations at several levels of abstraction."),
        (intro, 5, [2], "Adam adapts the step size of each parameter."),
        (method, 2, [2], "We train with Adam as others did."),
        (None, 12, [3], "Residual connections ease optimisation."),  # main.tex, after the parts
    ]
    items, _ = citejudge.documents.load_documents([tmp_path / "main.tex"])
    errors = [i for i in items if isinstance(i, ItemError)]
    assert [(e.file, e.line, e.field) for e in errors] == [(method, 2, "marker")]
    rows = [i.data["document"] for i in items if not isinstance(i, ItemError)]
    assert [(d.get("source"), d.get("line")) for d in rows] == [
        (intro, 3),
        (intro, 5),
        (method, 2),
        (None, 12),
    ]


def test_a_project_folder_is_one_document(tmp_path: Path) -> None:
    _project(tmp_path)
    # parts, the figure compiled apart and the bib in its own folder are not documents
    assert document_files([tmp_path]) == [tmp_path / "main.tex"]
    # a .bib no .tex names stays a document of its own (a reference list alone)
    _write(tmp_path, {"other/list.bib": BIB})
    assert document_files([tmp_path]) == [tmp_path / "main.tex", tmp_path / "other/list.bib"]


def test_subfiles_imports_and_tex_input_without_braces(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "paper.tex": (
                "\\documentclass{article}\n\\usepackage{subfiles,import}\n\\begin{document}\n"
                "\\subfile{sections/a}\n"
                "\\import{sections/}{b}\n"
                "\\input sections/c\n"
                "\\bibliography{refs}\n\\end{document}\n"
            ),
            # a subfile compiles alone: its preamble and document environment are not text
            "sections/a.tex": (
                "\\documentclass[../paper.tex]{subfiles}\n\\begin{document}\n"
                "Deep networks \\cite{lecun2015}.\n\\end{document}\n"
            ),
            # \subimport is relative to the file that names it
            "sections/b.tex": "\\subimport{parts/}{d}\n",
            "sections/parts/d.tex": "Residual networks \\cite{he2016}.\n",
            "sections/c.tex": "Adam \\cite{kingma2014}.\n",
            "refs.bib": BIB,
        },
    )
    doc = read_document(tmp_path / "paper.tex")
    assert [(Path(s.source or "").name, s.line, s.entries) for s in doc.sentences] == [
        ("a.tex", 3, [1]),
        ("d.tex", 1, [2]),
        ("c.tex", 1, [3]),
    ]
    assert document_files([tmp_path]) == [tmp_path / "paper.tex"]


def test_missing_and_circular_parts_are_warnings(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "main.tex": (
                "\\documentclass{article}\\begin{document}\n"
                "\\input{sections/missing}\n\\input{loop}\n"
                "Deep learning \\cite{lecun2015}.\n\\bibliography{refs}\n\\end{document}\n"
            ),
            "loop.tex": "\\input{loop}\nAdam \\cite{kingma2014}.\n",
            "refs.bib": BIB,
        },
    )
    doc = read_document(tmp_path / "main.tex")
    assert [s.entries for s in doc.sentences] == [[1], [2]]  # in order of first citation
    assert doc.sentences[0].source == str(tmp_path / "loop.tex")
    assert doc.sentences[1].source is None and doc.sentences[1].line == 4
    assert len(doc.warnings) == 2
    assert (
        "main.tex, line 2: \\input{sections/missing} names a file that was not found"
        in (doc.warnings[0])
    )
    assert "loop.tex, line 1" in doc.warnings[1] and "itself" in doc.warnings[1]


def test_a_single_file_keeps_its_lines(tmp_path: Path) -> None:
    """Without parts, each sentence is on its cite command's line of the file itself."""
    (tmp_path / "refs.bib").write_text(BIB)
    tex = tmp_path / "one.tex"
    tex.write_text(
        "\\documentclass{article}\n\\begin{document}\n"
        "Deep learning works\n\\citep{lecun2015}. Adam too \\cite{kingma2014}.\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    assert [(s.source, s.line) for s in doc.sentences] == [(None, 4), (None, 4)]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from citejudge.index import build_index

    out = tmp_path_factory.mktemp("w") / "world.index"
    build_index([ROOT / "demo" / "world" / "works.jsonl"], out)
    return out


def test_check_a_project_folder_and_its_manifest(tmp_path: Path, world: Path) -> None:
    """The CLI checks the folder as one document; the manifest hashes every file it read."""
    from citejudge.cli import main

    proj = tmp_path / "paper"
    _project(proj)
    out = tmp_path / "res.jsonl"
    argv = ["check", "document", str(proj), "--index", str(world), "--out", str(out), "--no-llm"]
    assert main([*argv, "-q"]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    intro, method = str(proj / "sections/intro.tex"), str(proj / "sections/method.tex")
    where = [ln["details"]["input_extra"]["document"].get("source") for ln in lines[:-1]]
    assert where == [intro, intro, method, None]
    assert all(ln["result"]["reference_grounding"].startswith("Yes") for ln in lines[:-1])
    assert lines[-1]["error"]["file"] == method and lines[-1]["error"]["line"] == 2
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text())
    files = {Path(f["path"]).relative_to(proj).as_posix(): f for f in manifest["input"]["files"]}
    assert list(files) == [
        "main.tex",
        "macros.tex",
        "sections/intro.tex",
        "sections/method.tex",
        "figures/arch.tex",
        "bib/refs.bib",
    ]
    assert all(f["sha256"] for f in files.values())
    assert files["main.tex"]["items"] + files["sections/method.tex"]["items"] == len(lines)


def test_a_resumed_run_sees_a_changed_part(tmp_path: Path, world: Path) -> None:
    """A part edited between a run and its resume is a changed input, like the document."""
    from citejudge.errors import CitejudgeError

    proj = tmp_path / "paper"
    _project(proj)
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        f"task: references\ndocument: {proj}\nindex: {world}\nout: {tmp_path / 'run'}\n"
        "model: none\n"
    )
    assert citejudge.api.run(cfg).items == 5
    assert citejudge.api.run(cfg, resume=True).items == 5  # nothing changed: nothing redone
    part = proj / "sections/intro.tex"
    part.write_text(part.read_text().replace("Adam adapts", "Adam scales"))
    with pytest.raises(CitejudgeError, match=r"changed .*sections/intro\.tex"):
        citejudge.api.run(cfg, resume=True)


def _tar(src: Path, out: Path, *, prefix: str = "") -> Path:
    with tarfile.open(out, "w:gz") as tf:
        for f in sorted(src.rglob("*")):
            if f.is_file():
                tf.add(f, arcname=prefix + f.relative_to(src).as_posix())
    return out


def test_an_arxiv_source_archive_is_read_as_its_main_document(tmp_path: Path) -> None:
    """The source bundle arXiv hands out: the main file is the document, named inside the archive."""
    proj = tmp_path / "src"
    _project(proj)
    (proj / "figures/loss.pdf").write_bytes(b"%PDF-1.5 figure\n")  # a figure, not a document
    archive = _tar(proj, tmp_path / "arXiv-2301.00001v1.tar.gz")
    items, docs = citejudge.documents.load_documents([archive])
    assert [d.path for d in docs if not isinstance(d, Exception)] == [f"{archive}/main.tex"]
    ids = [i.id for i in items]
    assert ids[0] == f"{archive}/main.tex#ref1/s1" and len(ids) == 5
    method = f"{archive}/sections/method.tex"
    errors = [i for i in items if isinstance(i, ItemError)]
    assert [(e.file, e.line) for e in errors] == [(method, 2)]
    sources = [i.data["document"].get("source") for i in items if not isinstance(i, ItemError)]
    assert sources == [f"{archive}/sections/intro.tex"] * 2 + [method, None]
    assert not any("citejudge-archive-" in json.dumps(i.data) for i in items if isinstance(i, Item))
    # the same archive read again gives the same ids (a run over it can be resumed)
    again, _ = citejudge.documents.load_documents([archive])
    assert [i.id for i in again] == ids


def test_a_folder_of_archives_and_bad_archives(tmp_path: Path) -> None:
    proj = tmp_path / "src"
    _project(proj)
    batch = tmp_path / "batch"
    batch.mkdir()
    _tar(proj, batch / "a.tgz")
    with zipfile.ZipFile(batch / "b.zip", "w") as zf:
        for f in sorted(proj.rglob("*")):
            if f.is_file():
                zf.write(f, "paper/" + f.relative_to(proj).as_posix())
    (batch / "broken.tar.gz").write_bytes(b"not a tar")
    with tarfile.open(batch / "empty.tar", "w") as tf:
        data = b"just a readme"
        info = tarfile.TarInfo("README")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    evil = batch / "evil.tar"
    with tarfile.open(evil, "w") as tf:
        info = tarfile.TarInfo("../escape.tex")
        info.size = 3
        tf.addfile(info, io.BytesIO(b"abc"))
    assert document_files([batch]) == sorted(batch.iterdir())
    items, docs = citejudge.documents.load_documents([batch])
    names = [d.path if not isinstance(d, Exception) else d.message.split(":")[0] for d in docs]
    assert names == [
        f"{batch}/a.tgz/main.tex",
        f"{batch}/b.zip/paper/main.tex",
        f"{batch}/broken.tar.gz",
        f"{batch}/empty.tar",
        f"{batch}/evil.tar",
    ]
    errors = {e.file: e.message for e in items if isinstance(e, ItemError) and e.field is None}
    assert "cannot be unpacked" in errors[f"{batch}/broken.tar.gz"]
    assert "holds no document" in errors[f"{batch}/empty.tar"]
    assert "cannot be unpacked" in errors[f"{batch}/evil.tar"]  # refused, nothing written outside
    assert not (tmp_path / "escape.tex").exists()


# biber's .bbl for biblatex (the shape arXiv asks biblatex users to upload beside the .tex):
# structured entries, names in parts, LaTeX macros for initials and ranges, and the same entry
# listed again under a second sorting scheme.
BIBER_BBL = r"""% $ biblatex auxiliary file $
\begingroup
\makeatletter
\refsection{0}
  \datalist[entry]{nyt/global//global/global/global}
    \entry{lecun2015}{article}{}{}
      \name{author}{3}{}{%
        {{un=0,uniquepart=base,hash=4c5d}{%
           family={LeCun},
           familyi={L\bibinitperiod},
           given={Yann},
           giveni={Y\bibinitperiod},
           givenun=0}}%
        {{un=0,uniquepart=base,hash=9a1e}{%
           family={Bengio},
           familyi={B\bibinitperiod},
           given={Yoshua},
           giveni={Y\bibinitperiod},
           givenun=0}}%
        {{un=0,uniquepart=base,hash=77f0}{%
           family={Hinton},
           familyi={H\bibinitperiod},
           given={Geoffrey\bibnamedelima E.},
           giveni={G\bibinitperiod\bibinitdelim E\bibinitperiod},
           givenun=0}}%
      }
      \strng{namehash}{3b4e}
      \strng{fullhash}{3b4e}
      \field{sortinit}{L}
      \field{sortinithash}{7c47}
      \field{labelnamesource}{author}
      \field{labeltitlesource}{title}
      \field{journaltitle}{Nature}
      \field{number}{7553}
      \field{title}{Deep learning}
      \field{volume}{521}
      \field{year}{2015}
      \field{pages}{436\bibrangedash 444}
      \range{pages}{9}
      \verb{doi}
      \verb 10.1038/nature14539
      \endverb
    \endentry
    \entry{kingma2014}{misc}{}{}
      \name[default][en-us]{author}{2}{}{%
        {{hash=aa01}{%
           family={Kingma},
           familyi={K\bibinitperiod},
           given={Diederik\bibnamedelima P.},
           giveni={D\bibinitperiod\bibinitdelim P\bibinitperiod}}}%
        {{hash=bb02}{%
           family={Ba},
           familyi={B\bibinitperiod},
           given={Jimmy},
           giveni={J\bibinitperiod}}}%
      }
      \field{title}{Adam: {A} Method for Stochastic Optimization}
      \field{eprinttype}{arXiv}
      \field{year}{2014}
      \verb{eprint}
      \verb 1412.6980
      \endverb
    \endentry
  \enddatalist
  \datalist[entry]{ynt/global//global/global/global}
    \entry{lecun2015}{article}{}{}
      \field{title}{Deep learning}
    \endentry
  \enddatalist
\endrefsection
\endgroup
"""

# biber 1.x (older arXiv sources): a name's parts by position after its hash group.
BIBER1_BBL = r"""\entry{he2016}{inproceedings}{}
  \name{author}{2}{}{%
    {{uniquename=0,hash=1d2e}{He}{H\bibinitperiod}{Kaiming}{K\bibinitperiod}{}{}{}{}}%
    {{uniquename=0,hash=2e3f}{Zhang}{Z\bibinitperiod}{Xiangyu}{X\bibinitperiod}{}{}{}{}}%
  }
  \list{location}{1}{%
    {Las Vegas}%
  }
  \field{booktitle}{Proceedings of the {IEEE} Conference on Computer Vision and Pattern Recognition}
  \field{title}{Deep Residual Learning for Image Recognition}
  \field{year}{2016}
\endentry
"""


def test_a_biblatex_bbl_is_read_as_the_bibtex_it_stands_for(tmp_path: Path) -> None:
    (tmp_path / "paper.bbl").write_text(BIBER_BBL)
    tex = tmp_path / "paper.tex"
    tex.write_text(
        "\\documentclass{article}\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n"
        "Deep learning learns layered representations \\autocite{lecun2015}.\n"
        "Adam adapts each step \\parencite{kingma2014}.\n\\printbibliography\n\\end{document}\n"
    )
    doc = read_document(tex)
    assert [r.key for r in doc.references] == ["lecun2015", "kingma2014"]  # listed once
    lecun, adam = doc.references
    assert lecun.authors == ["LeCun, Yann", "Bengio, Yoshua", "Hinton, Geoffrey E."]
    assert (lecun.year, lecun.title) == (2015, "Deep learning")
    assert "journal = {Nature}" in lecun.text and "pages = {436--444}" in lecun.text
    assert "doi = {10.1038/nature14539}" in lecun.text
    assert "sortinit" not in lecun.text and "hash" not in lecun.text  # biber's own fields
    assert adam.authors == ["Kingma, Diederik P.", "Ba, Jimmy"] and adam.year == 2014
    assert "eprint = {1412.6980}" in adam.text
    assert [s.entries for s in doc.sentences] == [[1], [2]]

    from citejudge.readers.bibtex import parse_bibtex_entry

    assert parse_bibtex_entry(lecun.text).doi == ["10.1038/nature14539"]
    assert parse_bibtex_entry(adam.text).arxiv == "1412.6980"


def test_biber1_names_and_an_empty_bbl(tmp_path: Path) -> None:
    from citejudge.documents._bib import bbl_entries

    (he,) = bbl_entries(BIBER1_BBL)
    assert he.authors == ["He, Kaiming", "Zhang, Xiangyu"] and he.year == 2016
    assert he.title == "Deep Residual Learning for Image Recognition"
    assert "address = {Las Vegas}" not in he.text and "location = {Las Vegas}" in he.text
    # a .bbl with no entry (a stale or aborted run) does not hide the .bib
    (tmp_path / "refs.bib").write_text(BIB)
    (tmp_path / "p.bbl").write_text("\\begingroup\n\\refsection{0}\n\\endrefsection\n\\endgroup\n")
    tex = tmp_path / "p.tex"
    tex.write_text(
        "\\documentclass{article}\\begin{document}\nDeep learning \\cite{lecun2015}.\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    assert [r.key for r in doc.references] == ["lecun2015"]
    assert doc.warnings == ["p.bbl lists no entry; the reference list is read without it"]


def test_every_natbib_and_biblatex_cite_command_is_a_marker(tmp_path: Path) -> None:
    """Capitalised natbib commands, biblatex's multicites and full cites were dropped silently."""
    (tmp_path / "refs.bib").write_text(BIB)
    tex = tmp_path / "p.tex"
    tex.write_text(
        "\\documentclass{article}\\begin{document}\n"
        "\\Citet{lecun2015} showed that deep learning works.\n"
        "Adam is popular \\cites{kingma2014}{he2016}.\n"
        "Residual nets \\parencites(see)()[][p.~3]{he2016}[also]{lecun2015} help.\n"
        "\\Citeauthor{he2016} proposed residual learning.\n"
        "\\Textcites{he2016}{kingma2014} came later.\n"
        "The Adam paper \\fullcite{kingma2014} is cited in full.\n"
        "Deep nets are everywhere \\Parencite[ch.~2]{lecun2015}.\n"
        "A macro of our own \\mycite{lecun2015} and \\mycite{he2016} is not read.\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    got = [(s.line, s.entries, s.claim) for s in doc.sentences]
    assert got == [
        (2, [1], "LeCun et al. showed that deep learning works."),
        (3, [2, 3], "Adam is popular."),
        (4, [3, 1], "Residual nets help."),
        (5, [3], "He et al. proposed residual learning."),
        (6, [3, 2], "He et al. and Kingma and Ba came later."),  # every work's authors
        (7, [2], "The Adam paper is cited in full."),
        (8, [1], "Deep nets are everywhere."),
    ]
    assert doc.sentences[2].markers[0].text == (
        "\\parencites(see)()[][p.~3]{he2016}[also]{lecun2015}"
    )
    assert doc.warnings == [
        "2 citation commands of a kind not read: \\mycite (2); the sentences they cite in "
        "are not checked for them"
    ]


def test_the_documents_own_cite_macros_are_markers(tmp_path: Path) -> None:
    """One-argument macros that wrap a cite command, as papers define them in the preamble."""
    (tmp_path / "refs.bib").write_text(BIB)
    tex = tmp_path / "p.tex"
    tex.write_text(
        "\\documentclass{article}\n"
        "\\newcommand{\\mycite}[1]{\\citep{#1}}\n"
        "\\newcommand*\\citeboth[1]{\\citeauthor{#1}~\\citep{#1}}\n"
        "\\def\\rcite#1{~\\cite{#1}}\n"
        "\\newcommand{\\seecite}[2]{see \\cite[#2]{#1}}\n"
        "\\begin{document}\n"
        "Deep learning works \\mycite{lecun2015}.\n"
        "\\citeboth{he2016} proposed residual learning.\n"
        "Adam adapts steps\\rcite{kingma2014}.\n"
        "Two arguments are not read \\seecite{lecun2015}{p. 4}.\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    got = [(s.claim, s.entries, s.markers[0].text) for s in doc.sentences]
    assert got == [
        ("Deep learning works.", [1], "\\mycite{lecun2015}"),
        ("He et al. proposed residual learning.", [2], "\\citeboth{he2016}"),
        ("Adam adapts steps.", [3], "\\rcite{kingma2014}"),
    ]
    assert len(doc.warnings) == 1 and "\\seecite (1)" in doc.warnings[0]


def test_captions_cite_and_table_cells_are_counted(tmp_path: Path) -> None:
    """A figure's caption that credits a work was dropped with the figure; now it is a sentence."""
    (tmp_path / "refs.bib").write_text(BIB)
    tex = tmp_path / "p.tex"
    tex.write_text(
        "\\documentclass{article}\\begin{document}\n"
        "\\begin{figure}[t]\n\\centering\n\\includegraphics[width=\\linewidth]{arch}\n"
        "\\caption{The residual block, adapted from \\citet{he2016}.}\n\\label{fig:arch}\n"
        "\\end{figure}\n\n"
        "\\begin{table}[h]\n\\caption[Baselines]{Results of the baselines \\citep{kingma2014}.}\n"
        "\\begin{tabular}{lc}\nResNet \\cite{he2016} & 76.1 \\\\\n"
        "Adam \\cite{kingma2014} & 70.2 \\\\\n\\end{tabular}\n\\end{table}\n"
        "\\begin{equation} x = 1 \\end{equation}\n"
        "Adam is common \\cite{kingma2014}.\n\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    assert [(s.line, s.entries, s.claim) for s in doc.sentences] == [
        (5, [1], "The residual block, adapted from He et al."),
        (10, [2], "Results of the baselines."),
        (17, [2], "Adam is common."),
    ]
    assert doc.warnings == [
        "2 citation commands in figures, tables, equations or listings outside their captions "
        "(a table's cells) are not checked"
    ]


def test_arxiv_e_print_downloads_without_a_suffix(tmp_path: Path) -> None:
    """arXiv's e-print file is named by the identifier: a gzipped tar, or one gzipped .tex."""
    proj = tmp_path / "src"
    _project(proj)
    bundle = _tar(proj, tmp_path / "2301.00001v1")
    single = tmp_path / "2302.00002"
    (tmp_path / "refs.bib").write_text(BIB)
    tex = (
        "\\documentclass{article}\\begin{document}\nDeep learning \\cite{lecun2015}.\n"
        "\\begin{thebibliography}{1}\n\\bibitem{lecun2015} Y. LeCun, Y. Bengio, and G. Hinton. "
        "Deep learning. Nature, 521:436--444, 2015.\n\\end{thebibliography}\n\\end{document}\n"
    )
    single.write_bytes(gzip.compress(tex.encode()))
    not_archive = tmp_path / "NOTES"
    not_archive.write_text("plain notes, no document")
    assert [is_archive(p) for p in (bundle, single, not_archive, tmp_path / "refs.bib")] == [
        True,
        True,
        False,
        False,
    ]
    _, docs = citejudge.documents.load_documents([bundle, single])
    assert [d.path for d in docs if not isinstance(d, Exception)] == [
        f"{bundle}/main.tex",
        f"{single}/main.tex",
    ]
    assert [len(d.sentences) for d in docs if not isinstance(d, Exception)] == [4, 1]


def test_a_bbl_alone_is_a_reference_list(tmp_path: Path) -> None:
    """A .bbl handed over on its own (BibTeX's or biber's) is a list with no text, like a .bib."""
    (tmp_path / "biber.bbl").write_text(BIBER_BBL)
    (tmp_path / "plain.bbl").write_text(
        "\\begin{thebibliography}{1}\n\\bibitem{he2016} K. He, X. Zhang, S. Ren, and J. Sun.\n"
        "\\newblock Deep residual learning for image recognition.\n\\newblock In CVPR, 2016.\n"
        "\\end{thebibliography}\n"
    )
    (tmp_path / "empty.bbl").write_text("% nothing\n")
    assert [r.key for r in read_document(tmp_path / "biber.bbl").references] == [
        "lecun2015",
        "kingma2014",
    ]
    (he,) = read_document(tmp_path / "plain.bbl").references
    assert he.year == 2016 and he.title == "Deep residual learning for image recognition"
    with pytest.raises(citejudge.documents.DocumentError, match="no \\\\bibitem or \\\\entry"):
        read_document(tmp_path / "empty.bbl")
    # beside its .tex, a .bbl is the document's, not a document of its own
    (tmp_path / "biber.tex").write_text("\\documentclass{article}\\begin{document}\\end{document}")
    assert tmp_path / "biber.bbl" not in document_files([tmp_path])


def test_notes_that_cite_and_notes_that_are_the_references(tmp_path: Path) -> None:
    """Humanities and law write references in footnotes; others cite inside a note."""
    tex = tmp_path / "essay.tex"
    tex.write_text(
        "\\documentclass{article}\n\\begin{document}\n"
        "Deep learning changed the field.\\footnote{Y. LeCun, Y. Bengio and G. Hinton, "
        "``Deep learning,'' \\emph{Nature} 521 (2015): 436--444.}\n"
        "Residual networks went deeper\\footnote{K. He et al., Deep Residual Learning for Image "
        "Recognition, CVPR 2016, pp. 770--778.} than before.\n"
        "The survey says so again.\\footnote{Ibid., 440.}\n"
        "We thank the reviewers.\\footnote{All errors are ours.}\n\\end{document}\n"
    )
    doc = read_document(tex)
    assert [(r.label, r.year) for r in doc.references] == [("fn1", 2015), ("fn2", 2016)]
    assert [(s.line, s.entries, s.claim) for s in doc.sentences] == [
        (3, [1], "Deep learning changed the field."),
        (4, [2], "Residual networks went deeper than before."),
        (5, [2], "The survey says so again."),  # "Ibid." is the note before
    ]
    # with a .bib, a note's own citation is a sentence apart, and the text keeps no note
    (tmp_path / "refs.bib").write_text(BIB)
    paper = tmp_path / "paper.tex"
    paper.write_text(
        "\\documentclass{article}\\begin{document}\n"
        "Results hold.\\footnote{See also \\citet{he2016} for a deeper net.} Adam helps "
        "\\cite{kingma2014}.\n\\bibliography{refs}\n\\end{document}\n"
    )
    doc = read_document(paper)
    assert [(s.entries, s.claim) for s in doc.sentences] == [
        ([2], "Adam helps."),
        ([1], "See also He et al. for a deeper net."),
    ]
    # a document with neither a list nor notes that read as references
    bare = tmp_path / "bare.tex"
    bare.write_text(
        "\\documentclass{article}\\begin{document}\nText.\\footnote{A remark.}\n\\end{document}\n"
    )
    with pytest.raises(citejudge.documents.DocumentError, match="no reference list found"):
        read_document(bare)
