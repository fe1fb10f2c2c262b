"""Snapshot layouts, part planning, reading and redirects, with bad inputs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from citejudge.errors import InputError
from citejudge.records import ReadIssue, Redirect, Work
from citejudge.snapshot import check_counts, plan_source, read_part, read_redirects


def rec(n: int, title: str = "T", updated: str = "2024-01-01") -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/W{n}",
        "title": f"{title} {n}",
        "publication_year": 2020,
        "authorships": [{"author": {"display_name": "A B"}, "raw_author_name": "A B"}],
        "updated_date": updated,
    }


def write_gz(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def read_all(plan: Any) -> tuple[list[Work], list[ReadIssue]]:
    works: list[Work] = []
    issues: list[ReadIssue] = []
    for part in plan.parts:
        for o in read_part(part):
            (works if isinstance(o, Work) else issues).append(o)  # type: ignore[arg-type]
    return works, issues


def make_legacy(root: Path) -> Path:
    works = root / "data" / "works"
    write_gz(
        works / "updated_date=2024-02-01" / "part_000.gz", [json.dumps(rec(1, "new", "2024-02-01"))]
    )
    write_gz(works / "updated_date=2024-01-01" / "part_001.gz", [json.dumps(rec(2))])
    write_gz(
        works / "updated_date=2024-01-01" / "part_000.gz",
        [json.dumps(rec(1, "old")), json.dumps(rec(3))],
    )
    manifest = {
        "entries": [
            {
                "url": "s3://openalex/data/works/updated_date=2024-01-01/part_000.gz",
                "meta": {"content_length": 10, "record_count": 2},
            },
            {
                "url": "s3://openalex/data/works/updated_date=2024-01-01/part_001.gz",
                "meta": {"content_length": 10, "record_count": 5},
            },
            {
                "url": "s3://openalex/data/works/updated_date=2024-02-01/part_000.gz",
                "meta": {"content_length": 10, "record_count": 1},
            },
        ],
        "meta": {"content_length": 30, "record_count": 8},
    }
    (works / "manifest").write_text(json.dumps(manifest))
    merged = root / "data" / "merged_ids" / "works"
    merged.mkdir(parents=True)
    with gzip.open(merged / "2024-01-15.csv.gz", "wt") as fh:
        fh.write(
            "merge_date,id,merge_into_id\n2024-01-15,W9,W1\n2024-01-15,https://openalex.org/W8,https://openalex.org/W2\n2024-01-15,bad,W1\n"
        )
    # another entity's merged ids must be ignored
    (root / "data" / "merged_ids" / "authors").mkdir(parents=True)
    (root / "data" / "merged_ids" / "authors" / "x.csv").write_text(
        "merge_date,id,merge_into_id\n2024-01-01,A1,A2\n"
    )
    return root


def make_2026(root: Path) -> Path:
    works = root / "data" / "jsonl" / "works"
    write_gz(
        works / "updated_date=2026-01-01" / "part_0000.gz",
        [json.dumps(rec(10)), json.dumps(rec(11))],
    )
    write_gz(works / "updated_date=2026-02-01" / "part_0000.gz", [json.dumps(rec(10, "newer"))])
    manifest = {
        "entries": [
            {
                "url": "s3://openalex/data/jsonl/works/updated_date=2026-01-01/part_0000.gz",
                "meta": {"content_length": 1, "record_count": 2},
            },
            {
                "url": "s3://openalex/data/jsonl/works/updated_date=2026-02-01/part_0000.gz",
                "meta": {"content_length": 1, "record_count": 1},
            },
            {
                "url": "s3://openalex/data/jsonl/works/updated_date=2026-03-01/part_0000.gz",
                "meta": {"content_length": 1, "record_count": 4},
            },
        ],
        "meta": {"content_length": 3, "record_count": 7},
    }
    (works / "manifest.json").write_text(json.dumps(manifest))
    (root / "data" / "deleted_ids.csv").write_text("id\nW77\nhttps://openalex.org/W78\nnonsense\n")
    return root


def test_legacy_layout_from_root_data_and_works(tmp_path: Path) -> None:
    root = make_legacy(tmp_path / "snap")
    for src in (root, root / "data", root / "data" / "works"):
        plan = plan_source(src)
        assert plan.layout == "openalex-legacy" and plan.format == "openalex"
        assert [p.path.relative_to(root).as_posix() for p in plan.parts] == [
            "data/works/updated_date=2024-01-01/part_000.gz",
            "data/works/updated_date=2024-01-01/part_001.gz",
            "data/works/updated_date=2024-02-01/part_000.gz",
        ]
        assert plan.snapshot_dates == ["2024-01-01", "2024-02-01"]
        assert plan.manifest_sha256 is not None and len(plan.manifest_sha256) == 64
        assert [p.expected_records for p in plan.parts] == [2, 5, 1]
        assert plan.expected_records == 8 and plan.manifest_records == 8
        assert len(plan.redirect_files) == 1
        redirects = list(read_redirects(plan))
        assert Redirect(id="W9", target="W1", source=str(plan.redirect_files[0])) in redirects
        assert [r.id for r in redirects if isinstance(r, Redirect)] == ["W9", "W8"]
        assert any(isinstance(r, ReadIssue) and r.line == 4 for r in redirects)


def test_duplicate_ids_across_partitions_kept_in_order(tmp_path: Path) -> None:
    plan = plan_source(make_legacy(tmp_path / "snap"))
    works, issues = read_all(plan)
    assert issues == []
    assert [(w.id, w.title) for w in works] == [
        ("W1", "old 1"),
        ("W3", "T 3"),
        ("W2", "T 2"),
        ("W1", "new 1"),
    ]


def test_count_mismatch_reported(tmp_path: Path) -> None:
    plan = plan_source(make_legacy(tmp_path / "snap"))
    counts: dict[Path, int] = {}
    for part in plan.parts:
        counts[part.path] = sum(isinstance(o, Work) for o in read_part(part))
    msgs = check_counts(plan, counts)
    assert len(msgs) == 1 and "manifest says 5 records, read 1" in msgs[0].message


def test_2026_layout_with_deleted_ids(tmp_path: Path) -> None:
    root = make_2026(tmp_path / "snap")
    for src in (root, root / "data", root / "data" / "jsonl" / "works"):
        plan = plan_source(src)
        assert plan.layout == "openalex-2026"
        assert plan.snapshot_dates == ["2026-01-01", "2026-02-01"]
        assert [p.expected_records for p in plan.parts] == [2, 1]
        assert plan.manifest is not None and plan.manifest.name == "manifest.json"
        # the manifest names a partition that is not on disk
        assert any("2026-03-01" in i.message for i in plan.issues)
        out = list(read_redirects(plan))
        assert [(r.id, r.target) for r in out if isinstance(r, Redirect)] == [
            ("W77", None),
            ("W78", None),
        ]
        assert any(isinstance(r, ReadIssue) and r.line == 4 for r in out)
    works, _ = read_all(plan_source(root))
    assert [w.title for w in works] == ["T 10", "T 11", "newer 10"]


def test_truncated_gzip_yields_records_before_and_an_issue(tmp_path: Path) -> None:
    works_dir = tmp_path / "data" / "works" / "updated_date=2024-01-01"
    lines = [json.dumps(rec(i, "x" * 200)) for i in range(1, 400)]
    write_gz(works_dir / "part_000.gz", lines)
    data = (works_dir / "part_000.gz").read_bytes()
    (works_dir / "part_000.gz").write_bytes(data[: len(data) // 2])
    works, issues = read_all(plan_source(tmp_path))
    assert 0 < len(works) < 399
    assert [w.id for w in works] == [f"W{i}" for i in range(1, len(works) + 1)]
    assert len(issues) == 1 and issues[0].file.endswith("part_000.gz")
    assert "truncated" in issues[0].message


def test_bad_lines_become_issues(tmp_path: Path) -> None:
    f = tmp_path / "works.jsonl"
    f.write_text(
        "\n".join(
            [
                json.dumps(rec(1)),
                "this is not json",
                json.dumps({"title": "no id here"}),
                "",
                json.dumps({"id": "W5", "authorships": 7}),
                json.dumps(rec(6)),
            ]
        )
        + "\n"
    )
    plan = plan_source(f)
    assert plan.format == "openalex" and plan.layout == "files"
    works, issues = read_all(plan)
    assert [w.id for w in works] == ["W1", "W6"]
    assert [i.line for i in issues] == [2, 3, 5]
    assert all(i.file == str(f) for i in issues)
    assert "id" in issues[1].message


def test_json_array_and_api_page(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_text(json.dumps([rec(1), rec(2)]))
    p = tmp_path / "page.json"
    p.write_text(json.dumps({"meta": {"count": 1}, "results": [rec(3), {"title": "x"}]}))
    w1, i1 = read_all(plan_source(a))
    assert [w.id for w in w1] == ["W1", "W2"] and i1 == []
    w2, i2 = read_all(plan_source(p))
    assert [w.id for w in w2] == ["W3"] and len(i2) == 1
    plan = plan_source(tmp_path)  # a directory of plain files
    assert plan.layout == "files" and len(plan.parts) == 2


def test_plain_jsonl_gz(tmp_path: Path) -> None:
    f = tmp_path / "w.jsonl.gz"
    write_gz(f, [json.dumps(rec(4))])
    works, issues = read_all(plan_source(f))
    assert [w.id for w in works] == ["W4"] and issues == []


def test_empty_dir_and_missing_path_raise(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        plan_source(tmp_path)
    assert e.value.hint
    with pytest.raises(InputError, match="does not exist"):
        plan_source(tmp_path / "nope")
    with pytest.raises(InputError):
        plan_source(tmp_path, fmt="marc21")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(InputError):
        plan_source(tmp_path / "notes.txt")


def test_format_override_and_csl_sniffing(tmp_path: Path) -> None:
    f = tmp_path / "lib.json"
    f.write_text(
        json.dumps(
            [
                {
                    "id": "k1",
                    "type": "article-journal",
                    "title": "CSL T",
                    "author": [{"family": "Doe", "given": "Jane"}],
                    "issued": {"date-parts": [[2019]]},
                }
            ]
        )
    )
    assert plan_source(f).format == "csl"
    assert plan_source(f, fmt="csl").parts[0].format == "csl"
    works, _ = read_all(plan_source(f))
    assert works[0].id == "csl:k1" and works[0].year == 2019


def test_files_mode_skips_manifests_and_id_lists(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(rec(1)) + "\n")
    (tmp_path / "manifest.json").write_text('{"entries": []}')
    with gzip.open(tmp_path / "deleted_ids.csv.gz", "wt") as fh:
        fh.write("id\nW5\n")
    plan = plan_source(tmp_path)
    assert [p.path.name for p in plan.parts] == ["a.jsonl"]
    missing = plan.parts[0].path
    missing.unlink()
    out = list(read_part(plan.parts[0]))
    assert len(out) == 1 and isinstance(out[0], ReadIssue) and "missing" in out[0].message
