"""A .bib entry read on its own keeps what its library gives it: @string abbreviations, crossref."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.documents import read_document
from citejudge.io import read_items
from citejudge.readers.bibtex import parse_bibtex_entry
from citejudge.text.bibtex_library import bibtex_strings, resolve_bibtex_blocks

# The shape of IEEE's IEEEabrv.bib (upper-case @STRING, names with underscores), which IEEE
# templates name beside the references: \bibliography{IEEEabrv,refs}.
IEEEABRV = """@STRING{IEEE_J_PAMI       = "{IEEE} Trans. Pattern Anal. Mach. Intell."}
@STRING{IEEE_J_IP         = "{IEEE} Trans. Image Process."}
"""

# A DBLP export "with crossref": the paper names its proceedings, which holds booktitle and year.
DBLP = """@inproceedings{DBLP:conf/cvpr/HeZRS16,
  author    = {Kaiming He and Xiangyu Zhang and Shaoqing Ren and Jian Sun},
  title     = {Deep Residual Learning for Image Recognition},
  pages     = {770--778},
  crossref  = {DBLP:conf/cvpr/2016},
  timestamp = {Wed, 16 Oct 2019 14:14:50 +0200},
}

@proceedings{DBLP:conf/cvpr/2016,
  title     = {2016 {IEEE} Conference on Computer Vision and Pattern Recognition, {CVPR} 2016,
               Las Vegas, NV, USA, June 27-30, 2016},
  publisher = {{IEEE} Computer Society},
  year      = {2016},
  doi       = {10.1109/CVPR.2016},
  isbn      = {978-1-4673-8851-1},
}
"""

REFS = """@string{cvpr = "Conference on Computer Vision and Pattern Recognition"}

@article{lowe2004,
  author = {Lowe, David G.},
  title = {Distinctive Image Features from Scale-Invariant Keypoints},
  journal = IEEE_J_PAMI,
  year = 2004, month = nov,
}

@inproceedings{dalal2005,
  author = {Dalal, Navneet and Triggs, Bill},
  title = {Histograms of Oriented Gradients for Human Detection},
  booktitle = "Proc. IEEE " # cvpr,
  year = {2005},
}

@article{plain2015,
  author = {LeCun, Yann},
  title = {Deep learning},
  journal = {Nature},
  year = {2015},
}
"""


def _blocks(text: str) -> list[str]:
    import re

    starts = [m.start() for m in re.finditer(r"(?m)^@(?!string)", text)]
    return [text[s:e].strip() for s, e in zip(starts, [*starts[1:], len(text)], strict=True)]


def test_string_abbreviations_from_another_file_and_concatenation() -> None:
    strings = bibtex_strings(REFS, bibtex_strings(IEEEABRV))
    assert strings["ieee_j_pami"] == "{IEEE} Trans. Pattern Anal. Mach. Intell."
    lowe, dalal, plain = resolve_bibtex_blocks(_blocks(REFS), strings)
    assert "journal = {{IEEE} Trans. Pattern Anal. Mach. Intell.}" in lowe
    assert "month = {November}" in lowe and "year = {2004}" in lowe
    assert parse_bibtex_entry(lowe).venue == "IEEE Trans. Pattern Anal. Mach. Intell"
    assert "booktitle = {Proc. IEEE Conference on Computer Vision and Pattern Recognition}" in dalal
    assert plain == _blocks(REFS)[2]  # nothing to resolve: the entry as written


def test_crossref_gives_booktitle_and_year_never_identifiers() -> None:
    paper, proceedings = resolve_bibtex_blocks(_blocks(DBLP))
    cw = parse_bibtex_entry(paper)
    assert cw.year == 2016 and cw.venue and cw.venue.startswith("2016 IEEE Conference on")
    assert cw.doi == [] and "isbn" not in paper and "timestamp" in paper
    assert "publisher = {{IEEE} Computer Society}" in paper
    assert proceedings == _blocks(DBLP)[1]
    # a crossref to an entry the library lacks leaves the entry as it is
    (alone,) = resolve_bibtex_blocks(_blocks(DBLP)[:1])
    assert alone == _blocks(DBLP)[0]


def test_a_latex_document_reads_its_bib_files_as_one_library(tmp_path: Path) -> None:
    (tmp_path / "IEEEabrv.bib").write_text(IEEEABRV)
    (tmp_path / "refs.bib").write_text(REFS + DBLP)
    tex = tmp_path / "p.tex"
    tex.write_text(
        "\\documentclass{article}\\begin{document}\n"
        "SIFT keypoints \\cite{lowe2004}. Residual learning \\cite{DBLP:conf/cvpr/HeZRS16}.\n"
        "\\bibliography{IEEEabrv,refs}\n\\end{document}\n"
    )
    doc = read_document(tex)
    lowe, he = doc.references
    venue = parse_bibtex_entry(lowe.text).venue
    assert venue == "IEEE Trans. Pattern Anal. Mach. Intell"  # the reader drops a final stop
    assert he.year == 2016 and (lowe.line, he.line) == (3, 23)  # lines of refs.bib


def test_check_references_on_a_bib_file_resolves_its_entries(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(REFS + "\n@comment{jabref-meta: databaseType:bibtex;}\n" + DBLP)
    items = list(read_items(bib))
    assert [i.id for i in items] == [  # type: ignore[union-attr]
        "lowe2004",
        "dalal2005",
        "plain2015",
        "DBLP:conf/cvpr/HeZRS16",
        "DBLP:conf/cvpr/2016",
    ]
    texts = [i.data["full_citation"] for i in items]  # type: ignore[union-attr]
    assert "Proc. IEEE Conference on Computer Vision" in texts[1]
    assert "@comment" not in texts[2]  # an entry ends where the next block starts
    assert parse_bibtex_entry(texts[3]).year == 2016


_name = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


_text = st.text(alphabet=st.sampled_from("abc XYZ-.,:;0123{}"), max_size=20).filter(_balanced)


@settings(max_examples=150, deadline=None)
@given(
    fields=st.dictionaries(_name, _text, min_size=1, max_size=5),
    macro=_name,
    value=_text,
)
def test_resolution_is_idempotent_and_leaves_plain_entries_alone(
    fields: dict[str, str], macro: str, value: str
) -> None:
    plain = "@misc{k,\n" + ",\n".join(f"  {n} = {{{v}}}" for n, v in fields.items()) + "\n}"
    assert resolve_bibtex_blocks([plain]) == [plain]
    uses = plain[:-2] + f",\n  zzmacro = {macro} # {{!}}\n}}"
    strings = bibtex_strings(f'@string{{{macro} = "{value}"}}')
    once = resolve_bibtex_blocks([uses], strings)
    assert resolve_bibtex_blocks(once, strings) == once
    assert f"zzmacro = {{{value}!}}" in once[0]
