"""The embedded index: build (atomic, upserts, redirects), exact lookups, title retrieval."""

from __future__ import annotations

import errno
import importlib.util
import json
import multiprocessing as mp
import os
import shutil
import sqlite3
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from citejudge.errors import IndexError_
from citejudge.index import (
    EXACT_TITLE_SCORE,
    WorldIndex,
    build_index,
    build_index_from_works,
    query_terms,
)
from citejudge.index import build as build_mod
from citejudge.index.build import SCHEMA_VERSION, _copy_for_update, fold_title
from citejudge.index.codec import RecordCodec
from citejudge.match.normalize import fold, title_key
from citejudge.records import Author, Redirect, Version, Work

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def _synth() -> ModuleType:
    name = "make_synthetic_snapshot"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "scripts" / "make_synthetic_snapshot.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _works() -> list[Work]:
    return [
        Work(
            id="W1",
            title="Deep residual learning for image recognition",
            authors=[Author(name="Kaiming He"), Author(name="Xiangyu Zhang")],
            year=2016,
            doi="10.1109/cvpr.2016.90",
            mag="2194775991",
            versions=[Version(year=2015, arxiv="1512.03385", kind="preprint")],
        ),
        Work(
            id="W2",
            title="Attention Is All You Need",
            year=2017,
            arxiv="1706.03762",
            versions=[Version(doi="10.48550/arxiv.1706.03762", kind="preprint")],
        ),
        Work(
            id="W3",
            title="A <i>BRCA1</i> study: mutations & risk",
            pmid="31452104",
            pmcid="PMC6713186",
        ),
        Work(id="W4", title="Shared DOI one", doi="10.5555/shared"),
        Work(id="W5", title="Shared DOI two", doi="10.5555/shared"),
        Work(id="bib:knuth84", title="Literate programming", year=1984),
    ]


@pytest.fixture
def world(tmp_path: Path) -> WorldIndex:
    redirects = [Redirect("W10", "W1"), Redirect("W11", "W10"), Redirect("W12", None)]
    report = build_index_from_works(_works(), tmp_path / "w.index", redirects=redirects)
    assert report.ok and report.works == 6 and report.redirects == 3
    return WorldIndex.open(tmp_path / "w.index")


def test_lookups_by_every_id_kind(world: WorldIndex) -> None:
    ids = lambda ws: [w.id for w in ws]  # noqa: E731
    assert ids(world.by_doi("https://doi.org/10.1109/CVPR.2016.90")) == ["W1"]
    assert ids(world.by_doi("10.5555/shared")) == ["W4", "W5"]  # a DOI may name several works
    assert ids(world.by_doi("10.48550/arXiv.1706.03762")) == ["W2"]  # a version's DOI
    assert ids(world.by_arxiv("arXiv:1512.03385v2")) == ["W1"]  # a version's arXiv id
    assert ids(world.by_arxiv("https://arxiv.org/abs/1706.03762")) == ["W2"]
    assert ids(world.by_pmid("PMID: 31452104")) == ["W3"]
    assert ids(world.by_pmcid("6713186")) == ["W3"]
    assert not hasattr(world, "by_mag")  # no citation states a MAG id: no lookup key for it
    assert world.get("W1").mag == "2194775991"  # type: ignore[union-attr]  # kept in the record
    assert ids(world.by_openalex("https://openalex.org/W2")) == ["W2"]
    assert ids(world.by_openalex("W11")) == ["W1"]  # follows merges
    assert ids(world.by_title_key(title_key("A BRCA1 Study -- Mutations and/& Risk") or "")) == []
    assert ids(world.by_title_key(title_key("a brca1 study: MUTATIONS & risk") or "")) == ["W3"]
    assert world.by_doi("not a doi") == [] and world.by_pmid("abc") == []
    got = world.get("W1")
    assert got is not None and got.authors[0].name == "Kaiming He" and got.year == 2016
    assert world.get("W999") is None
    assert ids(world.get_many(["W3", "W999", "W1", "W3"])) == ["W3", "W1"]


def test_decoded_records_are_kept_and_handed_out_as_copies(
    world: WorldIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = world.get("W1")
    assert first is not None
    first.venue_alt = ["changed by a caller"]  # (the matcher sets aliases this way)
    decoded: list[bytes] = []
    monkeypatch.setattr(
        world, "decode", lambda data: decoded.append(data) or world.codec.decode(data)
    )
    again = world.by_doi("10.1109/cvpr.2016.90")
    assert [w.id for w in again] == ["W1"] and again[0] is not first
    assert again[0].venue_alt != ["changed by a caller"]
    assert decoded == []  # read from the kept records
    monkeypatch.setattr("citejudge.index.store.WORK_CACHE", 1)
    assert [w.id for w in world.get_many(["W2", "W3"])] == ["W2", "W3"]
    assert len(world._work_cache) == 1 and len(decoded) == 2


def test_redirects_followed(world: WorldIndex) -> None:
    work, chain = world.follow("W11")
    assert work is not None and work.id == "W1" and chain == ["W11", "W10", "W1"]
    assert world.follow("W12") == (None, ["W12"])  # deleted
    assert world.follow("W1")[1] == ["W1"]
    assert world.redirect("W12") == Redirect("W12", None, None)
    assert world.redirect("W1") is None
    assert world.by_openalex("W12") == []


def test_search_title_robust(world: WorldIndex) -> None:
    hits = world.search_title("Attention is all you need")
    assert hits[0] == ("W2", EXACT_TITLE_SCORE)
    assert world.search_title("atention is ALL you need!", k=3)[0][0] == "W2"  # typo, case
    assert world.search_title("deep residual learning image", k=3)[0][0] == "W1"  # dropped words
    assert (
        world.search_title('deep: "residual" learning (for) image recognition AND OR NOT *')[0][0]
        == "W1"
    )
    assert world.search_title("") == [] and world.search_title("the of and") == []
    assert world.search_title('"unbalanced quote: (') == []
    assert world.search_title("Attention", k=0) == []
    assert query_terms("The Role of BRCA1 in the Cell") == ["role", "brca1", "cell"]


def test_info(world: WorldIndex) -> None:
    info = world.info()
    assert (
        info["works"] == 6 and info["redirects"] == 3 and info["schema_version"] == SCHEMA_VERSION
    )
    assert info["bytes"] > 0 and info["sources"][0]["works"] == 6
    assert info["snapshot_dates"] == [] and info["title_docs"] == 6
    per = info["bytes_per_work"]
    assert set(per) == {"records", "lookups", "title_index", "other"}
    assert per["records"] > 0 and per["lookups"] > 0 and per["title_index"] > 0
    assert abs(sum(per.values()) * 6 - info["bytes"]) <= 6  # the parts add up to the whole
    json.dumps(info)


def test_upsert_replaces_record_and_keys(tmp_path: Path) -> None:
    path = tmp_path / "w.index"
    build_index_from_works(_works(), path)
    new = Work(id="W1", title="Completely different title now", doi="10.1234/new")
    report = build_index_from_works([new, Work(id="W7", title="Seventh")], path, update=True)
    assert report.duplicates_overwritten == 1 and report.works == 7
    ix = WorldIndex.open(path)
    w1 = ix.get("W1")
    assert w1 is not None and w1.title == "Completely different title now"
    assert ix.by_doi("10.1109/cvpr.2016.90") == [] and ix.by_arxiv("1512.03385") == []
    assert [w.id for w in ix.by_doi("10.1234/new")] == ["W1"]
    assert ix.by_title_key("deepresiduallearningforimagerecognition") == []
    assert all(
        wid != "W1" for wid, _ in ix.search_title("deep residual learning image recognition")
    )
    assert ix.search_title("completely different title", exact=False)[0][0] == "W1"
    assert [w.id for w in ix.by_doi("10.5555/shared")] == ["W4", "W5"]  # untouched
    assert len(ix.info()["sources"]) == 2


def test_duplicate_in_one_build_last_wins(tmp_path: Path) -> None:
    works = [
        Work(id="W1", title="First version", doi="10.1000/a"),
        Work(id="W1", title="Second", doi="10.1000/b"),
    ]
    report = build_index_from_works(works, tmp_path / "i")
    assert report.works == 1 and report.duplicates_overwritten == 1
    ix = WorldIndex.open(tmp_path / "i")
    assert ix.by_doi("10.1000/a") == [] and [w.title for w in ix.by_doi("10.1000/b")] == ["Second"]
    assert ix.search_title("first version", exact=False) == []


def test_checkpoints_commit_and_spill_on_schedule_and_change_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tantivy commits every CHECKPOINT_WORKS works, lookup runs go out half-way between two
    commits; the index answers as one built without checkpoints (duplicates included)."""
    works = [
        Work(id=f"W{i % 170}", title=f"Checkpointed study {i} of graph kernels", doi=f"10.9/{i}")
        for i in range(200)
    ]
    build_index_from_works(works, tmp_path / "plain")
    commits: list[int] = []
    spills: list[int] = []
    real_twriter = build_mod._Writer.twriter.fget  # type: ignore[attr-defined]
    real_spill = build_mod.LookupWriter.spill

    class Counting:
        """The Tantivy writer, its commits counted (by the works added before each)."""

        def __init__(self, writer: Any) -> None:
            self.writer = writer

        def __getattr__(self, name: str) -> Any:
            if name == "commit":
                commits.append(self.writer.added)
            return getattr(self.writer._twriter, name)

    def twriter(self: Any) -> Any:
        real_twriter(self)  # (creates it on first use)
        return Counting(self)

    def spill(self: Any) -> None:
        spills.append(len(self._h))
        real_spill(self)

    monkeypatch.setattr(build_mod, "BATCH", 10)
    monkeypatch.setattr(build_mod, "CHECKPOINT_WORKS", 40)
    monkeypatch.setattr(build_mod._Writer, "twriter", property(twriter))
    monkeypatch.setattr(build_mod.LookupWriter, "spill", spill)
    report = build_index_from_works(works, tmp_path / "ck")
    assert report.works == 170 and report.duplicates_overwritten == 30
    # a commit after each 40 works, then the finish's; a run half-way between two commits
    # (after 20, 60, ... 180 works: the keys of 20 works, then of 40 each), then the finish's
    assert commits[:5] == [40, 80, 120, 160, 200] and commits[5:] == [200]
    unit = spills[0]
    assert unit > 0 and spills == [unit, 2 * unit, 2 * unit, 2 * unit, 2 * unit, unit]
    with WorldIndex.open(tmp_path / "plain") as a, WorldIndex.open(tmp_path / "ck") as b:
        for i in (0, 5, 169, 171, 199):
            assert [w.id for w in a.by_doi(f"10.9/{i}")] == [w.id for w in b.by_doi(f"10.9/{i}")]
        for i in (35, 101, 169, 185):  # (ids W0-W29 are given twice: works 170-199 win)
            q = f"checkpointed study {i} of graph kernels"
            first = b.search_title(q, exact=False)[0]
            assert first[0] == a.search_title(q, exact=False)[0][0] == f"W{i % 170}"
    for name in (build_mod.LOOKUP_FILE, "works.sqlite"):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "ck" / name).read_bytes()


def test_atomic_build_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "w.index"

    def boom(self: object, batch: object) -> None:
        raise RuntimeError("killed mid-build")

    many = [Work(id=f"W{i}", title=f"title {i}") for i in range(5000)]
    with monkeypatch.context() as m:
        m.setattr(build_mod._Writer, "add_batch", boom)
        with pytest.raises(RuntimeError):
            build_index_from_works(many, path)
    assert not path.exists() and list(tmp_path.iterdir()) == []
    build_index_from_works(_works(), path)
    before = (path / "meta.json").read_text()
    with monkeypatch.context() as m:
        m.setattr(build_mod._Writer, "add_batch", boom)
        with pytest.raises(RuntimeError):
            build_index_from_works(many, path, update=True)
        with pytest.raises(RuntimeError):
            build_index_from_works(many, path)
    assert (path / "meta.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.index"]
    assert WorldIndex.open(path).info()["works"] == 6


def test_open_errors(tmp_path: Path) -> None:
    with pytest.raises(IndexError_) as ei:
        WorldIndex.open(tmp_path / "nope")
    assert ei.value.hint and "index build" in ei.value.hint
    build_index_from_works(_works(), tmp_path / "i")
    meta = json.loads((tmp_path / "i" / "meta.json").read_text())
    meta["schema_version"] = 999
    (tmp_path / "i" / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexError_, match="schema version 999"):
        WorldIndex.open(tmp_path / "i")


def _child(path: str, out: mp.Queue) -> None:  # type: ignore[type-arg]
    ix = WorldIndex.open(path)
    out.put([w.id for w in ix.by_doi("10.5555/shared")] + [ix.search_title("attention need")[0][0]])


def test_read_only_open_by_two_processes(world: WorldIndex) -> None:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_child, args=(str(world.path), out)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert results == [["W4", "W5", "W2"]] * 2
    assert world.get("W2") is not None  # the parent's handle still works


def test_no_works_leaves_index_alone(tmp_path: Path) -> None:
    report = build_index_from_works([], tmp_path / "i")
    assert not report.ok and report.exit_code == 1 and not (tmp_path / "i").exists()


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fold_title_fast_path_agrees_with_fold(text: str) -> None:
    assert fold_title(text) == fold(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=80))
def test_fold_title_ascii_agrees_with_fold(text: str) -> None:
    assert fold_title(text) == fold(text)


def test_search_title_matches_bruteforce_rapidfuzz(tmp_path: Path) -> None:
    synth = _synth()
    titles = {f"W{i}": synth.synth_title(5, i) for i in range(300)}
    titles["W300"] = titles["W7"]  # an exact duplicate title
    build_index_from_works([Work(id=k, title=v) for k, v in titles.items()], tmp_path / "i")
    ix = WorldIndex.open(tmp_path / "i")
    choices = {k: fold(v) for k, v in titles.items()}
    for wid, title in titles.items():
        best = process.extract(
            fold(title), choices, scorer=fuzz.ratio, processor=None, score_cutoff=100.0, limit=None
        )
        assert wid in {key for _, _, key in best}
        expected = min(key for _, _, key in best)
        assert ix.search_title(title, k=5)[0][0] == expected
        bm25_top = ix.search_title(title, k=5, exact=False)[0][0]
        assert bm25_top in {key for _, _, key in best}


def test_build_from_synthetic_snapshot(tmp_path: Path) -> None:
    synth = _synth()
    snap = tmp_path / "snap"
    summary = synth.make_snapshot(snap, 200, seed=3, parts=3, workers=1)
    assert summary["parts"] == 3
    assert (snap / "data" / "works" / "manifest").is_file()
    assert list((snap / "data" / "merged_ids" / "works").glob("*.csv.gz"))
    # determinism
    again = synth.make_snapshot(tmp_path / "snap2", 200, seed=3, parts=3, workers=1)
    assert again["parts"] == 3
    for p in (snap / "data" / "works").rglob("*.gz"):
        q = tmp_path / "snap2" / p.relative_to(snap)
        assert p.read_bytes() == q.read_bytes()

    progress: list[int] = []
    report = build_index(
        [snap, tmp_path / "missing"], tmp_path / "i", workers=2, progress=progress.append
    )
    assert report.ok and report.bad_sources == [str(tmp_path / "missing")]
    assert report.works + report.duplicates_overwritten == 200
    assert report.manifest_mismatches == [] and progress and progress[-1] == 200
    ix = WorldIndex.open(tmp_path / "i")
    info = ix.info()
    assert info["works"] == report.works and info["redirects"] == report.redirects > 0
    assert info["snapshot_dates"] and info["sources"][0]["manifest_sha256"]
    some = ix.get(f"W{synth.ID_BASE + 5}")
    assert some is not None and some.authors and some.title
    assert ix.search_title(some.title)[0][1] == EXACT_TITLE_SCORE
    if some.doi:
        assert some.id in [w.id for w in ix.by_doi(some.doi)]
    red = ix._db.execute("SELECT id, target FROM redirects LIMIT 1").fetchone()
    assert ix.follow(red[0])[0] is not None

    # a manifest that disagrees with the parts is reported, the build goes on
    manifest = json.loads((snap / "data" / "works" / "manifest").read_text())
    manifest["entries"][0]["meta"]["record_count"] += 5
    (snap / "data" / "works" / "manifest").write_text(json.dumps(manifest))
    report2 = build_index([snap], tmp_path / "i", workers=1)
    assert report2.ok and any("manifest says" in m for m in report2.manifest_mismatches)


def test_all_sources_bad(tmp_path: Path) -> None:
    report = build_index([tmp_path / "missing"], tmp_path / "i")
    assert not report.ok and report.issues and not (tmp_path / "i").exists()


@pytest.mark.shared
def test_build_from_shared_openalex_works(tmp_path: Path) -> None:
    src = SHARED / "data" / "openalex" / "works.jsonl"
    if not src.is_file():
        pytest.skip("../shared is absent")
    report = build_index([src], tmp_path / "i", workers=2)
    assert report.works == 492, report.to_dict()
    ix = WorldIndex.open(tmp_path / "i")
    sample = ix._db.execute("SELECT id FROM works ORDER BY id LIMIT 50").fetchall()
    for (wid,) in sample:
        w = ix.get(wid)
        assert w is not None
        if w.doi:
            assert wid in [x.id for x in ix.by_doi(w.doi)]
        if w.title and query_terms(w.title):
            assert wid in [h[0] for h in ix.search_title(w.title, k=10)]


def _slow_build(path: str) -> None:
    import time as _time

    def works() -> object:
        for i in range(10_000):
            if i == 3000:
                _time.sleep(60)
            yield Work(id=f"W{i}", title=f"slow title {i}")

    build_index_from_works(works(), Path(path))  # type: ignore[arg-type]


def test_killed_build_leaves_index_unchanged(tmp_path: Path) -> None:
    import os
    import signal
    import time

    path = tmp_path / "w.index"
    build_index_from_works(_works(), path)
    before = (path / "meta.json").read_text()
    proc = mp.get_context("fork").Process(target=_slow_build, args=(str(path),))
    proc.start()
    tmp = tmp_path / f"w.index.tmp-{proc.pid}"
    deadline = time.monotonic() + 20
    while not (tmp / "works.sqlite").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert proc.pid is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=10)
    assert tmp.exists()  # the interrupted build's scratch dir...
    assert (path / "meta.json").read_text() == before  # ...but the index is untouched
    assert WorldIndex.open(path).info()["works"] == 6
    build_index_from_works([Work(id="W9", title="Nine")], path, update=True)
    assert not tmp.exists()  # removed by the next build
    assert WorldIndex.open(path).info()["works"] == 7


# What a full disk raised, seen on small tmpfs mounts: SQLite's SQLITE_FULL from the writer's
# insert; Tantivy's writer, whose indexing thread died on the IO error, says only that it was
# killed (taken for a full disk when little space is left); an OS write (a spill) gives ENOSPC.
_TANTIVY_KILLED = ValueError(
    "An error occurred in a thread: 'An index writer was killed.. A worker thread encountered "
    "an error (io::Error most likely) or panicked.'"
)
_DISK_FULL = [
    sqlite3.OperationalError("database or disk is full"),
    OSError(errno.ENOSPC, "No space left on device"),
    _TANTIVY_KILLED,
]


def _little_space(path: object) -> SimpleNamespace:
    return SimpleNamespace(total=10 * 2**30, used=10 * 2**30 - 2**20, free=2**20)


@pytest.mark.parametrize("exc", _DISK_FULL, ids=["sqlite", "os", "tantivy"])
def test_full_disk_is_one_clear_error_and_the_index_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: Exception
) -> None:
    path = tmp_path / "w.index"
    build_index_from_works(_works(), path)
    before = (path / "meta.json").read_text()

    def full(self: object, batch: object) -> None:
        raise exc

    monkeypatch.setattr(build_mod._Writer, "add_batch", full)
    monkeypatch.setattr(build_mod.shutil, "disk_usage", _little_space)
    with pytest.raises(IndexError_) as err:
        build_index_from_works([Work(id="W9", title="Nine")], path)
    assert "disk the build writes to is full" in str(err.value)
    assert f"the index at {path} is unchanged" in str(err.value)
    assert err.value.hint and "free space" in err.value.hint
    assert err.value.__cause__ is exc
    assert (path / "meta.json").read_text() == before
    assert WorldIndex.open(path).info()["works"] == 6
    assert [p.name for p in tmp_path.iterdir()] == ["w.index"]  # no scratch left behind
    with pytest.raises(IndexError_, match=f"no index was made at {tmp_path / 'new.index'}"):
        build_index_from_works([Work(id="W9", title="Nine")], tmp_path / "new.index")


def test_other_errors_are_not_called_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: object, batch: object) -> None:
        raise sqlite3.OperationalError("no such table: works_load")

    monkeypatch.setattr(build_mod._Writer, "add_batch", broken)
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        build_index_from_works(_works(), tmp_path / "w.index")

    def killed(self: object, batch: object) -> None:
        raise _TANTIVY_KILLED

    monkeypatch.setattr(build_mod._Writer, "add_batch", killed)
    with pytest.raises(ValueError, match="writer was killed"):  # with room left: not the disk
        build_index_from_works(_works(), tmp_path / "w.index")


def test_cli_reports_a_full_disk_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from citejudge.cli import main

    src = tmp_path / "works.jsonl"
    src.write_text(json.dumps({"id": "https://openalex.org/W1", "title": "One"}) + "\n")

    def full(self: object, batch: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(build_mod._Writer, "add_batch", full)
    code = main(["index", "build", "--index", str(tmp_path / "ix"), "--workers", "1", str(src)])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert "citejudge: a disk the build writes to is full" in err


def test_later_part_wins_whatever_order_parts_arrive(tmp_path: Path) -> None:

    enc = RecordCodec()
    root = tmp_path / "raw"
    root.mkdir()
    writer = build_mod._Writer(root, update=False)

    def part(p: int, *works: Work) -> build_mod.Batch:
        batcher = build_mod._Batcher(enc.encode_all, writer.rowid_base(p))
        for w in works:
            assert batcher.add(w) is None
        batch = batcher.rest()
        assert batch is not None
        return batch

    writer.add_batch(part(2, Work(id="W1", title="From part two", doi="10.1000/two")))
    writer.add_batch(
        part(
            0,
            Work(id="W1", title="From part zero", doi="10.1000/zero"),
            Work(id="W2", title="Other"),
        )
    )
    assert writer.finish() == (2, 0, 1)
    (root / "meta.json").write_text(
        json.dumps({"schema_version": build_mod.SCHEMA_VERSION, "records": enc.describe()})
    )
    ix = WorldIndex.open(root)
    w1 = ix.get("W1")
    assert w1 is not None and w1.title == "From part two"
    assert ix.by_doi("10.1000/zero") == [] and len(ix.by_doi("10.1000/two")) == 1


def test_batches_encode_each_record_as_encode_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's records are encoded together; each is the bytes ``encode`` gives it, in order."""
    from citejudge.index.codec import train_dictionary

    works = [
        Work(
            id=f"W{i}",
            title=f"Work number {i} on {'graphs' if i % 3 else 'proteins'}",
            authors=[Author(name=f"Ada Lovelace{i % 7}")],
            year=1990 + i % 30,
            doi=f"10.{1000 + i % 9}/x{i}",
            abstract="word " * (i % 40) or None,
        )
        for i in range(1500)
    ]
    plain = RecordCodec()
    dictionary = train_dictionary([plain.pack(w) for w in works])
    assert dictionary is not None
    monkeypatch.setattr(build_mod, "BATCH", 7)
    for codec in (plain, RecordCodec(dictionary=dictionary), RecordCodec("matching")):
        batcher = build_mod._Batcher(codec.encode_all, 100)
        batches = [b for b in map(batcher.add, works[:30]) if b is not None]
        last = batcher.rest()
        assert last is not None and batcher.rest() is None
        batches.append(last)
        assert [len(b[0]) for b in batches] == [7, 7, 7, 7, 2]
        ids = [i for b in batches for i in b[1]]
        blobs = [x for b in batches for x in b[2]]
        assert ids == [w.id for w in works[:30]]
        assert blobs == [codec.encode(w) for w in works[:30]]
        assert [codec.decode(x).id for x in blobs] == ids
        assert [codec.decode_title(x) for x in blobs] == [w.title for w in works[:30]]
    exact = build_mod._Batcher(plain.encode_all, 0)
    assert sum(b is not None for b in map(exact.add, works[:28])) == 4
    assert exact.rest() is None and exact.pending() == 0


def test_a_batch_that_fails_to_encode_is_reported_not_lost_or_misaligned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citejudge.snapshot.layout import Part

    works = [Work(id=f"W{i}", title=f"Title {i}") for i in range(10)]
    calls = {"n": 0}
    real = RecordCodec.encode_all

    def flaky(self: RecordCodec, batch: list[Work]) -> list[bytes]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("disk full")
        return real(self, batch)

    monkeypatch.setattr(build_mod, "BATCH", 4)
    monkeypatch.setattr(RecordCodec, "encode_all", flaky)
    batcher = build_mod._Batcher(RecordCodec().encode_all, 0)
    for w in works[:3]:
        assert batcher.add(w) is None
    with pytest.raises(ValueError):
        batcher.add(works[3])
    assert batcher.pending() == 4  # the batch stays whole
    full = batcher.rest()
    assert full is not None and full[1] == ["W0", "W1", "W2", "W3"]
    assert [RecordCodec().decode(b).id for b in full[2]] == full[1]

    # a part whose last batch cannot be encoded: counted out and reported, the worker goes on
    calls["n"] = 0
    path = tmp_path / "part.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"https://openalex.org/W{i}", "title": f"T {i}"}) for i in range(3)
        )
    )
    msgs = list(build_mod._part_messages(0, Part(path, "openalex"), 0, ("all", None, None)))
    assert [m[0] for m in msgs] == ["done"]
    count, issues = msgs[0][2]
    assert count == 0
    assert len(issues) == 1 and "3 works not indexed" in issues[0].message


def test_a_worker_collects_the_cycles_a_bibtex_part_leaves(tmp_path: Path) -> None:
    import gc
    import queue

    from citejudge.snapshot.layout import Part

    bib = tmp_path / "refs.bib"
    entries = [
        f"@article{{k{i},\n  title = {{On graphs {i}}},\n  author = {{Lovelace, Ada}},\n"
        f"  year = {{20{i % 90:02d}}},\n  doi = {{10.1000/x{i}}}\n}}\n"
        for i in range(200)
    ]
    bib.write_text("".join(entries) + "@article{broken,\n  title = {unclosed\n")
    tasks: queue.Queue[object] = queue.Queue()
    results: queue.Queue[object] = queue.Queue()
    tasks.put((0, Part(bib, "bibtex"), 0, ("all", None, None)))
    tasks.put(None)
    gc.collect()
    try:
        build_mod._worker(tasks, results)
        left = gc.collect()
    finally:
        gc.enable()
    msgs = [results.get_nowait() for _ in range(results.qsize())]
    assert msgs[-1][0] == "done" and msgs[-1][2][0] >= 200
    assert left == 0


def _dump_index(path: Path) -> dict[str, list[tuple[object, ...]]]:
    import sqlite3

    db = sqlite3.connect(str(path / "works.sqlite"))
    out = {
        "works": db.execute("SELECT rowid, id, data FROM works ORDER BY rowid").fetchall(),
        "lookup": [((path / "lookup.u64").read_bytes(),)],
        "redirects": db.execute("SELECT id, target, source FROM redirects ORDER BY id").fetchall(),
        "schema": db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
    }
    db.close()
    with WorldIndex.open(path) as ix:
        out["title_docs"] = [(ix.info()["title_docs"],)]
    return out


def test_parallel_serial_and_in_memory_builds_agree(tmp_path: Path) -> None:
    """The workers number rows and build insert tuples; every build path must give one index."""
    from citejudge.snapshot import plan_source, read_part

    synth = _synth()
    snap = tmp_path / "snap"
    synth.make_snapshot(snap, 1500, seed=7, parts=3, workers=1)
    serial = build_index([snap], tmp_path / "serial", workers=1)
    parallel = build_index([snap], tmp_path / "parallel", workers=2)
    assert serial.works == parallel.works > 0
    a, b = _dump_index(tmp_path / "serial"), _dump_index(tmp_path / "parallel")
    assert a == b
    # one part read into memory and built with build_index_from_works: same rows and rowids
    one = tmp_path / "one.jsonl.gz"
    part = plan_source(snap).parts[0]
    one.write_bytes(part.path.read_bytes())
    from_file = build_index([one], tmp_path / "from_file", workers=1)
    works = [w for w in read_part(plan_source(one).parts[0]) if isinstance(w, Work)]
    in_memory = build_index_from_works(works, tmp_path / "in_memory")
    assert from_file.works == in_memory.works
    c, d = _dump_index(tmp_path / "from_file"), _dump_index(tmp_path / "in_memory")
    for table in ("works", "lookup", "schema", "title_docs"):
        assert c[table] == d[table]
    queries = [w.title for w in works[:30] if w.title]
    with WorldIndex.open(tmp_path / "from_file") as x, WorldIndex.open(tmp_path / "in_memory") as y:
        assert [x.search_title(q, 5) for q in queries] == [y.search_title(q, 5) for q in queries]


def _oa(n: int, title: str, updated: str, doi: str | None = None) -> str:
    rec: dict[str, object] = {
        "id": f"https://openalex.org/W{n}",
        "title": title,
        "publication_year": 2020,
        "authorships": [{"author": {"display_name": "Ann Berg"}, "raw_author_name": "Berg, A."}],
        "updated_date": updated,
    }
    if doi:
        rec["doi"] = f"https://doi.org/{doi}"
    return json.dumps(rec)


def _gz(path: Path, text: str) -> None:
    import gzip

    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


def _old_snapshot(root: Path) -> Path:
    works = root / "data" / "works"
    _gz(
        works / "updated_date=2024-01-01" / "part_000.gz",
        "\n".join(
            [
                _oa(1, "Graph kernels for protein function prediction", "2024-01-01", "10.1/one"),
                _oa(
                    2, "Sparse coding of natural images in visual cortex", "2024-01-01", "10.1/two"
                ),
                _oa(3, "A survey of federated optimisation methods", "2024-01-01", "10.1/three"),
                _oa(4, "Reservoir computing with delay systems", "2024-01-01", "10.1/four"),
            ]
        )
        + "\n",
    )
    return root


def test_incremental_update_reads_only_newer_partitions_and_retires_merged_ids(
    tmp_path: Path,
) -> None:
    """A newer snapshot updates an index: only its new partitions are read; merged and deleted
    ids remove the works the index had; the result answers like a full build of the new one."""
    old = _old_snapshot(tmp_path / "old")
    index = tmp_path / "w.index"
    assert build_index([old], index, workers=1).works == 4
    # the newer snapshot: W2 moved to a new partition with a corrected title, W5 is new,
    # W3 was merged into W1 and W4 deleted (dated files); the old partition lost W2, W3, W4
    new = tmp_path / "new"
    works = new / "data" / "works"
    _gz(
        works / "updated_date=2024-01-01" / "part_000.gz",
        _oa(1, "Graph kernels for protein function prediction", "2024-01-01", "10.1/one") + "\n",
    )
    _gz(
        works / "updated_date=2024-05-01" / "part_000.gz",
        "\n".join(
            [
                _oa(
                    2,
                    "Sparse coding of natural images in the visual cortex",
                    "2024-05-01",
                    "10.1/two",
                ),
                _oa(5, "Attention for tabular anomaly detection", "2024-05-01", "10.1/five"),
            ]
        )
        + "\n",
    )
    _gz(
        new / "data" / "merged_ids" / "works" / "2024-05-01.csv.gz",
        "merge_date,id,merge_into_id\n2024-05-01,W3,W1\n",
    )
    _gz(new / "data" / "deleted_ids_2024-05-01.csv.gz", "id\nW4\n")
    # the update hard-links the files it never writes into: a witness (more links to the
    # index's files, taken before) shows that none of them changed while the update ran
    witness = tmp_path / "witness"
    shutil.copytree(index, witness, copy_function=os.link)
    before = {p.relative_to(witness): p.read_bytes() for p in witness.rglob("*") if p.is_file()}
    rep = build_index([new], index, workers=1, update=True)
    after = {p.relative_to(witness): p.read_bytes() for p in witness.rglob("*") if p.is_file()}
    assert after == before
    assert rep.since == "2024-01-01" and rep.skipped_parts == 1
    assert rep.retired == ["W3", "W4"]
    full = build_index([new], tmp_path / "full.index", workers=1)
    with WorldIndex.open(index) as ix, WorldIndex.open(tmp_path / "full.index") as fx:
        assert ix.count() == fx.count() == 3
        for q in ("10.1/one", "10.1/two", "10.1/three", "10.1/four", "10.1/five"):
            assert [w.id for w in ix.by_doi(q)] == [w.id for w in fx.by_doi(q)]
        assert ix.by_doi("10.1/three") == [] and ix.by_doi("10.1/four") == []
        assert [w.id for w in ix.by_openalex("W3")] == ["W1"]  # merged: followed
        assert ix.by_openalex("W4") == []  # deleted
        got = ix.get("W2")
        assert (
            got is not None and got.title == "Sparse coding of natural images in the visual cortex"
        )
        assert ix.by_title_key(title_key("Sparse coding of natural images in visual cortex")) == []
        for q in (
            "A survey of federated optimisation methods",
            "Reservoir computing with delay",
            "Sparse coding natural images visual cortex",
            "Attention for tabular anomaly",
        ):
            assert ix.search_title(q, 5) == fx.search_title(q, 5)
        # the vocabulary was rewritten: it has the new title's words (and still those of the
        # retired works, whose terms Tantivy keeps until a merge: a superset of the full build's)
        assert ix._vocab is not None and fx._vocab is not None
        assert ix._vocab.maybe_words(["tabular", "anomaly", "tabulra"]) == ["tabular", "anomaly"]
        assert set(fx._vocab._a.tolist()) <= set(ix._vocab._a.tolist())
        assert ix._respellings("attention for tabulra anomaly") == ["attention for tabular anomaly"]
    assert full.works == 3


def test_an_update_links_the_files_it_never_writes_into(tmp_path: Path) -> None:
    index = tmp_path / "w.index"
    build_index([_old_snapshot(tmp_path / "old")], index, workers=1)
    tmp = tmp_path / "copy"
    _copy_for_update(index, tmp)
    linked = {
        p.relative_to(tmp).as_posix()
        for p in tmp.rglob("*")
        if p.is_file() and p.stat().st_ino == (index / p.relative_to(tmp)).stat().st_ino
    }
    assert {"lookup.u64", "lookup.fence", "vocab.u64"} <= linked
    assert any(n.startswith("tantivy/") and n.endswith(".idx") for n in linked)
    # written in place by an update: copies
    assert not linked & {"works.sqlite", "meta.json", "records.zdict"}
    assert not any(n.endswith(".json") for n in linked)


@settings(max_examples=200, deadline=None)
@given(
    title=st.one_of(st.none(), st.text(max_size=80)), fields=st.sampled_from(["all", "matching"])
)
def test_a_records_title_reads_alone_as_in_the_whole_record(title: str | None, fields: str) -> None:
    codec = RecordCodec(fields)  # type: ignore[arg-type]
    work = Work(
        id="W1", title=title, authors=[Author(name="Ada Lovelace")], abstract="An abstract."
    )
    data = codec.encode(work)
    assert codec.decode_title(data) == codec.decode(data).title == title


_KEY_PROBES = [
    "i:W1",
    "i:W2",
    "d:10.1/x",
    "d:10.2/y",
    "d:10.48550/arxiv.2101.00002",
    "a:2101.00001",
    "a:2101.00002",
    "a:2101.00003",
    "p:123",
    "c:PMC5",
    "t:astudyofthings",
    "t:deeplearningforthemassesasurvey",
    "t:",
    "d:",
    "z:odd",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([None, "", "A study of things", "Deep learning for the masses: a survey"]),
    st.sampled_from([None, "10.1/x", "10.48550/arxiv.2101.00002"]),
    st.sampled_from([None, "2101.00001"]),
    st.sampled_from([None, "123"]),
    st.sampled_from([None, "PMC5"]),
    st.lists(
        st.builds(
            Version,
            doi=st.sampled_from([None, "10.48550/arxiv.2101.00003", "10.2/y"]),
            arxiv=st.sampled_from([None, "2101.00001", "2101.00002"]),
        ),
        max_size=3,
    ),
)
def test_has_key_is_membership_in_work_keys(
    title: str | None,
    doi: str | None,
    arxiv: str | None,
    pmid: str | None,
    pmcid: str | None,
    versions: list[Version],
) -> None:
    work = Work(
        id="W1",
        title=title,
        doi=doi,
        arxiv=arxiv,
        pmid=pmid,
        pmcid=pmcid,
        versions=versions,
    )
    keys = build_mod.work_keys(work, blocks=False)
    for key in {*keys, *_KEY_PROBES}:
        assert build_mod.has_key(work, key) is (key in keys), key
