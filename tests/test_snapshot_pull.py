"""pull_snapshot against recorded API pages served by a fake requests session (no network)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import pyalex
import pytest

from citejudge.errors import InputError
from citejudge.records import Work
from citejudge.snapshot import parse_filter_expr, plan_source, pull_snapshot, read_part

FIXTURES = Path(__file__).parent / "fixtures" / "pull"
PAGE1 = json.loads((FIXTURES / "works_page_1.json").read_text())
PAGE2 = json.loads((FIXTURES / "works_page_2.json").read_text())
ALL = PAGE1["results"] + PAGE2["results"]


class FakeResponse:
    def __init__(self, body: dict[str, Any], status: int = 200) -> None:
        self.body = body
        self.status_code = status

    def json(self) -> dict[str, Any]:
        return self.body

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise RuntimeError(f"HTTP {self.status_code}")


def source(n: int) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/S10000{n}",
        "display_name": f"Journal of Fixtures {n}",
        "abbreviated_title": f"J. Fixt. {n}",
        "alternate_titles": [f"JFX{n}"],
        "issn_l": None,
        "type": "journal",
    }


class FakeSession:
    """Serves the two recorded cursor pages; DOI filters get the matching records; Source ids get Sources."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.source_urls: list[str] = []
        self.api_keys: list[str | None] = []

    def get(self, url: str, auth: Any = None) -> FakeResponse:
        q = parse_qs(urlparse(url).query)
        filt = unquote(q.get("filter", [""])[0])
        cursor = q.get("cursor", ["*"])[0]
        if urlparse(url).path.endswith("/sources"):
            self.source_urls.append(url)
            ids = filt.removeprefix("openalex_id:").split("|")
            hits = [source(int(i[-1])) for i in ids if i.startswith("S10000")]
            meta = dict(PAGE2["meta"], count=len(hits), next_cursor=None)
            return FakeResponse({"meta": meta, "results": hits, "group_by": []})
        self.urls.append(url)
        self.api_keys.append(pyalex.config.api_key)
        if filt.startswith("doi:"):
            wanted = set(filt[4:].lower().split("|"))
            hits = [w for w in ALL if w["doi"].lower().removeprefix("https://doi.org/") in wanted]
            meta = dict(PAGE2["meta"], count=len(hits), next_cursor=None)
            return FakeResponse({"meta": meta, "results": hits, "group_by": []})
        if cursor == "*":
            return FakeResponse(PAGE1)
        if cursor == PAGE1["meta"]["next_cursor"]:
            return FakeResponse(PAGE2)
        return FakeResponse({"error": "bad cursor"}, 400)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    class Refusing:
        def get(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("network access attempted")

    monkeypatch.setattr(pyalex.api, "_get_requests_session", Refusing)


def test_filter_pull_two_cursor_pages_roundtrip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", "test-key")
    s = FakeSession()
    report = pull_snapshot(
        tmp_path / "out",
        filter_expr="publication_year:2021-2024,type:article",
        per_page=3,
        session=s,
    )
    assert report.records == 5 and report.pages == 2
    assert len(s.urls) == 2
    assert parse_qs(urlparse(s.urls[1]).query)["cursor"] == [PAGE1["meta"]["next_cursor"]]
    assert "per-page=3" in s.urls[0]
    assert s.api_keys == ["test-key", "test-key"]
    assert pyalex.config.api_key is None  # global config restored
    assert report.part is not None
    assert report.part.relative_to(tmp_path / "out").as_posix() == (
        f"data/jsonl/works/updated_date={report.updated_date}/part_0000.gz"
    )
    # the raw JSON is written, abstract index included
    with gzip.open(report.part, "rt") as fh:
        raw = [json.loads(line) for line in fh]
    assert raw[0]["abstract_inverted_index"] == PAGE1["results"][0]["abstract_inverted_index"]
    manifest = json.loads(report.manifest.read_text())
    assert manifest["meta"]["record_count"] == 5
    plan = plan_source(tmp_path / "out")
    assert plan.layout == "openalex-2026" and plan.parts[0].expected_records == 5
    works = [o for o in read_part(plan.parts[0]) if isinstance(o, Work)]
    assert [w.id for w in works] == [f"W10000000{i}" for i in range(1, 6)]
    assert works[0].title == "Reading OpenAlex snapshots quickly"
    assert works[0].abstract is not None and works[0].abstract.startswith("We read snapshots")
    assert works[4].arxiv == "2401.01234"


def test_pull_writes_the_sources_the_works_name(tmp_path: Path) -> None:
    from citejudge.index import WorldIndex, build_index

    s = FakeSession()
    r = pull_snapshot(tmp_path, filter_expr="type:article", per_page=3, session=s)
    assert r.sources == 5 and r.sources_part is not None
    assert len(s.source_urls) == 1 and "openalex_id" in unquote(s.source_urls[0])
    plan = plan_source(tmp_path)
    assert plan.venue_files == [r.sources_part]
    report = build_index([tmp_path], tmp_path / "w.index", workers=1)
    assert report.sources[0]["venue_sources"] == 5
    world = WorldIndex.open(tmp_path / "w.index")
    assert world.venue_aliases("Journal of Fixtures 1") == ["J. Fixt. 1", "JFX1"]
    assert (
        pull_snapshot(
            tmp_path / "b",
            filter_expr="type:article",
            per_page=3,
            session=FakeSession(),
            sources=False,
        ).sources
        == 0
    )


def test_doi_pull_and_second_pull_adds_a_part(tmp_path: Path) -> None:
    s = FakeSession()
    dois = [
        "https://doi.org/10.1234/FIXTURE.0002",
        "10.1234/fixture.0004",
        "10.9999/missing",
        "not a doi",
    ]
    r = pull_snapshot(tmp_path, dois=dois, session=s)
    assert r.records == 2 and r.requested_dois == 3 and r.missing_dois == ["10.9999/missing"]
    assert len(s.urls) == 1
    r2 = pull_snapshot(tmp_path, dois=["10.1234/fixture.0001"], session=s)
    assert r2.part is not None and r2.part.name == "part_0001.gz"
    plan = plan_source(tmp_path)
    assert [p.expected_records for p in plan.parts] == [2, 1]
    assert plan.expected_records == 3


def test_doi_chunks_of_50(tmp_path: Path) -> None:
    s = FakeSession()
    dois = [f"10.5555/x{i}" for i in range(120)]
    r = pull_snapshot(tmp_path, dois=dois, session=s)
    assert r.records == 0 and len(s.urls) == 3 and len(r.missing_dois) == 120


def test_max_records(tmp_path: Path) -> None:
    r = pull_snapshot(
        tmp_path, filter_expr="type:article", per_page=3, max_records=2, session=FakeSession()
    )
    assert r.records == 2


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        pull_snapshot(tmp_path, session=FakeSession())
    with pytest.raises(InputError):
        pull_snapshot(tmp_path, dois=["10.1/x"], filter_expr="a:b", session=FakeSession())
    with pytest.raises(InputError):
        pull_snapshot(tmp_path, filter_expr="a:b", per_page=500, session=FakeSession())
    with pytest.raises(InputError):
        parse_filter_expr("no-colon")


def test_parse_filter_expr_nested() -> None:
    assert parse_filter_expr("publication_year:2020, primary_location.source.id:S1|S2") == {
        "publication_year": "2020",
        "primary_location": {"source": {"id": "S1|S2"}},
    }
