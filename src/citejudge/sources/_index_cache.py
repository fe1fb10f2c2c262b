"""Where quote indexes live between runs: a cache folder, one index per store content and per world.

:func:`open_cached` returns the index cached under a key, building and writing it under a file
lock when it is missing (the workers of a run build it once; a reader never sees a half-written
index: ``meta.json`` is written last and the folder is moved into place), and removes older
indexes of the same owner (store or world). :func:`store_key` is a content hash of a store's
texts; a file is re-hashed only when its size or modification time changed (the ``stats-*.json``
beside the indexes remembers them). :func:`world_key` identifies an index of a world by its
``meta.json`` and the size and time of its ``works.sqlite``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from citejudge.sources._quote_index import FORMAT, WINDOW, QuoteIndex
from citejudge.sources._quotes import GRAM
from citejudge.sources._store import StoredFile

__all__ = ["open_cached", "source_cache_root", "store_key", "world_key"]

log = logging.getLogger(__name__)

_PARAMS = f"quote-index {FORMAT} gram {GRAM} window {WINDOW}"


def source_cache_root(cache_dir: Path | None) -> Path:
    """Where quote indexes are cached: ``cache_dir/source-index``, ``CITEJUDGE_SOURCE_CACHE``, or the user cache."""
    if cache_dir is not None:
        return Path(cache_dir) / "source-index"
    env = os.environ.get("CITEJUDGE_SOURCE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "citejudge" / "source-index"


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def open_cached(
    root: Path | None, kind: str, key: str, owner: str, build: Callable[[], QuoteIndex]
) -> QuoteIndex:
    """The index ``kind``/``key`` from ``root``, built there when missing (in memory without a root).

    ``owner`` (a store's or a world's path) is recorded: a new index of the same owner removes
    the old one. A root that cannot be written is logged and the index is built in memory.
    """
    if root is None:
        return build()
    folder = root / f"{kind}-{key[:24]}"
    if (folder / "meta.json").is_file():
        with contextlib.suppress(ValueError):
            return QuoteIndex.load(folder)
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = root / f"{folder.name}.lock"
        lock.touch()
    except OSError as exc:
        log.warning("source index cache %s is not writable (%s): indexing in memory", root, exc)
        return build()
    with _locked(lock):
        if (folder / "meta.json").is_file():
            with contextlib.suppress(ValueError):
                return QuoteIndex.load(folder)
            shutil.rmtree(folder, ignore_errors=True)
        index = build()
        tmp = root / f"{folder.name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        index.save(tmp, {"kind": kind, "key": key, "owner": owner})
        os.replace(tmp, folder)
        for old in root.glob(f"{kind}-*"):
            if old == folder or not old.is_dir():
                continue
            with contextlib.suppress(OSError, ValueError):
                meta = json.loads((old / "meta.json").read_text(encoding="utf-8"))
                if meta.get("owner") == owner:
                    shutil.rmtree(old, ignore_errors=True)
                    (root / f"{old.name}.lock").unlink(missing_ok=True)
    return QuoteIndex.load(folder)


def store_key(store_root: Path, files: list[StoredFile], root: Path | None) -> str:
    """Content hash of a store's texts (and of the URLs that name them, and of the index's settings)."""
    memo: dict[str, list[Any]] = {}
    memo_path = None
    if root is not None:
        owner = hashlib.sha256(str(store_root.resolve()).encode()).hexdigest()[:16]
        memo_path = root / f"stats-{owner}.json"
        with contextlib.suppress(OSError, ValueError):
            memo = json.loads(memo_path.read_text(encoding="utf-8"))
    seen: dict[str, list[Any]] = {}
    lines = [_PARAMS]
    for f in files:
        try:
            st = f.path.stat()
        except OSError:
            continue
        sig = [st.st_size, st.st_mtime_ns]
        old = memo.get(f.rel)
        digest = old[2] if isinstance(old, list) and old[:2] == sig else _sha256_file(f.path)
        seen[f.rel] = [*sig, digest]
        lines.append(f"{f.rel}\t{f.url or ''}\t{digest}")
    if memo_path is not None and seen != memo:
        with contextlib.suppress(OSError):
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = memo_path.with_name(f"{memo_path.name}.tmp-{os.getpid()}")
            tmp.write_text(json.dumps(seen), encoding="utf-8")
            os.replace(tmp, memo_path)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def world_key(index_path: Path) -> str:
    """Identity of a world index: its ``meta.json``, and the size and time of ``works.sqlite``."""
    meta = (index_path / "meta.json").read_bytes()
    db = (index_path / "works.sqlite").stat()
    return hashlib.sha256(meta + f"\n{db.st_size} {db.st_mtime_ns} {_PARAMS}".encode()).hexdigest()
