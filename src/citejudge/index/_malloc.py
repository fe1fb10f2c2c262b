"""Keep a long build's resident memory from ratcheting up under glibc's allocator.

glibc serves a request above its *mmap threshold* straight from the OS and gives it back on
free. The threshold is dynamic: each time such a block is freed it rises to that block's size
(up to 32 MiB). After the first large numpy temporary of a lookup spill or a large buffer of a
Tantivy merge is freed, later blocks of a few MiB land in the heap arenas instead, between
small live objects, and stay resident when freed. The larger the world, the larger the merges,
so the build's peak memory grew with it (peak RSS: 1M works 304 MiB, 8M 413; with a fixed
1 MiB threshold and a trim between the build's phases, 8M 308, and 241-245 with SQLite's cache
cut to 16 MiB as well).

:func:`allocate_large_from_os` fixes the threshold (which also turns the dynamic rise off) and
:func:`return_freed_memory` hands free heap pages back (``malloc_trim``). Both are no-ops where
the C library has no such calls (macOS, musl's ``malloc_trim``, a Python without ctypes).

The threshold is a setting of the whole process and outlives the build: a process that goes on
after a build (a benchmark timing queries, a test session) keeps large blocks on mmap, which
costs page faults (about 1.7 s of system time for a build of a million works), not memory.
"""

from __future__ import annotations

import sys
from typing import Any

try:
    import ctypes
except ImportError:  # pragma: no cover - a Python built without libffi
    ctypes = None  # type: ignore[assignment]

M_MMAP_THRESHOLD = -3  # mallopt() parameter number (glibc's malloc.h)
MMAP_THRESHOLD = 1 << 20  # blocks of 1 MiB and more come from the OS and go back to it

_LIBC: Any = None


def _libc() -> Any:
    global _LIBC
    if _LIBC is None:
        _LIBC = False
        if ctypes is not None and sys.platform.startswith("linux"):
            try:
                _LIBC = ctypes.CDLL(None)  # the symbols of the running process: its C library
            except OSError:  # pragma: no cover - a static C library
                _LIBC = False
    return _LIBC or None


def allocate_large_from_os(threshold: int = MMAP_THRESHOLD) -> bool:
    """Serve blocks of ``threshold`` bytes and more from the OS from now on (whole process).

    Inherited by processes forked afterwards. Returns False where it is not available.
    """
    libc = _libc()
    if libc is None or not hasattr(libc, "mallopt"):
        return False
    return bool(libc.mallopt(ctypes.c_int(M_MMAP_THRESHOLD), ctypes.c_int(threshold)))


def return_freed_memory() -> bool:
    """Give the free pages of every heap arena back to the OS; False where not available."""
    libc = _libc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        return False
    libc.malloc_trim(ctypes.c_size_t(0))
    return True
