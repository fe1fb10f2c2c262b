"""The build's allocator settings (citejudge.index._malloc): freed large blocks go back to the OS.

The shape that made a build's peak memory grow with the world: a large block freed (which
raises glibc's dynamic mmap threshold), then blocks of a few MiB with small live allocations
between them, freed while those stay. Each case runs in a fresh interpreter.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citejudge.index import _malloc
from citejudge.index import build as build_mod
from citejudge.index._malloc import allocate_large_from_os, return_freed_memory
from citejudge.records import Author, Work

glibc_only = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's allocator only",
)

_PROBE = textwrap.dedent(
    """
    import sys
    from citejudge.index._malloc import allocate_large_from_os, return_freed_memory

    def anon_mib():
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("RssAnon"):
                    return int(line.split()[1]) // 1024

    mode = sys.argv[1]
    if mode == "fixed":
        assert allocate_large_from_os()
    big = bytearray(16 << 20)  # freed: glibc's threshold rises to 16 MiB
    del big
    base = anon_mib()
    live, blocks = [], []
    for _ in range(100):
        blocks.append(bytearray(2 << 20))  # a lookup spill's or a Tantivy merge's buffer
        live.append(bytearray(100_000))  # what stays in use between them (10 MB in all)
    del blocks
    if mode == "trim":
        assert return_freed_memory()
    print(anon_mib() - base)
    """
)


def _retained_mib(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip())


@glibc_only
def test_freed_blocks_go_back_to_the_os() -> None:
    plain = _retained_mib("plain")
    if plain < 100:
        pytest.skip(f"this glibc returned the freed blocks by itself ({plain} MiB kept)")
    # 200 MiB of blocks freed; the 10 MB still in use (and some slack) may stay
    assert _retained_mib("fixed") <= 20
    assert _retained_mib("trim") <= 20


@glibc_only
def test_calls_are_safe_in_process() -> None:
    assert allocate_large_from_os() is True
    assert return_freed_memory() is True


def test_no_op_without_the_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoSuchCalls:  # a C library without mallopt and malloc_trim (musl, macOS)
        pass

    monkeypatch.setattr(_malloc, "_LIBC", NoSuchCalls())
    assert allocate_large_from_os() is False
    assert return_freed_memory() is False
    monkeypatch.setattr(_malloc, "_LIBC", False)  # no C library found at all
    assert allocate_large_from_os() is False
    assert return_freed_memory() is False


def test_build_sets_the_threshold_and_trims_between_phases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(build_mod, "allocate_large_from_os", lambda: calls.append("set") or True)
    monkeypatch.setattr(build_mod, "return_freed_memory", lambda: calls.append("trim") or True)
    works = [
        Work(id=f"W{i}", title=f"A study of case {i}", authors=[Author(name="Ann Lee")], year=2020)
        for i in range(1, 30)
    ]
    rep = build_mod.build_index_from_works(works, tmp_path / "ix")
    assert rep.works == 29
    # set before the writer starts Tantivy's threads or forks readers; trimmed after reading,
    # after placing the rows, after resolving upserts and before the lookup merge
    assert calls == ["set"] + ["trim"] * 4
