"""BibTeX and CSL-JSON worlds."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from citejudge.records import Author, ReadIssue, Work
from citejudge.snapshot import plan_source, read_bibtex_string, read_part, split_bibtex_names

SHARED = Path(__file__).parents[2] / "shared" / "data"
WORLD_BIB = SHARED / "hallmark" / "world.bib"

BIB = r"""@article{good1,
  title = {Deep {L}earning for {\"U}ber Tasks},
  author = {Jiawei He 0002 and Kone{\v{c}}n{\'y}, Jakub and Zhaoxiang Zhang 0001},
  journal = {Journal of Tests},
  year = {2021},
  doi = {https://doi.org/10.1000/ABC},
  pmid = {12345},
  abstract = {An abstract.}
}

@article{broken,
  title = {Unbalanced {brace,
  author = {Some One},
  year = {2020}
}

@misc{arx,
  title = {A Preprint},
  author = {Doe, Jane and others},
  journal = {arXiv preprint arXiv:2106.09685},
  year = 2021
}

@inproceedings{eprint,
  title = "Quoted Title",
  author = {A. Author},
  booktitle = {Proc. of Tests},
  publisher = {ACM},
  eprint = {1706.03762v5},
  archivePrefix = {arXiv},
  year = {2017}
}

@article{good1,
  title = {Second copy},
  year = {2022}
}
"""


def split(out: list[Work | ReadIssue]) -> tuple[list[Work], list[ReadIssue]]:
    return [o for o in out if isinstance(o, Work)], [o for o in out if isinstance(o, ReadIssue)]


def test_bibtex_entries_fields_and_failures(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)
    works, issues = split(list(read_bibtex_string(BIB, "lib.bib")))
    ids = [w.id for w in works]
    # the broken entry swallowed nothing after it: every other entry survives
    assert "bib:good1" in ids and "bib:arx" in ids and "bib:eprint" in ids
    assert ids[-1] == "bib:good1~2"
    w = works[0]
    assert w.title == "Deep Learning for Über Tasks"
    assert w.authors == [
        Author(name="Jiawei He", raw_name="Jiawei He 0002"),
        Author(name="Konečný, Jakub"),
        Author(name="Zhaoxiang Zhang", raw_name="Zhaoxiang Zhang 0001"),
    ]
    assert (w.venue, w.year, w.doi, w.pmid, w.type, w.abstract) == (
        "Journal of Tests",
        2021,
        "10.1000/abc",
        "12345",
        "article",
        "An abstract.",
    )
    arx = next(x for x in works if x.id == "bib:arx")
    assert arx.arxiv == "2106.09685" and arx.venue == "arXiv"
    assert arx.authors == [Author(name="Doe, Jane"), Author(name="others")]  # truncation kept
    ep = next(x for x in works if x.id == "bib:eprint")
    assert ep.arxiv == "1706.03762" and ep.title == "Quoted Title"
    assert ep.venue == "Proc. of Tests" and ep.venue_alt == ["ACM"]
    errors = [i for i in issues if i.kind == "error"]
    assert len(errors) == 1 and errors[0].line == 11 and errors[0].file == "lib.bib"
    warnings = [i for i in issues if i.kind == "warning"]
    assert len(warnings) == 1 and "good1" in warnings[0].message
    # the malformed block was salvaged line by line
    broken = next(x for x in works if x.id == "bib:broken")
    assert broken.year == 2020 and broken.authors == [Author(name="Some One")]


def test_unsalvageable_block_is_skipped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)
    text = "@article{x, title = {ok}}\n@article{\n  junk {{{\n}\n@article{y, title={fine}}\n"
    works, issues = split(list(read_bibtex_string(text, "f.bib")))
    assert [w.id for w in works] == ["bib:x", "bib:y"]
    assert len(issues) == 1 and issues[0].line == 2 and "skipped" in issues[0].message


def test_split_names_respects_braces() -> None:
    assert split_bibtex_names("{Barnes and Noble, Inc.} and Smith, J.") == [
        "{Barnes and Noble, Inc.}",
        "Smith, J.",
    ]
    assert split_bibtex_names("A AND B and  C") == ["A", "B", "C"]


def test_bib_file_via_plan(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)
    f = tmp_path / "lib.bib"
    f.write_text(BIB)
    plan = plan_source(f)
    assert plan.format == "bibtex"
    works, _ = split(list(read_part(plan.parts[0])))
    assert len(works) == 5 and all(w.source == str(f) for w in works)


def test_csl_json_list_and_jsonl(tmp_path: Path) -> None:
    items = [
        {
            "id": "smith2020",
            "type": "article-journal",
            "title": "CSL <i>Title</i>",
            "author": [{"family": "Smith", "given": "Ann"}, {"literal": "The Consortium"}],
            "issued": {"date-parts": [[2020, 3]]},
            "container-title": "Journal X",
            "container-title-short": "J. X",
            "DOI": "10.1000/XYZ",
            "PMID": "999",
            "PMCID": "123",
            "URL": "https://arxiv.org/abs/2001.00001",
        },
        {"type": "book", "title": "No id"},
        "not an object",
    ]
    f = tmp_path / "lib.json"
    f.write_text(json.dumps(items))
    works, issues = split(list(read_part(plan_source(f, fmt="csl").parts[0])))
    assert len(works) == 1 and len(issues) == 2
    w = works[0]
    assert (w.id, w.title, w.year, w.venue, w.venue_alt, w.doi, w.pmid, w.pmcid, w.arxiv) == (
        "csl:smith2020",
        "CSL Title",
        2020,
        "Journal X",
        ["J. X"],
        "10.1000/xyz",
        "999",
        "PMC123",
        "2001.00001",
    )
    # family first, as the item states it (the same form citations' CSL items are read in)
    assert [a.name for a in w.authors] == ["Smith, Ann", "The Consortium"]
    g = tmp_path / "lib.jsonl"
    g.write_text(
        json.dumps(items[0])
        + "\n{bad\n"
        + json.dumps({"id": 7, "title": "t", "issued": {"raw": "1999"}})
        + "\n"
    )
    works2, issues2 = split(list(read_part(plan_source(g, fmt="csl").parts[0])))
    assert [x.id for x in works2] == ["csl:smith2020", "csl:7"] and works2[1].year == 1999
    assert [i.line for i in issues2] == [2]


@pytest.mark.shared
@pytest.mark.skipif(not WORLD_BIB.exists(), reason="../shared data absent")
def test_shared_world_bib(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)
    plan = plan_source(WORLD_BIB)
    works, issues = split(list(read_part(plan.parts[0])))
    # 1,730 entries: 1,726 parse cleanly; 4 have a truncated field (unbalanced braces in the
    # source data) and are recovered line by line, each with an error ReadIssue naming the line
    # where its entry starts.
    assert len(works) == 1730
    assert len({w.id for w in works}) == 1730
    lines = WORLD_BIB.read_text(encoding="utf-8").splitlines()
    assert len(issues) == 4
    assert all(i.line and lines[i.line - 1].lstrip().startswith("@") for i in issues)
    assert all("recovered" in i.message for i in issues)
    he = next(w for w in works if w.id == "bib:world00001")
    assert he.authors[0].name == "Jiawei He"
