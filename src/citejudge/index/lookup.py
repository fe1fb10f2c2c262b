"""The lookup file of an index: every lookup key of every work, as one sorted array.

``lookup.u64`` is a flat little-endian array of 64-bit entries ``hash << 32 | rowid``, sorted:
``hash`` is the CRC-32 of a key (``"d:<doi>"``, ``"t:<title key>"``, a title block...)
and ``rowid`` the works row that has it. Eight bytes per key, no page or cell overhead, and a
lookup is two binary searches over a memory map that any number of processes share read-only.
32 bits do not tell keys apart in a world of hundreds of millions of works, so a hit only
proposes rows: readers confirm the key on the decoded record (or compare its title).

The build appends (hash, provisional rowid) pairs in sorted runs of bounded size, then merges
them a stretch of the hash space at a time (consecutive buckets of the top 12 bits, as many as
make about :data:`MERGE_ENTRIES` pairs), mapping provisional rowids to final ones and leaving
out dropped rows: memory is one run or one stretch, whatever the size of the world (a 12-bit
bucket of the whole OpenAlex, ~6G keys, is ~1.5M pairs).
"""

from __future__ import annotations

import mmap
import os
import sys
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # (numpy loads in the build's functions: a reader of the file does without it)
    import numpy as np
    import numpy.typing as npt

    U64 = npt.NDArray[np.uint64]

__all__ = ["FENCE_FILE", "LOOKUP_FILE", "LookupFile", "LookupWriter", "key_hash"]

LOOKUP_FILE = "lookup.u64"
#: Every FENCE_STRIDE-th entry of the lookup file, kept in memory by readers: a lookup binary
#: searches it, then one 16 KiB stretch of the file (a few pages instead of ~30 page touches).
FENCE_FILE = "lookup.fence"
FENCE_STRIDE = 2048
RUN_ENTRIES = 1 << 22  # pairs held in memory before a sorted run goes to disk (48 MiB)
BUCKET_BITS = 12  # runs record where each 1/4096th of the hash space begins in them
MERGE_ENTRIES = 1 << 20  # the merge reads consecutive buckets until it holds about this many pairs
_LOW = 0xFFFFFFFF
_CHUNK = 1 << 18  # pairs a step of the spill (positions packed, rowids gathered and written)
_SHIFT = 32


def key_hash(key: str) -> int:
    """The 32-bit hash under which the lookup file stores ``key``: CRC-32 of its UTF-8 bytes.

    Stable across processes and versions (zlib), three times faster than a truncated BLAKE2b
    (the build hashes nine keys a work), and spread evenly enough over 32 bits for a key that
    only proposes rows; keys differing in one short stretch (a typo) never collide.
    """
    return zlib.crc32(key.encode())


class LookupWriter:
    """Collect (key hash, provisional rowid) pairs; write the sorted lookup file at the end."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        scratch.mkdir(parents=True, exist_ok=True)
        # compact buffers (4 + 8 bytes a pair; a list of ints would take ten times that)
        self._h = array("I")
        self._s = array("Q")
        # per run: its hash file, its rowid file, where each bucket of it begins (and its end)
        # (uint32: a run is short; 16 KiB a run, ~24 MiB for the ~1,500 runs of the whole OpenAlex)
        self._runs: list[tuple[Path, Path, npt.NDArray[np.int64 | np.uint32]]] = []

    def add(self, hashes: Sequence[int], rows: Sequence[int] | U64) -> None:
        """Append pairs (``hashes[i]`` of row ``rows[i]``)."""
        import numpy as np

        self._h.extend(hashes)
        if isinstance(rows, np.ndarray):  # (one copy of the buffer, not an int at a time)
            self._s.frombytes(rows.astype(np.uint64, copy=False).tobytes())
        else:
            self._s.extend(rows)
        if len(self._h) >= RUN_ENTRIES:
            self.spill()

    def spill(self) -> None:
        """Write the buffered pairs as a run sorted by hash (the merge sorts each stretch fully).

        Sorted in place as packed ``hash << 32 | position`` and written in chunks: the spill
        needs 12 bytes a pair besides the buffers (a lexsort of copies needed 32).
        """
        import numpy as np

        n = len(self._h)
        if not n:
            return
        packed = np.frombuffer(self._h, dtype=np.uint32).astype(np.uint64)
        packed <<= np.uint64(_SHIFT)
        for i in range(0, n, _CHUNK):
            packed[i : i + _CHUNK] |= np.arange(i, min(i + _CHUNK, n), dtype=np.uint64)
        packed.sort()
        k = len(self._runs)
        hp, sp = self.scratch / f"run-{k:05d}.h", self.scratch / f"run-{k:05d}.s"
        rows = np.frombuffer(self._s, dtype=np.uint64)
        with sp.open("wb") as f:
            for i in range(0, n, _CHUNK):
                f.write(
                    rows[packed[i : i + _CHUNK] & np.uint64(_LOW)]
                    .astype("<u8", copy=False)
                    .tobytes()
                )
        del rows
        self._h, self._s = array("I"), array("Q")
        packed >>= np.uint64(_SHIFT)
        h = packed.astype(np.uint32)
        del packed
        h.astype("<u4", copy=False).tofile(hp)
        self._runs.append((hp, sp, _bounds(h, _starts().astype(np.uint32)).astype(np.uint32)))

    def finish(
        self,
        out: Path,
        remap: Callable[[U64], U64],
        *,
        drop: U64 | None = None,
        old: Path | None = None,
    ) -> int:
        """Write the lookup file ``out``; returns its number of entries.

        ``remap`` maps provisional rowids to final ones (order-preserving). Entries of the rows
        in ``drop`` (final rowids) are left out, also those of ``old``, the lookup file of the
        index an update starts from (its rowids are final already). ``out`` may be ``old``.
        Slices are read into memory a stretch of buckets at a time (not memory-mapped), so the
        merge holds one stretch (:func:`_stretches`) whatever the size of the world.
        """
        import numpy as np

        self.spill()
        if old is not None and not (old.exists() and old.stat().st_size):
            old = None  # nothing to carry over
        old_at = _bounds(_read(old), _starts() << np.uint64(_SHIFT)) if old is not None else None
        dropped = _DropSet(drop) if drop is not None and len(drop) else None
        tmp = out.with_name(out.name + ".tmp")
        total = 0
        fence: list[U64] = []
        with tmp.open("wb") as f:
            runs_at = [at for _h, _s, at in self._runs]
            for b, e in _stretches([*runs_at, *([old_at] if old_at is not None else [])]):
                pieces: list[U64] = []
                if old is not None and old_at is not None:
                    pieces.append(_slice(old, "<u8", int(old_at[b]), int(old_at[e])))
                for hp, sp, at in self._runs:
                    i, j = int(at[b]), int(at[e])
                    if j > i:
                        ours = remap(_slice(sp, "<u8", i, j))
                        theirs = _slice(hp, "<u4", i, j).astype(np.uint64)
                        pieces.append((theirs << np.uint64(_SHIFT)) | ours)
                if not pieces:
                    continue
                chunk = np.concatenate(pieces)
                if dropped is not None and chunk.size:
                    chunk = dropped.without(chunk)
                chunk = _sorted_set(chunk)  # a pair given twice is stored once
                f.write(chunk.astype("<u8", copy=False).tobytes())
                # a copy: a strided view would keep the whole chunk, so the whole file, alive
                fence.append(chunk[(-total) % FENCE_STRIDE :: FENCE_STRIDE].copy())
                total += int(chunk.size)
        fence_tmp = out.with_name(FENCE_FILE + ".tmp")
        np.concatenate([np.empty(0, np.uint64), *fence]).astype("<u8").tofile(fence_tmp)
        os.replace(tmp, out)
        os.replace(fence_tmp, out.with_name(FENCE_FILE))
        for hp, sp, _at in self._runs:
            hp.unlink(missing_ok=True)
            sp.unlink(missing_ok=True)
        self._runs = []
        return total


@cache
def _starts() -> U64:
    """The first hash of each bucket (the top :data:`BUCKET_BITS` bits), shifted to 32 bits."""
    import numpy as np

    out: U64 = np.arange(1 << BUCKET_BITS, dtype=np.uint64) << np.uint64(32 - BUCKET_BITS)
    return out


def _sorted_set(a: U64) -> U64:
    """The distinct values of ``a``, ascending: ``np.unique``, 25 times faster.

    (numpy 2.3's ``np.unique`` took 1.0 s for a million uint64, against 0.04 s sorting and
    masking: it was 8 of the 13 s a 1M-work build spent after reading.)
    """
    import numpy as np

    s = np.sort(a)
    if s.size < 2:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    out: U64 = s[keep]
    return out


class _DropSet:
    """Rowids to leave out of the lookup file, and the filter that leaves them out.

    A binary search of every entry in the sorted rowids took half a second of a 1M-work
    build's merge (a few thousand duplicates, ten million entries). Entries first go through a
    table of flags, indexed by a multiplicative hash of the rowid, with 16 to 32 slots for each
    dropped rowid (a sixteenth or fewer set): only entries whose slot is set are searched for.
    Memory is 24 to 40 bytes a dropped rowid, whatever the size of the world.
    """

    _MUL = 0x9E3779B97F4A7C15  # (Fibonacci hashing: 2^64 / golden ratio, odd)

    def __init__(self, rowids: U64) -> None:
        import numpy as np

        self.rowids = _sorted_set(rowids.astype(np.uint64, copy=False))
        self.bits = max(10, int(self.rowids.size * 16 - 1).bit_length())
        self.table = np.zeros(1 << self.bits, dtype=bool)
        self.table[self._slots(self.rowids)] = True

    def _slots(self, rowids: U64) -> U64:
        import numpy as np

        with np.errstate(over="ignore"):  # (the product wraps around, as it should)
            out: U64 = (rowids * np.uint64(self._MUL)) >> np.uint64(64 - self.bits)
        return out

    def without(self, entries: U64) -> U64:
        """``entries`` (``hash << 32 | rowid``) but those of the dropped rowids, in order."""
        import numpy as np

        rowids = entries & np.uint64(_LOW)
        maybe = np.flatnonzero(self.table[self._slots(rowids)])
        if not maybe.size:
            return entries
        near = rowids[maybe]
        hit = np.minimum(np.searchsorted(self.rowids, near), self.rowids.size - 1)
        gone = maybe[self.rowids[hit] == near]
        if not gone.size:
            return entries
        keep = np.ones(entries.size, dtype=bool)
        keep[gone] = False
        out: U64 = entries[keep]
        return out


def _slice(path: Path, dtype: str, i: int, j: int) -> U64:
    """Items ``i`` to ``j`` of the flat array file ``path`` (read, not mapped)."""
    import numpy as np

    size = np.dtype(dtype).itemsize
    out: U64 = np.fromfile(path, dtype=dtype, count=j - i, offset=i * size)
    return out


def _bounds(a: npt.NDArray[np.generic], starts: npt.NDArray[np.generic]) -> npt.NDArray[np.int64]:
    """Where each bucket of the sorted ``a`` begins (``starts``: first values), and its end."""
    import numpy as np

    return np.append(np.searchsorted(a, starts), a.size).astype(np.int64)


def _stretches(bounds: list[npt.NDArray[np.int64 | np.uint32]]) -> list[tuple[int, int]]:
    """Consecutive buckets ``[b, e)`` holding about :data:`MERGE_ENTRIES` pairs in all the runs.

    A stretch is at least one bucket, so its size is bounded by the largest of one bucket and
    ``MERGE_ENTRIES``.
    """
    import numpy as np

    nb = _starts().size
    sizes = np.zeros(nb, dtype=np.int64)
    for at in bounds:
        sizes += np.diff(at.astype(np.int64))
    out: list[tuple[int, int]] = []
    b = 0
    held = 0
    for e in range(nb):
        held += int(sizes[e])
        if held >= MERGE_ENTRIES or e == nb - 1:
            out.append((b, e + 1))
            b, held = e + 1, 0
    return out


def _read(path: Path) -> U64:
    import numpy as np

    if path.stat().st_size == 0:
        return np.empty(0, np.uint64)
    return np.memmap(path, dtype="<u8", mode="r")


class LookupFile:
    """Read side: the rowids stored under a key hash (a memory map, shared by every reader).

    Searched with :mod:`bisect` over a ``memoryview`` of the map (a few microseconds, no
    array objects made per lookup): first the fence, in memory, then one fence stretch.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._mm: mmap.mmap | None = None
        data: Any = b""
        if path.stat().st_size:
            with path.open("rb") as f:
                self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            data = self._mm
        if sys.byteorder == "little":
            self._a: Sequence[int] = memoryview(data).cast("Q")
        else:  # the file is little-endian: a big-endian host reads a converted copy
            swapped = array("Q", bytes(data))
            swapped.byteswap()
            self._a = swapped
        n = len(self._a)
        fence_path = path.with_name(FENCE_FILE)
        # an array, not a list: 8 bytes an entry (~24 MiB for the whole OpenAlex, a list would
        # take five times that) and faster to bisect once it outgrows the CPU caches
        fence = array("Q")
        if fence_path.is_file() and fence_path.stat().st_size == -(-n // FENCE_STRIDE) * 8:
            fence.frombytes(fence_path.read_bytes())
            if sys.byteorder != "little":
                fence.byteswap()
        else:  # (a file written without its fence)
            fence.extend(self._a[::FENCE_STRIDE])
        self._fence: Sequence[int] = fence

    def __len__(self) -> int:
        return len(self._a)

    def _find(self, v: int, side: Literal["left", "right"]) -> int:
        """Where ``v`` goes in the file (as ``bisect``), touching one fence stretch of it."""
        cut = bisect_left if side == "left" else bisect_right
        k = cut(self._fence, v)
        lo = max(k - 1, 0) * FENCE_STRIDE
        hi = min(k * FENCE_STRIDE, len(self._a))
        return cut(self._a, v, lo, hi)

    def rows(self, h: int, limit: int | None = None) -> list[int]:
        """Rowids stored under hash ``h``, ascending (at most ``limit`` of them)."""
        a = self._a
        i = self._find(h << 32, "left")
        if i == len(a) or a[i] >> 32 != h:
            return []
        j = self._find((h << 32) | 0xFFFFFFFF, "right")
        if limit is not None:
            j = min(j, i + limit)
        return [x & 0xFFFFFFFF for x in a[i:j]]
