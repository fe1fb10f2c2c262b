"""The lookup file: sorted runs merged bucket by bucket, rowids remapped, dropped rows left out."""

from __future__ import annotations

import tracemalloc
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.index import lookup as lookup_mod
from citejudge.index.lookup import LookupFile, LookupWriter, key_hash


def _identity(a: lookup_mod.U64) -> lookup_mod.U64:
    return a


def test_key_hash_is_stable_and_32_bit() -> None:
    assert key_hash("d:10.1000/xyz") == key_hash("d:10.1000/xyz")
    # CRC-32 of the UTF-8 bytes: the same in every process and release
    assert key_hash("i:W2741809807") == 0x89E42130
    assert 0 <= key_hash("B:graph neural networks") < 2**32


pairs = st.lists(
    # a few hashes with many rows (spanning fence stretches), and hashes anywhere
    st.tuples(st.one_of(st.integers(0, 3), st.integers(0, 2**32 - 1)), st.integers(1, 5000)),
    min_size=0,
    max_size=300,
)


@settings(max_examples=40, deadline=None)
@given(pairs=pairs, run=st.integers(1, 64), stride=st.integers(1, 9), merge=st.integers(1, 100))
def test_rows_are_exactly_what_was_added(
    tmp_path_factory: pytest.TempPathFactory,
    pairs: list[tuple[int, int]],
    run: int,
    stride: int,
    merge: int,
) -> None:
    tmp = tmp_path_factory.mktemp("lk")
    old = lookup_mod.RUN_ENTRIES, lookup_mod.FENCE_STRIDE, lookup_mod.MERGE_ENTRIES
    # many small sorted runs merged a few buckets at a time; a fence every few entries
    lookup_mod.RUN_ENTRIES, lookup_mod.FENCE_STRIDE = run, stride
    lookup_mod.MERGE_ENTRIES = merge
    try:
        w = LookupWriter(tmp / "runs")
        for h, r in pairs:
            w.add([h], [r])
        n = w.finish(tmp / "lookup.u64", _identity)
        whole = np.fromfile(tmp / "lookup.u64", dtype="<u8")
        assert list(np.fromfile(tmp / "lookup.fence", dtype="<u8")) == list(whole[::stride])
        _check_rows(tmp, pairs, n)
        (tmp / "lookup.fence").unlink()  # a file without its fence: the reader makes one
        _check_rows(tmp, pairs, n)
    finally:
        lookup_mod.RUN_ENTRIES, lookup_mod.FENCE_STRIDE, lookup_mod.MERGE_ENTRIES = old


def _check_rows(tmp: Path, pairs: list[tuple[int, int]], n: int) -> None:
    want: dict[int, set[int]] = defaultdict(set)
    for h, r in pairs:
        want[h].add(r)
    assert n == sum(len(v) for v in want.values())  # a pair given twice is stored once
    f = LookupFile(tmp / "lookup.u64")
    for h, rows in want.items():
        assert f.rows(h) == sorted(rows)
        assert f.rows(h, limit=1) == sorted(rows)[:1]
    assert f.rows(12345678 if 12345678 not in want else 87654321) == []
    assert list(np.fromfile(tmp / "lookup.u64", dtype="<u8")) == sorted(
        (h << 32) | r for h, rs in want.items() for r in rs
    )
    assert not list((tmp / "runs").glob("run-*"))  # runs are removed once merged


def test_remap_drop_and_update_of_an_old_file(tmp_path: Path) -> None:
    # provisional rowids part << 32 | position, mapped to dense ones by the caller
    w = LookupWriter(tmp_path / "runs")
    w.add([7, 7, 9], [(2 << 32) | 1, (1 << 32) | 1, (2 << 32) | 2])
    first = {1: 0, 2: 10}  # rows of part 1 start after 0, those of part 2 after 10

    def remap(a: lookup_mod.U64) -> lookup_mod.U64:
        parts = (a >> np.uint64(32)).tolist()
        pos = (a & np.uint64(0xFFFFFFFF)).tolist()
        return np.array([first[p] + q for p, q in zip(parts, pos, strict=True)], np.uint64)

    out = tmp_path / "lookup.u64"
    w.finish(out, remap)
    f = LookupFile(out)
    assert f.rows(7) == [1, 11] and f.rows(9) == [12]
    # an update: new pairs merged into the old file, a dropped row left out everywhere
    u = LookupWriter(tmp_path / "runs2")
    u.add([7, 5], [20, 21])
    u.finish(out, _identity, drop=np.array([11], np.uint64), old=out)
    f = LookupFile(out)
    assert f.rows(7) == [1, 20] and f.rows(9) == [12] and f.rows(5) == [21]


def test_an_empty_file_answers_nothing(tmp_path: Path) -> None:
    out = tmp_path / "lookup.u64"
    assert LookupWriter(tmp_path / "runs").finish(out, _identity) == 0
    assert out.stat().st_size == 0 and LookupFile(out).rows(1) == [] and len(LookupFile(out)) == 0


@settings(max_examples=30, deadline=None)
@given(
    base=pairs, new=pairs, drop=st.sets(st.integers(1, 5000), max_size=20), merge=st.integers(1, 50)
)
def test_an_update_merges_old_and_new_pairs_stretch_by_stretch(
    tmp_path_factory: pytest.TempPathFactory,
    base: list[tuple[int, int]],
    new: list[tuple[int, int]],
    drop: set[int],
    merge: int,
) -> None:
    tmp = tmp_path_factory.mktemp("lk")
    old = lookup_mod.RUN_ENTRIES, lookup_mod.MERGE_ENTRIES
    lookup_mod.RUN_ENTRIES, lookup_mod.MERGE_ENTRIES = 16, merge
    try:
        out = tmp / "lookup.u64"
        w = LookupWriter(tmp / "runs")
        for h, r in base:
            w.add([h], [r])
        w.finish(out, _identity)
        u = LookupWriter(tmp / "runs2")
        for h, r in new:
            u.add([h], [r])
        n = u.finish(out, _identity, drop=np.array(sorted(drop), np.uint64), old=out)
    finally:
        lookup_mod.RUN_ENTRIES, lookup_mod.MERGE_ENTRIES = old
    want = sorted({(h << 32) | r for h, r in [*base, *new] if r not in drop})
    assert list(np.fromfile(out, dtype="<u8")) == want and n == len(want)


def test_the_merge_holds_one_stretch_not_the_whole_file(tmp_path: Path) -> None:
    # 2M pairs (16 MB merged), merged 16k pairs at a time: the merge's peak memory is a few
    # stretches and the fence, not the file (a strided view kept every merged chunk alive)
    rng = np.random.default_rng(7)
    n = 1 << 21
    old = lookup_mod.RUN_ENTRIES, lookup_mod.MERGE_ENTRIES
    lookup_mod.RUN_ENTRIES, lookup_mod.MERGE_ENTRIES = 1 << 19, 1 << 14
    try:
        w = LookupWriter(tmp_path / "runs")
        hashes = rng.integers(0, 2**32, n, dtype=np.uint64).tolist()
        w.add(hashes, list(range(n)))
        del hashes
        w.spill()
        tracemalloc.start()
        try:
            assert w.finish(tmp_path / "lookup.u64", _identity) == n
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        lookup_mod.RUN_ENTRIES, lookup_mod.MERGE_ENTRIES = old
    assert peak < 4 * 2**20, peak


def test_a_spill_sorts_in_place(tmp_path: Path) -> None:
    # 1M buffered pairs: the spill needs about 12 bytes a pair besides the buffers (sorting
    # copies with lexsort needed 32), and the run is sorted by hash with every pair kept
    rng = np.random.default_rng(3)
    n = 1 << 20
    hashes = rng.integers(0, 2**32, n, dtype=np.uint64)
    rows = rng.integers(0, 2**40, n, dtype=np.uint64)
    w = LookupWriter(tmp_path / "runs")
    w._h.extend(hashes.tolist())
    w._s.extend(rows.tolist())
    tracemalloc.start()
    try:
        w.spill()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, peak
    hp, sp, _at = w._runs[0]
    h = np.fromfile(hp, dtype="<u4").astype(np.uint64)
    s = np.fromfile(sp, dtype="<u8")
    assert (np.diff(h.astype(np.int64)) >= 0).all()
    got, want = np.lexsort((s, h)), np.lexsort((rows, hashes))
    assert (h[got] == hashes[want]).all() and (s[got] == rows[want]).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=60))
def test_sorted_set_is_numpys_unique(values: list[int]) -> None:
    a = np.array(values, dtype=np.uint64)
    got = lookup_mod._sorted_set(a)
    assert got.dtype == np.uint64
    assert got.tolist() == np.unique(a).tolist() == sorted(set(values))


@settings(max_examples=200, deadline=None)
@given(
    drop=st.lists(st.integers(1, 2**32 - 1), min_size=1, max_size=80),
    rows=st.lists(st.integers(1, 2**32 - 1), max_size=200),
    hashes=st.integers(0, 2**32 - 1),
)
def test_drop_set_leaves_out_exactly_the_dropped_rows(
    drop: list[int], rows: list[int], hashes: int
) -> None:
    # entries of dropped rows (some), of other rows, and rows next to dropped ones
    rowids = rows + drop[::2] + [d + 1 for d in drop if d + 1 < 2**32]
    entries = np.array(
        [(((hashes + i) % 2**32) << 32) | r for i, r in enumerate(rowids)], np.uint64
    )
    kept = lookup_mod._DropSet(np.array(drop, np.uint64)).without(entries)
    gone = set(drop)
    assert kept.tolist() == [int(e) for e in entries if int(e) & 0xFFFFFFFF not in gone]
