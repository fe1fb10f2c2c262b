"""Reference grounding on the shapes real OpenAlex records take (issue: real OpenAlex, not clean worlds).

The fixture records are written here, in the OpenAlex API's Work shape, after record shapes
seen in the real snapshot: an arXiv-primary work and its proceedings twin as two works; a
bioRxiv preprint and its journal twin (different years); a duplicate work with a second DOI;
an editorial printed in several journals; two different works sharing a one-word title; a
PubMed record without PMCID; a proceedings paper whose only venue is its book series.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.index import WorldIndex, build_index
from citejudge.match import check_citation, parse_citation_string, parse_metadata
from citejudge.match.citation import CitedWork
from citejudge.match.resolve import Verdict


def _authorships(names: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "author_position": "first" if i == 0 else "middle",
            "author": {"id": None, "display_name": n},
            "raw_author_name": n,
        }
        for i, n in enumerate(names)
    ]


def _loc(
    source: str | None,
    stype: str,
    version: str | None,
    *,
    landing: str | None = None,
    host: str | None = None,
    raw: str | None = None,
) -> dict[str, Any]:
    src = (
        {"id": "S1", "display_name": source, "type": stype, "host_organization_name": host}
        if source
        else None
    )
    loc = {
        "is_oa": True,
        "landing_page_url": landing,
        "pdf_url": None,
        "source": src,
        "version": version,
    }
    if raw is not None:
        loc["raw_source_name"] = raw  # (the 2025 schema's field)
    return loc


def _work(
    wid: str,
    title: str,
    year: int,
    authors: list[str],
    *,
    doi: str | None = None,
    wtype: str = "article",
    locations: list[dict[str, Any]],
    ids: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/{wid}",
        "doi": f"https://doi.org/{doi}" if doi else None,
        "title": title,
        "display_name": title,
        "publication_year": year,
        "publication_date": f"{year}-06-01",
        "type": wtype,
        "ids": {
            "openalex": f"https://openalex.org/{wid}",
            **({"doi": f"https://doi.org/{doi}"} if doi else {}),
            **(ids or {}),
        },
        "authorships": _authorships(authors),
        "primary_location": locations[0],
        "locations": locations,
        "is_retracted": False,
        "updated_date": "2026-01-01T00:00:00",
    }


TRANSFORMER = ["Ada Vance", "Bo Lindqvist", "Chen Wei", "Dara Okafor"]
SCREEN = ["Michael Hertz", "Christina Kaiba", "Megan Bloom"]
RECORDS = [
    # arXiv-primary work and its proceedings twin: two works
    _work(
        "W101",
        "Sparse Attention Routers for Long Sequences",
        2021,
        TRANSFORMER,
        doi="10.48550/arxiv.2106.01234",
        wtype="preprint",
        locations=[
            _loc(
                "arXiv (Cornell University)",
                "repository",
                "submittedVersion",
                landing="https://arxiv.org/abs/2106.01234",
            )
        ],
    ),
    _work(
        "W102",
        "Sparse attention routers for long sequences",
        2021,
        TRANSFORMER,
        wtype="article",
        locations=[_loc("Neural Information Processing Systems", "conference", None)],
    ),
    # bioRxiv preprint (2024) and its journal version (2025)
    _work(
        "W201",
        "High-throughput screening of variants by pooled editing",
        2024,
        SCREEN,
        doi="10.1101/2024.04.01.587000",
        wtype="preprint",
        locations=[
            _loc("bioRxiv (Cold Spring Harbor Laboratory)", "repository", "submittedVersion")
        ],
    ),
    _work(
        "W202",
        "High-throughput screening of variants by pooled editing",
        2025,
        SCREEN,
        doi="10.1016/j.xgen.2025.100800",
        locations=[_loc("Cell Genomics", "journal", "publishedVersion")],
    ),
    # duplicate work with a second DOI (same year, authors, venue)
    _work(
        "W301",
        "Preaching to the unconvinced",
        2003,
        ["Harold Moody", "Walter Reed"],
        doi="10.1890/1540-9295(2003)001[0455:pttu]2.0.co;2",
        wtype="review",
        locations=[_loc("Frontiers in Ecology and the Environment", "journal", "publishedVersion")],
    ),
    _work(
        "W302",
        "Preaching to the Unconvinced",
        2003,
        ["Harold Moody", "Walter Reed"],
        doi="10.2307/3860000",
        wtype="review",
        locations=[_loc("Frontiers in Ecology and the Environment", "journal", "publishedVersion")],
    ),
    # an editorial printed in two journals
    _work(
        "W401",
        "Time to treat two crises as one",
        2023,
        ["Kamal Abassi", "Parveen Alli"],
        doi="10.1002/vetr.3000",
        locations=[_loc("Veterinary Record", "journal", "publishedVersion")],
    ),
    _work(
        "W402",
        "Time to treat two crises as one",
        2023,
        ["Kamal Abassi", "Parveen Alli"],
        doi="10.1111/nin.12000",
        wtype="editorial",
        locations=[_loc("Nursing Inquiry", "journal", "publishedVersion")],
    ),
    # two different works with the same one-word title
    _work(
        "W501",
        "Malaria",
        2009,
        ["William Riesen"],
        doi="10.1016/b978-0-12-000000-8.00164-8",
        wtype="book-chapter",
        locations=[_loc("Elsevier eBooks", "ebook platform", "publishedVersion")],
    ),
    _work(
        "W502",
        "Malaria",
        2009,
        ["Li Zhang"],
        doi="10.1007/978-94-000-0000-1_29",
        wtype="book-chapter",
        locations=[_loc("Springer eBooks", "ebook platform", "publishedVersion")],
    ),
    # a PubMed-indexed article whose record has a PMID but no PMCID; another with both
    _work(
        "W601",
        "Bootstrap resampling for teachers",
        2015,
        ["Tim Hesterbergh"],
        doi="10.1080/00031305.2015.1000000",
        ids={"pmid": "https://pubmed.ncbi.nlm.nih.gov/27000001"},
        locations=[_loc("The American Statistician", "journal", "publishedVersion")],
    ),
    _work(
        "W602",
        "Another work with a PMCID",
        2016,
        ["Ola Nordmann"],
        doi="10.1000/xyz.2016.1",
        ids={
            "pmid": "https://pubmed.ncbi.nlm.nih.gov/27000002",
            "pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/5000002",
        },
        locations=[_loc("PLOS ONE", "journal", "publishedVersion")],
    ),
    # a MICCAI paper whose record names only the book series
    _work(
        "W701",
        "Label-efficient segmentation of retinal vessels",
        2019,
        ["Bernhard Schölkopf", "Klaus Müller"],
        doi="10.1007/978-3-030-32239-7_1",
        wtype="book-chapter",
        locations=[
            _loc(
                "Lecture notes in computer science",
                "book series",
                "publishedVersion",
                host="Springer Science+Business Media",
            )
        ],
    ),
    # Frontiers article (its landing page URL ends in /full)
    _work(
        "W801",
        "Attention and memory in older adults",
        2020,
        ["Łukasz Kaiser", "Jakub Konečný"],
        doi="10.3389/fpsyg.2020.01234",
        locations=[_loc("Frontiers in Psychology", "journal", "publishedVersion")],
    ),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    d = tmp_path_factory.mktemp("real")
    src = d / "works.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    report = build_index([src], d / "world.index", workers=1)
    assert report.ok, report.to_dict()
    return WorldIndex.open(d / "world.index")


def _check(cited: CitedWork, world: WorldIndex, **kw: Any) -> Verdict:
    return check_citation(cited, world, today_year=2026, **kw)


# --------------------------------------------------------------------------- version families


def test_proceedings_citation_with_the_preprints_arxiv_id_is_yes(world: WorldIndex) -> None:
    v = _check(
        parse_citation_string(
            "Vance, A., Lindqvist, B., Wei, C., & Okafor, D. (2021). Sparse attention routers for long sequences. "
            "In Advances in Neural Information Processing Systems 34. arXiv:2106.01234"
        ),
        world,
    )
    assert v.grounded, v.explanation
    assert v.details()["match"]["family"] == ["W101", "W102"] or v.details()["match"]["family"] == [
        "W102",
        "W101",
    ]


def test_preprint_citation_of_the_arxiv_copy_is_yes(world: WorldIndex) -> None:
    v = _check(
        parse_citation_string(
            "A. Vance, B. Lindqvist, C. Wei, and D. Okafor, “Sparse attention routers for long sequences,” "
            "arXiv preprint arXiv:2106.01234, 2021."
        ),
        world,
    )
    assert v.grounded, v.explanation


def test_title_only_proceedings_citation_is_not_ambiguous(world: WorldIndex) -> None:
    v = _check(
        parse_metadata(
            {
                "title": "Sparse Attention Routers for Long Sequences",
                "authors": TRANSFORMER,
                "year": 2021,
                "venue": "NeurIPS",
            }
        ),
        world,
    )
    assert v.grounded, v.explanation
    assert set(v.details()["match"]["family"]) == {"W101", "W102"}


@pytest.mark.parametrize("arxiv", [{}, {"arxiv": "2106.01234"}])
def test_wrong_conference_for_a_family_is_still_no(
    world: WorldIndex, arxiv: dict[str, str]
) -> None:
    # the NeurIPS copy contradicts ICML: the arXiv copy's leniency does not apply
    v = _check(
        parse_metadata(
            {
                "title": "Sparse Attention Routers for Long Sequences",
                "authors": TRANSFORMER,
                "year": 2021,
                "venue": "ICML",
                **arxiv,
            }
        ),
        world,
    )
    assert not v.grounded and "unverified" not in v.details()
    assert "Venue mismatch" in v.explanation


def test_journal_version_and_preprint_version_each_fit_their_year(world: WorldIndex) -> None:
    base = {"title": "High-throughput screening of variants by pooled editing", "authors": SCREEN}
    assert _check(parse_metadata({**base, "year": 2025, "venue": "Cell Genomics"}), world).grounded
    assert _check(parse_metadata({**base, "year": 2024, "venue": "bioRxiv"}), world).grounded
    # the journal named with the preprint's year: the fields must fit one copy
    v = _check(parse_metadata({**base, "year": 2024, "venue": "Cell Genomics"}), world)
    assert not v.grounded
    assert "no single record of this work" in v.explanation


def test_preprint_doi_with_journal_venue_and_year_is_yes(world: WorldIndex) -> None:
    v = _check(
        parse_citation_string(
            "Hertz M, Kaiba C, Bloom M. High-throughput screening of variants by pooled editing. Cell Genomics. 2025. "
            "https://www.biorxiv.org/content/10.1101/2024.04.01.587000v2.full.pdf"
        ),
        world,
    )
    assert v.grounded, v.explanation


def test_duplicate_work_with_a_second_doi_is_not_ambiguous(world: WorldIndex) -> None:
    v = _check(
        parse_citation_string(
            "Moody, H., & Reed, W. (2003). Preaching to the unconvinced. Frontiers in Ecology and the Environment."
        ),
        world,
    )
    assert v.grounded, v.explanation
    assert set(v.details()["match"]["family"]) == {"W301", "W302"}


def test_editorial_printed_in_two_journals_fits_the_cited_one(world: WorldIndex) -> None:
    for venue in ("Veterinary Record", "Nursing Inquiry"):
        v = _check(
            parse_metadata(
                {
                    "title": "Time to treat two crises as one",
                    "authors": ["Kamal Abassi", "Parveen Alli"],
                    "year": 2023,
                    "venue": venue,
                }
            ),
            world,
        )
        assert v.grounded, (venue, v.explanation)
    v = _check(
        parse_metadata(
            {
                "title": "Time to treat two crises as one",
                "authors": ["Kamal Abassi", "Parveen Alli"],
                "year": 2023,
                "venue": "The Lancet",
            }
        ),
        world,
    )
    assert not v.grounded


def test_different_works_with_one_title_stay_ambiguous(world: WorldIndex) -> None:
    v = _check(parse_metadata({"title": "Malaria", "year": 2009}), world)
    assert not v.grounded
    assert "Ambiguous" in v.explanation
    assert _check(
        parse_metadata({"title": "Malaria", "year": 2009, "authors": ["Li Zhang"]}), world
    ).grounded


# --------------------------------------------------------------------------- identifiers


def test_pmcid_the_record_lacks_is_unverified_not_a_mismatch(world: WorldIndex) -> None:
    cited = {
        "title": "Bootstrap resampling for teachers",
        "authors": ["Tim Hesterbergh"],
        "year": 2015,
        "pmid": "27000001",
        "pmcid": "PMC4999999",
    }
    v = _check(parse_metadata(cited), world)
    assert v.grounded, v.explanation
    assert v.details()["unverified"] == ["pmcid"]
    assert "could not be verified" in v.explanation
    strict = _check(parse_metadata(cited), world, strict_identifiers=True)
    assert not strict.grounded
    assert "PMCID mismatch" in strict.explanation


def test_pmcid_of_another_work_is_a_mismatch(world: WorldIndex) -> None:
    v = _check(
        parse_metadata(
            {
                "title": "Bootstrap resampling for teachers",
                "authors": ["Tim Hesterbergh"],
                "year": 2015,
                "pmcid": "PMC5000002",
            }
        ),
        world,
    )
    assert not v.grounded


def test_pmid_contradicting_the_records_pmid_is_a_mismatch(world: WorldIndex) -> None:
    v = _check(
        parse_metadata(
            {
                "title": "Bootstrap resampling for teachers",
                "authors": ["Tim Hesterbergh"],
                "year": 2015,
                "pmid": "27999999",
            }
        ),
        world,
    )
    assert not v.grounded
    assert "PMID mismatch" in v.explanation


def test_doi_the_record_lacks_stays_a_mismatch(world: WorldIndex) -> None:
    # DOIs are not "unverifiable": a fabricated DOI on a real title must be caught
    v = _check(
        parse_metadata(
            {
                "title": "Sparse Attention Routers for Long Sequences",
                "authors": TRANSFORMER,
                "year": 2021,
                "venue": "NeurIPS",
                "doi": "10.5555/3495724.9999999",
            }
        ),
        world,
    )
    assert not v.grounded


@pytest.mark.parametrize(
    "url",
    [
        "https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/full",
        "https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/pdf",
        "https://doi.org/10.3389/fpsyg.2020.01234?utm_source=x#sec2",
        "https://onlinelibrary.wiley.com/doi/epdf/10.3389/fpsyg.2020.01234",
    ],
)
def test_doi_from_a_landing_page_url_is_the_doi(world: WorldIndex, url: str) -> None:
    v = _check(parse_metadata({"title": "Attention and memory in older adults", "url": url}), world)
    assert v.grounded, v.explanation


def test_malformed_stated_doi_is_a_mismatch_not_ignored(world: WorldIndex) -> None:
    text = (
        "Kaiser Ł, Konečný J. Attention and memory in older adults. Front Psychol. 2020;11:1234. "
        "doi:10.3389fpsyg.2020.01234"
    )
    v = _check(parse_citation_string(text), world)
    assert not v.grounded
    assert "not a well-formed doi" in v.explanation.lower()
    assert not _check(
        parse_metadata({"title": "Attention and memory in older adults", "doi": "10.3389fpsyg"}),
        world,
    ).grounded


# --------------------------------------------------------------------------- names and venues


def test_latex_in_metadata_authors_is_decoded(world: WorldIndex) -> None:
    v = _check(
        parse_metadata(
            {
                "title": "Attention and memory in older adults",
                "authors": r"{\L}ukasz Kaiser and Jakub Kone{\v{c}}n{\'y}",
                "year": 2020,
            }
        ),
        world,
    )
    assert v.grounded, v.explanation


def test_transliterated_umlauts_are_the_same_author(world: WorldIndex) -> None:
    v = _check(
        parse_metadata(
            {
                "title": "Label-efficient segmentation of retinal vessels",
                "authors": ["Bernhard Schoelkopf", "Klaus Mueller"],
                "year": 2019,
            }
        ),
        world,
    )
    assert v.grounded, v.explanation
    v = _check(
        parse_metadata(
            {
                "title": "Label-efficient segmentation of retinal vessels",
                "authors": ["Bernhard Schulkopf", "Klaus Mueller"],
                "year": 2019,
            }
        ),
        world,
    )
    assert not v.grounded


def test_conference_name_for_a_book_series_record_is_unchecked_not_wrong(world: WorldIndex) -> None:
    v = _check(
        parse_citation_string(
            "Schölkopf, B., Müller, K.: Label-efficient segmentation of retinal vessels. In: Medical Image Computing "
            "and Computer Assisted Intervention – MICCAI 2019, pp. 1–9. Springer (2019)"
        ),
        world,
    )
    assert v.grounded, v.explanation
    assert "book series" in v.explanation


def test_strict_identifiers_flag_end_to_end(world: WorldIndex, tmp_path: Path) -> None:
    from citejudge.cli import main

    item = {
        "id": "p1",
        "metadata": {
            "title": "Bootstrap resampling for teachers",
            "authors": ["Tim Hesterbergh"],
            "year": 2015,
            "pmcid": "PMC4999999",
        },
    }
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(item) + "\n", encoding="utf-8")
    index = str(world.path)
    lines = {}
    for flag in ([], ["--strict-identifiers"]):
        out = tmp_path / f"out{len(flag)}.jsonl"
        assert (
            main(
                [
                    "check",
                    "references",
                    str(items),
                    "--index",
                    index,
                    "--out",
                    str(out),
                    "--no-llm",
                    "-q",
                    *flag,
                ]
            )
            == 0
        )
        lines[bool(flag)] = json.loads(out.read_text(encoding="utf-8"))
    assert lines[False]["result"]["reference_grounding"].startswith("Yes.")
    assert lines[False]["details"]["unverified"] == ["pmcid"]
    assert lines[True]["result"]["reference_grounding"].startswith("No.")


# --------------------------------------------------------------------------- record-guided reading
# Shapes from the rendered benchmark on the real records: a parse that put a boundary in the wrong
# place is read again only when the text, read the other way, is exactly the record's.

from citejudge.index import build_index_from_works  # noqa: E402
from citejudge.records import Author, Work  # noqa: E402

SHAPES = [
    Work(
        id="W901",
        title="Attacking Extreme Poverty",
        authors=[Author("World Bank")],
        year=2001,
        venue="World Bank technical paper",
        doi="10.1596/0-8213-4939-2",
    ),
    Work(
        id="W902",
        title="Editorial",
        authors=[Author("Jonas Lemel")],
        year=2003,
        venue="Wildlife Biology",
        doi="10.2981/wlb.2003.057",
    ),
    Work(
        id="W903",
        title="Index",
        authors=[],
        year=2021,
        venue="Emerald Publishing Limited eBooks",
        doi="10.1108/978-1-80043-636-720211038",
    ),
    Work(
        id="W904",
        title="Anophelines found naturally infected with Malaria Parasites in Travancore",
        authors=[Author("M. O. T. Iyengar")],
        year=1934,
        venue="Records of the Malaria. Survey of India",
    ),
    Work(
        id="W905",
        title="Chlorella vulgaris lectin kills Aedes aegypti larvae",
        authors=[
            Author(n)
            for n in (
                "Vivianne Lays Ribeiro Cavalcanti",
                "Romero Marcos Pedrosa Brandão-Costa",
                "Emmanuel Viana Pontual",
            )
        ],
        year=2021,
        venue="Algal Research",
    ),
    Work(
        id="W906",
        title="Nematode survey in Costa Rican conservation areas",
        authors=[Author("Alejandro Esquivel"), Author("Hans Arias")],
        year=2004,
        venue="Proceedings of the Fourth International Congress of Nematology, 8-13 June 2002, Tenerife, Spain",
    ),
    Work(
        id="W907",
        title="Towards a More Holistic Approach to Pollination",
        authors=[Author("Liliana Bravo-Monroy G")],
        year=2017,
        venue="Agricultural Research & Technology Open Access Journal",
    ),
]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    path = tmp_path_factory.mktemp("shapes") / "world.index"
    build_index_from_works(SHAPES, path)
    return WorldIndex.open(path)


@pytest.mark.parametrize(
    "text",
    [
        "World Bank. Attacking Extreme Poverty. World Bank technical paper. 2001. doi:10.1596/0-8213-4939-2",
        "39. Lemel J. Editorial. Wildlife Biology. 2003. doi:10.2981/wlb.2003.057",
        "Index. (2021). Emerald Publishing Limited eBooks. https://doi.org/10.1108/978-1-80043-636-720211038",
        "Iyengar, M. O. T. (1934). Anophelines found naturally infected with Malaria Parasites in Travancore. "
        "Records of the Malaria. Survey of India.",
        "Vivianne Lays Ribeiro Cavalcanti, Romero Marcos Pedrosa Brandão-Costa, Emmanuel Viana Pontual. Chlorella "
        "vulgaris lectin kills Aedes aegypti larvae. Algal Research. 2021.",
        "Esquivel, A., & Arias, H. (2004). Nematode survey in Costa Rican conservation areas. Proceedings of the "
        "Fourth International Congress of Nematology, 8-13 June 2002, Tenerife, Spain.",
        "[19] L. B.-M. G, “Towards a More Holistic Approach to Pollination,” Agricultural Research & Technology Open "
        "Access Journal, 2017.",
    ],
)
def test_record_shapes_read_right(shapes: WorldIndex, text: str) -> None:
    v = _check(parse_citation_string(text), shapes)
    assert v.grounded, v.explanation


@pytest.mark.parametrize(
    "text",
    [
        # a fabricated subtitle after the real title is not absorbed
        "39. Lemel J. Editorial: a decade of moose. Wildlife Biology. 2003. doi:10.2981/wlb.2003.057",
        # the venue read together with the title must be exactly the record's
        "Iyengar, M. O. T. (1934). Anophelines found naturally infected with Malaria Parasites in Travancore. "
        "Records of the Malaria. Survey of Pakistan.",
        # an extra author is not hidden in the title
        "World Bank, IMF. Attacking Extreme Poverty. World Bank technical paper. 2001. doi:10.1596/0-8213-4939-2",
        # another congress is another venue
        "Esquivel, A., & Arias, H. (2004). Nematode survey in Costa Rican conservation areas. Proceedings of the "
        "Fourth International Congress of Entomology, 8-13 June 2002, Tenerife, Spain.",
    ],
)
def test_record_guided_reading_stays_strict(shapes: WorldIndex, text: str) -> None:
    v = _check(parse_citation_string(text), shapes)
    assert not v.grounded, v.explanation


# --------------------------------------------------------------------------- venue aliases (Sources entity)


def _gz(path: Path, lines: list[str]) -> None:
    import gzip

    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


@pytest.mark.parametrize("layout", ["legacy", "2026"])
def test_venue_aliases_from_the_sources_entity(tmp_path: Path, layout: str) -> None:
    base = tmp_path / "snap" / "data" / ("jsonl" if layout == "2026" else "")
    work = _work(
        "W950",
        "Photoinduced charge transfer in dimers",
        2019,
        ["Ana Ruiz"],
        doi="10.1021/acs.jpclett.9b00001",
        locations=[
            _loc("The Journal of Physical Chemistry Letters", "journal", "publishedVersion")
        ],
    )
    _gz(base / "works" / "updated_date=2026-01-01" / "part_000.gz", [json.dumps(work)])
    source = {
        "id": "https://openalex.org/S1",
        "display_name": "The Journal of Physical Chemistry Letters",
        "abbreviated_title": "J. Phys. Chem. Lett.",
        "alternate_titles": ["JPCL", "J Phys Chem Lett"],
        "issn_l": "1948-7185",
        "type": "journal",
    }
    _gz(
        base / "sources" / "updated_date=2026-01-01" / "part_000.gz",
        [json.dumps(source), "{not json"],
    )
    report = build_index([tmp_path / "snap"], tmp_path / "w.index", workers=1)
    assert report.sources[0]["venue_sources"] == 1
    assert any("source record" in i.message for i in report.issues)  # the bad line is named
    world = WorldIndex.open(tmp_path / "w.index")
    base_meta = {
        "title": "Photoinduced charge transfer in dimers",
        "authors": ["Ana Ruiz"],
        "year": 2019,
    }
    v = _check(parse_metadata({**base_meta, "venue": "JPCL"}), world)
    assert v.grounded, v.explanation
    assert not _check(parse_metadata({**base_meta, "venue": "JACS"}), world).grounded


def test_historical_names_and_repository_aliases_from_the_sources_entity(tmp_path: Path) -> None:
    # a series renamed ("Applied Statistics" until 1997) that no canonical form can reach, and a
    # repository whose other names are repositories too
    base = tmp_path / "snap" / "data"
    works = [
        _work(
            "W960",
            "Fitting mixed models to repeated measures",
            1994,
            ["Ian Grant"],
            locations=[
                _loc(
                    "Journal of the Royal Statistical Society Series C (Applied Statistics)",
                    "journal",
                    "publishedVersion",
                )
            ],
        ),
        _work(
            "W961",
            "Working memory in transformers",
            2022,
            ["Ola Berg"],
            locations=[
                _loc("Zenodo (CERN European Organization for Nuclear Research)", "repository", None)
            ],
        ),
    ]
    _gz(base / "works" / "updated_date=2026-01-01" / "part_000.gz", [json.dumps(w) for w in works])
    sources = [
        {
            "id": "https://openalex.org/S2",
            "display_name": "Journal of the Royal Statistical Society Series C (Applied Statistics)",
            "alternate_titles": ["Applied Statistics", "J R Stat Soc Ser C Appl Stat"],
            "type": "journal",
        },
        {
            "id": "https://openalex.org/S3",
            "display_name": "Zenodo (CERN European Organization for Nuclear Research)",
            "alternate_titles": ["CERN Open Data Repository mirror", "Open Science Deposit"],
            "type": "repository",
        },
    ]
    _gz(
        base / "sources" / "updated_date=2026-01-01" / "part_000.gz",
        [json.dumps(x) for x in sources],
    )
    build_index([tmp_path / "snap"], tmp_path / "w.index", workers=1)
    world = WorldIndex.open(tmp_path / "w.index")
    jrss = {
        "title": "Fitting mixed models to repeated measures",
        "authors": ["Ian Grant"],
        "year": 1994,
    }
    assert _check(parse_metadata({**jrss, "venue": "Applied Statistics"}), world).grounded
    assert not _check(parse_metadata({**jrss, "venue": "Applied Economics"}), world).grounded
    # the alias "Open Science Deposit" names no repository by itself: its Source's type says so
    zen = {"title": "Working memory in transformers", "authors": ["Ola Berg"], "year": 2022}
    v = _check(parse_metadata({**zen, "venue": "Neural Computation"}), world)
    assert v.grounded and v.details()["unverified"] == ["venue"], v.explanation


# --------------------------------------------------------------------------- record noise
# Shapes of real records (../shared/data/openalex/works.jsonl): works known to OpenAlex only from
# repositories and preprint servers (arXiv, PubMed, SSRN + RePEc + AgEcon Search, a publisher's DOI
# landing page without a source beside an arXiv copy); "venues" that are no venue (a URL as the
# raw source name, "(No Title)", the "DataCite API" metadata source); a renamed journal series;
# books named by their ebook platform, book series or host organisation.

ARXIV = "arXiv (Cornell University)"
NOISY = [
    _work(
        "W1101",
        "Diachronic word embeddings and semantic shifts: a survey",
        2018,
        ["Andrey Kutuzov", "Lilja Øvrelid", "Terrence Szymanski", "Erik Velldal"],
        locations=[
            _loc(
                ARXIV,
                "repository",
                None,
                landing="https://arxiv.org/abs/1806.03537",
                host="Cornell University",
            )
        ],
    ),
    _work(
        "W1102",
        "Malaria vaccine: latest update and challenges ahead",
        2009,
        ["Pedro Alonso", "Regina Rabinovich"],
        locations=[_loc("PubMed", "repository", None, host="National Institutes of Health")],
    ),
    _work(
        "W1103",
        "Sustainable financing of protected areas in Cambodia",
        2008,
        ["Ben Bryant", "Lina Sok"],
        wtype="preprint",
        locations=[
            _loc(None, "", "submittedVersion", raw="http://ageconsearch.umn.edu/record/37920"),
            _loc(
                "RePEc: Research Papers in Economics",
                "repository",
                "submittedVersion",
                host="Federal Reserve Bank of St. Louis",
            ),
            _loc(
                "AgEcon Search (University of Minnesota, USA)",
                "repository",
                None,
                host="University of Minnesota Rochester",
            ),
        ],
    ),
    # the publisher's DOI landing page has no source; the only named copy is arXiv's
    _work(
        "W1104",
        "Citation recommendation for scholarly drafts",
        2023,
        ["Mei Tanaka", "Jonas Berg"],
        doi="10.1109/jcdl57899.2023.00026",
        locations=[
            _loc(
                None, "", "publishedVersion", landing="https://doi.org/10.1109/jcdl57899.2023.00026"
            ),
            _loc(
                ARXIV,
                "repository",
                "submittedVersion",
                landing="https://arxiv.org/abs/2304.13012",
                host="Cornell University",
            ),
        ],
    ),
    _work(
        "W1105",
        "Sparse recovery under drift",
        2024,
        ["Ana Ruiz"],
        doi="10.48550/arxiv.2402.01234",
        wtype="preprint",
        locations=[
            _loc(
                ARXIV, "repository", "submittedVersion", landing="https://arxiv.org/abs/2402.01234"
            )
        ],
    ),
    # a conference paper OpenAlex has only from arXiv, a year before the conference
    _work(
        "W1106",
        "Adam: A method for stochastic optimization",
        2014,
        ["Diederik P. Kingma", "Jimmy Ba"],
        wtype="preprint",
        locations=[
            _loc(
                ARXIV,
                "repository",
                "submittedVersion",
                landing="https://arxiv.org/abs/1412.6980",
                host="Cornell University",
            )
        ],
    ),
    # venues that are no venue
    _work(
        "W1201",
        "Grazing pressure on alpine meadows",
        2016,
        ["Tenzin Dorje"],
        locations=[
            _loc(None, "", "publishedVersion", raw="http://www.redalyc.org/pdf/422/42290110.pdf")
        ],
    ),
    _work(
        "W1202",
        "Seed banks of restored wetlands",
        2019,
        ["Maria Lopes"],
        locations=[_loc("(No Title)", "journal", "publishedVersion")],
    ),
    _work(
        "W1203",
        "Rainfall records of the Sahel 1950-2000",
        2021,
        ["Awa Diop"],
        doi="10.5061/dryad.abc123",
        wtype="dataset",
        locations=[_loc("DataCite API", "metadata", None, host="DataCite")],
    ),
    _work(
        "W1204",
        "Pollinator decline in orchards",
        2017,
        ["Lena Vogt"],
        locations=[_loc(None, "", "publishedVersion", raw="Journal of Applied Ecology")],
    ),
    # a series renamed: the record has today's name
    _work(
        "W1301",
        "Regression shrinkage and selection via the lasso",
        1996,
        ["Robert Tibshirani"],
        locations=[
            _loc(
                "Journal of the Royal Statistical Society Series B (Statistical Methodology)",
                "journal",
                "publishedVersion",
                host="Oxford University Press",
            )
        ],
    ),
    # books by their ebook platform, book series or host organisation
    _work(
        "W1401",
        "Deep learning",
        2016,
        ["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"],
        wtype="book",
        locations=[
            _loc("MIT Press eBooks", "ebook platform", "publishedVersion", host="MIT Press")
        ],
    ),
    _work(
        "W1402",
        "Elements of information theory",
        2005,
        ["Thomas M. Cover", "Joy A. Thomas"],
        wtype="book",
        locations=[_loc("Wiley eBooks", "ebook platform", "publishedVersion", host="Wiley")],
    ),
    _work(
        "W1403",
        "Synthesis: managing socio-ecological production landscapes",
        2012,
        ["Kazuhiko Takeuchi"],
        wtype="book-chapter",
        locations=[
            _loc(
                "Science for sustainable societies",
                "book series",
                "publishedVersion",
                host="Springer Nature",
            )
        ],
    ),
    # a journal article whose source names no host organisation (26 of the 328 journal records
    # of the shared OpenAlex sample)
    _work(
        "W1405",
        "Long short-term memory",
        1997,
        ["Sepp Hochreiter", "Jürgen Schmidhuber"],
        locations=[_loc("Neural Computation", "journal", "publishedVersion")],
    ),
    _work(
        "W1404",
        "Biodiversity: resource for new products",
        1997,
        ["Jorge Soberón"],
        locations=[_loc("Biodiversity", "journal", "publishedVersion", host="Taylor & Francis")],
    ),
]


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    d = tmp_path_factory.mktemp("noisy")
    src = d / "works.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [*RECORDS, *NOISY]), encoding="utf-8")
    report = build_index([src], d / "world.index", workers=1)
    assert report.ok, report.to_dict()
    return WorldIndex.open(d / "world.index")


def _meta_of(wid: str, **fields: Any) -> CitedWork:
    rec = next(r for r in NOISY if r["id"].endswith("/" + wid))
    names = [a["author"]["display_name"] for a in rec["authorships"]]
    return parse_metadata(
        {"title": rec["title"], "authors": names, "year": rec["publication_year"], **fields}
    )


@pytest.mark.parametrize(
    ("wid", "venue"),
    [
        ("W1101", "Proceedings of the 27th International Conference on Computational Linguistics"),
        ("W1102", "Vaccine"),
        ("W1103", "Environment and Development Economics"),
        ("W1104", "ACM/IEEE Joint Conference on Digital Libraries (JCDL)"),
    ],
)
def test_a_venue_only_repositories_stand_against_is_unverified(
    noisy: WorldIndex, wid: str, venue: str
) -> None:
    v = _check(_meta_of(wid, venue=venue), noisy)
    assert v.grounded, v.explanation
    assert v.details()["unverified"] == ["venue"]
    assert "could not be verified" in v.explanation
    strict = _check(_meta_of(wid, venue=venue), noisy, strict_venues=True)
    assert not strict.grounded
    assert "Venue mismatch" in strict.explanation
    # identifiers keep their own flag
    assert _check(_meta_of(wid, venue=venue), noisy, strict_identifiers=True).grounded


@pytest.mark.parametrize(
    ("wid", "venue"),
    [
        ("W1101", "bioRxiv"),  # another preprint server: the record names its servers
        ("W1103", "SSRN Electronic Journal"),
        ("W1102", "medRxiv"),
    ],
)
def test_another_repository_is_still_a_mismatch(noisy: WorldIndex, wid: str, venue: str) -> None:
    v = _check(_meta_of(wid, venue=venue), noisy)
    assert not v.grounded, v.explanation


def test_the_preprints_own_doi_fixes_the_copy(noisy: WorldIndex) -> None:
    # a DOI names one registered version: the arXiv DOI with a conference is a mismatch ...
    assert not _check(
        _meta_of("W1105", venue="ICML", doi="10.48550/arXiv.2402.01234"), noisy
    ).grounded
    # ... the arXiv id (an open-access pointer beside a published version) is not
    v = _check(_meta_of("W1105", venue="ICML", arxiv="2402.01234"), noisy)
    assert v.grounded and v.details()["unverified"] == ["venue"], v.explanation
    # the publisher's DOI of a record that only names its arXiv copy
    v = _check(_meta_of("W1104", venue="JCDL", doi="10.1109/jcdl57899.2023.00026"), noisy)
    assert v.grounded and v.details()["unverified"] == ["venue"], v.explanation


@pytest.mark.parametrize(
    "text",
    [
        # how papers cite it: the conference and its year, one after the arXiv copy's
        "Kingma, D. P., & Ba, J. (2015). Adam: A method for stochastic optimization. In "
        "International Conference on Learning Representations.",
        'Diederik P. Kingma and Jimmy Ba. Adam: A method for stochastic optimization. In "3rd '
        'International Conference on Learning Representations, ICLR 2015", 2015.',
        "D. P. Kingma and J. Ba, \u201cAdam: A method for stochastic optimization,\u201d in Proc. "
        "ICLR, 2016.",
    ],
)
def test_the_published_versions_year_is_unverified_with_its_venue(
    noisy: WorldIndex, text: str
) -> None:
    v = _check(parse_citation_string(text), noisy)
    assert v.grounded, v.explanation
    assert v.details()["unverified"] == ["year", "venue"]
    assert "cited 2015 could not be verified" in v.explanation or "2016" in v.explanation
    strict = _check(parse_citation_string(text), noisy, strict_venues=True)
    assert not strict.grounded and "Year mismatch" in strict.explanation, strict.explanation


@pytest.mark.parametrize(
    "text",
    [
        # three years after the preprint: not the published version's year
        "Kingma, D. P., & Ba, J. (2017). Adam: A method for stochastic optimization. In "
        "International Conference on Learning Representations.",
        # before the preprint
        "Kingma, D. P., & Ba, J. (2013). Adam: A method for stochastic optimization. In "
        "International Conference on Learning Representations.",
        # the arXiv copy itself, cited with another year
        "Kingma, D. P., & Ba, J. (2015). Adam: A method for stochastic optimization. arXiv "
        "preprint arXiv:1412.6980.",
        # no venue: nothing says a published version is meant
        "Kingma, D. P., & Ba, J. (2015). Adam: A method for stochastic optimization.",
    ],
)
def test_other_years_of_a_repository_only_work_stay_mismatches(
    noisy: WorldIndex, text: str
) -> None:
    v = _check(parse_citation_string(text), noisy)
    assert not v.grounded and "Year mismatch" in v.explanation, v.explanation


def test_a_workshop_of_the_families_conference_is_another_venue(world: WorldIndex) -> None:
    # a workshop of the conference the record names stays another venue
    v = _check(
        parse_metadata(
            {
                "title": "Sparse Attention Routers for Long Sequences",
                "authors": TRANSFORMER,
                "year": 2021,
                "venue": "NeurIPS Workshop on Efficient Natural Language and Speech Processing",
            }
        ),
        world,
    )
    assert not v.grounded, v.explanation


@pytest.mark.parametrize("wid", ["W1201", "W1202", "W1203"])
def test_a_record_venue_that_is_no_venue_is_no_venue(noisy: WorldIndex, wid: str) -> None:
    v = _check(_meta_of(wid, venue="Journal of Vegetation Science"), noisy)
    assert v.grounded, v.explanation
    assert "has no venue" in v.explanation and "could not be checked" in v.explanation
    assert "unverified" not in v.details()


def test_a_raw_source_name_that_is_a_venue_still_contradicts(noisy: WorldIndex) -> None:
    assert _check(_meta_of("W1204", venue="Journal of Applied Ecology"), noisy).grounded
    assert not _check(_meta_of("W1204", venue="Journal of Vegetation Science"), noisy).grounded


@pytest.mark.parametrize(
    ("venue", "ok"),
    [
        ("Journal of the Royal Statistical Society: Series B (Methodological)", True),
        ("Journal of the Royal Statistical Society. Series B, Methodological", True),
        ("Journal of the Royal Statistical Society Series B", True),
        ("Journal of the Royal Statistical Society: Series A (Statistics in Society)", False),
        ("Journal of the Royal Statistical Society: Series C (Applied Statistics)", False),
    ],
)
def test_a_series_qualifier_is_compared_on_the_series(
    noisy: WorldIndex, venue: str, ok: bool
) -> None:
    v = _check(_meta_of("W1301", venue=venue), noisy)
    assert v.grounded is ok, v.explanation


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        # Google Scholar's BibTeX for a book: the place after the publisher
        (
            "@book{goodfellow2016deep, title={Deep learning}, author={Goodfellow, Ian and Bengio, "
            "Yoshua and Courville, Aaron}, year={2016}, publisher={MIT press Cambridge}}",
            True,
        ),
        (
            "Cover, T. M., & Thomas, J. A. (2005). Elements of information theory. John Wiley & Sons.",
            True,
        ),
        (
            "Goodfellow, I., Bengio, Y., & Courville, A. (2016). Deep learning. Springer.",
            False,
        ),
        (
            "Cover, T. M., & Thomas, J. A. (2005). Elements of information theory. Cambridge "
            "University Press.",
            False,
        ),
    ],
)
def test_a_publisher_cited_for_a_book(noisy: WorldIndex, text: str, ok: bool) -> None:
    v = _check(parse_citation_string(text), noisy)
    assert v.grounded is ok, v.explanation


@pytest.mark.parametrize(
    ("wid", "venue", "ok"),
    [
        ("W1401", "MIT press Cambridge", True),  # a publisher in the venue field of a book
        ("W1402", "John Wiley & Sons, Hoboken, NJ", True),
        ("W1403", "Springer", True),  # a book series record, its host organisation cited
        ("W1403", "Elsevier", False),
        ("W1404", "Routledge", False),  # an article: its venue is its journal
    ],
)
def test_a_publisher_as_the_venue_of_a_book(
    noisy: WorldIndex, wid: str, venue: str, ok: bool
) -> None:
    v = _check(_meta_of(wid, venue=venue), noisy)
    assert v.grounded is ok, v.explanation


LSTM_BIB = (
    "@article{hochreiter1997long, title={Long short-term memory}, author={Hochreiter, Sepp and "
    'Schmidhuber, J{\\"u}rgen}, journal={Neural computation}, volume={9}, number={8}, '
    "pages={1735--1780}, year={1997}, publisher={%s}}"
)
BIODIV_BIB = (
    "@article{soberon1997, title={Biodiversity: resource for new products}, author={Sober{\\'o}n, "
    "Jorge}, journal={Biodiversity}, year={1997}, publisher={%s}}"
)


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        # Google Scholar's BibTeX of a journal article names its publisher; the record names
        # the journal and no host organisation: nothing there can contradict the publisher
        (LSTM_BIB % "MIT Press", True),
        (LSTM_BIB % "Springer", True),
        # a record naming its host contradicts another publisher
        (BIODIV_BIB % "Taylor \\& Francis", True),
        (BIODIV_BIB % "Springer", False),
    ],
)
def test_a_publisher_cited_for_a_journal_article(noisy: WorldIndex, text: str, ok: bool) -> None:
    v = _check(parse_citation_string(text), noisy)
    assert v.grounded is ok, v.explanation
    if ok and "Hochreiter" in text:
        assert "names its venue ('Neural Computation') but no publisher" in v.explanation


def test_a_record_without_source_kinds_still_compares_its_publisher() -> None:
    # a BibTeX or CSL world (or an index of the earlier schema) records no source kinds: the
    # names it gives are all it has, and a publisher none of them is stays a mismatch
    from citejudge.match.resolve import _compare_publisher
    from citejudge.records import HOST_KIND, Work

    bib = Work(id="bib:x", title="T", venue="Neural Computation")
    assert not _compare_publisher("Springer", bib).ok
    hosted = Work(
        id="W1",
        title="T",
        venue="Neural Computation",
        venue_alt=["MIT Press"],
        venue_kinds={"Neural Computation": "journal", "MIT Press": HOST_KIND},
    )
    assert _compare_publisher("MIT Press", hosted).ok
    assert not _compare_publisher("Springer", hosted).ok
    bare = Work(
        id="W2",
        title="T",
        venue="Neural Computation",
        venue_kinds={"Neural Computation": "journal"},
    )
    assert _compare_publisher("Springer", bare).ok


def test_strict_venues_flag_end_to_end(noisy: WorldIndex, tmp_path: Path) -> None:
    from citejudge.cli import main

    item = {
        "id": "v1",
        "metadata": {
            "title": "Malaria vaccine: latest update and challenges ahead",
            "authors": ["Pedro Alonso", "Regina Rabinovich"],
            "year": 2009,
            "venue": "Vaccine",
        },
    }
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(item) + "\n", encoding="utf-8")
    lines = {}
    for flag in ([], ["--strict-venues"]):
        out = tmp_path / f"out{len(flag)}.jsonl"
        args = ["check", "references", str(items), "--index", str(noisy.path), "--out", str(out)]
        assert main([*args, "--no-llm", "-q", *flag]) == 0
        lines[bool(flag)] = json.loads(out.read_text(encoding="utf-8"))
    assert lines[False]["result"]["reference_grounding"].startswith("Yes.")
    assert lines[False]["details"]["unverified"] == ["venue"]
    assert lines[True]["result"]["reference_grounding"].startswith("No.")
    manifest = json.loads((tmp_path / "out1.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["strict_venues"] is True


_pub_word = st.text(alphabet="bcdfghklmnprstvz", min_size=3, max_size=8).map(str.capitalize)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_pub_word, min_size=1, max_size=3),
    st.sampled_from(["Press", "Publishing", "Verlag", "& Sons"]),
    st.sampled_from(["Cambridge", "New York", "Berlin Heidelberg", "Hoboken NJ", "Oxford"]),
)
def test_publisher_forms_drop_a_place_and_invent_nothing(
    name: list[str], end: str, where: str
) -> None:
    from citejudge.match.resolve import _publisher_forms

    publisher = " ".join([*name, end])
    for text in (f"{publisher} {where}", f"{where}: {publisher}", f"{publisher}, {where}"):
        forms = _publisher_forms(text)
        assert publisher in forms, (text, forms)
        assert all(f in text for f in forms)
