"""Where results go: input shards in, result lines out, and the run directory's lock.

Lines are written with one ``write`` call each and a failed write is rolled back, so a results
file never ends in a partial line that was accepted; :func:`read_done` keeps every complete line
of an interrupted run and drops a corrupted last one.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import os
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

from citejudge.errors import CitejudgeError
from citejudge.io import Item, ItemError, read_items

__all__ = [
    "Appender",
    "LineSink",
    "RunError",
    "StreamSink",
    "expand_inputs",
    "load_items",
    "lock_run_dir",
    "read_done",
]

LOCK = "run.lock"


class RunError(CitejudgeError):
    """The run cannot start or go on (lock held, disk full, inputs changed)."""

    exit_code = 2


def expand_inputs(patterns: list[str]) -> list[Path]:
    """Input shards: every file matching the patterns, sorted, without repeats."""
    out: list[Path] = []
    for pat in patterns:
        matches = sorted(glob.glob(pat)) if any(c in pat for c in "*?[") else [pat]
        for m in matches:
            p = Path(m)
            if p not in out:
                out.append(p)
    return out


def load_items(shards: list[Path]) -> list[Item | ItemError]:
    """Every item of the shards, in order; generated ids are prefixed with the shard number when there are several."""
    items: list[Item | ItemError] = []
    for n, shard in enumerate(shards):
        for it in read_items(shard):
            # Ids must be unique across shards: prefix generated ids with the shard number.
            if isinstance(it, Item) and it.id.startswith("line-") and len(shards) > 1:
                it.id = f"{n}:{it.id}"
            items.append(it)
    return items


def read_done(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Complete result lines of a results file; truncates a corrupted tail. Returns (lines, repaired)."""
    if not path.exists():
        return [], False
    data = path.read_bytes()
    lines: list[dict[str, Any]] = []
    good_end = 0
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break  # no newline: an unfinished write
        try:
            obj = orjson.loads(data[pos:nl])
            if not isinstance(obj, dict) or "id" not in obj:
                raise ValueError("not a result line")
        except (orjson.JSONDecodeError, ValueError):
            break
        lines.append(obj)
        pos = good_end = nl + 1
    repaired = good_end != len(data)
    if repaired:
        with path.open("r+b") as fh:
            fh.truncate(good_end)
    return lines, repaired


class LineSink(Protocol):
    """Where the ordered writer puts finished result lines."""

    def write(self, data: bytes) -> None:
        """Write one complete line."""
        ...

    def close(self) -> None:
        """Make the lines durable (where that means something) and release the target."""
        ...


class Appender:
    """Appends lines to a file with one write each; rolls back a failed write (e.g. disk full)."""

    def __init__(self, path: Path, *, hint: str = "free disk space, then rerun") -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.size = os.fstat(self.fd).st_size  # this process is the only writer
        self.hint = hint

    def write(self, data: bytes) -> None:
        """Append ``data``; on failure the file is cut back to where it was and :class:`RunError` raised."""
        start = self.size
        try:
            n = os.write(self.fd, data)
            if n != len(data):
                raise OSError(errno.ENOSPC, "short write")
            self.size += n
        except OSError as exc:
            os.ftruncate(self.fd, start)
            raise RunError(f"cannot write results: {exc.strerror or exc}", hint=self.hint) from exc

    def close(self) -> None:
        """Flush to disk (fsync) and close."""
        try:
            os.fsync(self.fd)
        finally:
            os.close(self.fd)


class StreamSink:
    """Writes lines to a borrowed binary stream (stdout), flushing each."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        """Write and flush one line."""
        self.stream.write(data)
        self.stream.flush()

    def close(self) -> None:
        """Nothing to release: the stream is borrowed."""


def lock_run_dir(out: Path) -> IO[str]:
    """Create ``out`` and hold its lock file (closing the returned handle releases it)."""
    out.mkdir(parents=True, exist_ok=True)
    fh = (out / LOCK).open("a+")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        fh.close()
        raise RunError(
            f"another citejudge run is using {out}",
            hint="wait for it to finish, or give this run another 'out' directory",
        ) from exc
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    return fh
