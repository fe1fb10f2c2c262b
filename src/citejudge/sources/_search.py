"""Where a run looks for quotes: the stated source, the answer's other sources, every other text.

:class:`SourceSearch` is built once per process of a run. It keeps the texts it has prepared
(folded) for quote search, and opens two :class:`~citejudge.sources.QuoteIndex` on first need:

* the **store's texts** (every text file of the source store, :meth:`SourceStore.files`), keyed
  by a content hash of the store: the sha256 of every file, re-hashed only when its size or
  modification time changed (``stats-*.json`` in the cache remembers them);
* the **index records' abstracts**, keyed by the index's ``meta.json`` and the size and time of its
  ``works.sqlite``; only for an index of at most :data:`WORLD_TEXTS_MAX` works (above it, quotes
  are looked for in the works whose titles share the quote's words, as before).

Both are written to the cache root (:func:`source_cache_root`: ``--cache-dir``'s
``source-index/``, else ``CITEJUDGE_SOURCE_CACHE``, else ``~/.cache/citejudge/source-index``),
built under a file lock so that the workers of a run build each once; an older index of the same
store or world is removed when a new one is written. The store itself is only read, so it may be
read-only. Without a cache root (the library default) they are built in memory, once per process.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citejudge.index import WorldIndex
from citejudge.match.resolve import WorldLookup
from citejudge.sources._quote_index import FORMAT, WINDOW, IndexedText, QuoteIndex
from citejudge.sources._quotes import GRAM, Piece, PreparedText, QuoteMatch, search_piece
from citejudge.sources._store import SourceStore, SourceText, StoredFile

__all__ = [
    "ELSEWHERE_TOP_K",
    "MIN_ELSEWHERE_CHARS",
    "WORLD_TEXTS_MAX",
    "Elsewhere",
    "SourceSearch",
    "source_cache_root",
]

log = logging.getLogger(__name__)

#: An index of more works than this has its abstracts searched through title retrieval only.
WORLD_TEXTS_MAX = 500_000
#: Works retrieved by the quote's words when the index's abstracts are not indexed.
ELSEWHERE_TOP_K = 20
#: A piece of a quote of several pieces shorter than this (folded characters) is not attributed to
#: another source on its own (a short generic sentence proves little).
MIN_ELSEWHERE_CHARS = 40
#: Prepared texts kept per process.
_PREPARED = 256
_WORK_ID = re.compile(r"W\d+")


def source_cache_root(cache_dir: Path | None) -> Path:
    """Where quote indexes are cached: ``cache_dir/source-index``, ``CITEJUDGE_SOURCE_CACHE``, or the user cache."""
    if cache_dir is not None:
        return Path(cache_dir) / "source-index"
    env = os.environ.get("CITEJUDGE_SOURCE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "citejudge" / "source-index"


@dataclass(frozen=True)
class Elsewhere:
    """Where else a quote (or a piece of it) was found: a record of the index or a stored text."""

    name: str
    origin: str
    score: float
    exact: bool


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


class SourceSearch:
    """Quote search for one process of a run (see the module docstring)."""

    def __init__(
        self,
        world: WorldLookup | None,
        store: SourceStore | None,
        cache_root: Path | None = None,
    ) -> None:
        self.world = world
        self.store = store
        self.cache_root = cache_root
        self._prepared: OrderedDict[str, PreparedText] = OrderedDict()
        self._store_index: QuoteIndex | None = None
        self._world_index: QuoteIndex | None = None
        self._world_checked = False
        #: What was built or opened, for benchmarks and logs: name → seconds or "cached".
        self.opened: dict[str, Any] = {}

    # --- texts -------------------------------------------------------------------------------

    def prepared(self, st: SourceText) -> PreparedText:
        """``st`` prepared for quote search (kept for the next quotes of the run)."""
        got = self._prepared.get(st.origin)
        if got is not None:
            self._prepared.move_to_end(st.origin)
            return got
        got = PreparedText(st.text)
        self._prepared[st.origin] = got
        if len(self._prepared) > _PREPARED:
            self._prepared.popitem(last=False)
        return got

    def _text_of(self, t: IndexedText) -> SourceText | None:
        kind, _, ref = t.ref.partition(":")
        if kind == "store" and self.store is not None:
            text = self.store.read(ref)
        elif kind == "work" and self.world is not None:
            work = self.world.get(ref)
            text = work.abstract if work is not None else None
        else:
            text = None
        return SourceText(text, t.origin) if text else None

    # --- the indexes -------------------------------------------------------------------------

    def _cached(
        self, kind: str, key: str, owner: str, build: Callable[[], QuoteIndex]
    ) -> QuoteIndex:
        """The index ``kind``/``key`` from the cache root, built there (under a lock) when missing."""
        root = self.cache_root
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

    def _store_files_key(self, files: list[StoredFile]) -> str:
        """Content hash of the store's texts (a file is re-hashed when its size or time changed)."""
        assert self.store is not None
        memo: dict[str, list[Any]] = {}
        memo_path = None
        if self.cache_root is not None:
            owner = hashlib.sha256(str(self.store.root.resolve()).encode()).hexdigest()[:16]
            memo_path = self.cache_root / f"stats-{owner}.json"
            with contextlib.suppress(OSError, ValueError):
                memo = json.loads(memo_path.read_text(encoding="utf-8"))
        seen: dict[str, list[Any]] = {}
        lines = [f"quote-index {FORMAT} gram {GRAM} window {WINDOW}"]
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

    def store_index(self) -> QuoteIndex | None:
        """The index of the store's texts (None without a store)."""
        if self._store_index is not None or self.store is None:
            return self._store_index
        store = self.store
        files = store.files()
        key = self._store_files_key(files) if self.cache_root is not None else ""

        def build() -> QuoteIndex:
            if len(files) > 1000:
                log.warning(
                    "source store %s: indexing %d texts for the misattribution search%s",
                    store.root,
                    len(files),
                    f" (once; cached in {self.cache_root})" if self.cache_root else "",
                )

            def items() -> Iterator[tuple[IndexedText, list[str]]]:
                for f in files:
                    text = store.read(f.rel)
                    if not text:
                        continue
                    name = f"the stored page {f.url}" if f.url else f"the stored text {f.rel}"
                    origin = f"store:{f.rel}"
                    yield IndexedText(origin, name, origin), PreparedText(text).words

            return QuoteIndex.build(items())

        self._store_index = self._cached("store", key, str(store.root.resolve()), build)
        self.opened["store_texts"] = len(self._store_index)
        return self._store_index

    def world_index(self) -> QuoteIndex | None:
        """The index of the index records' abstracts (None when there is no such index to build)."""
        if self._world_checked:
            return self._world_index
        self._world_checked = True
        world = self.world
        if not isinstance(world, WorldIndex) or not world.has_text:
            return None
        count = world.count()
        if count > WORLD_TEXTS_MAX:
            log.info(
                "index %s has %d works (over %d): quotes are looked for in works retrieved by title",
                world.path,
                count,
                WORLD_TEXTS_MAX,
            )
            return None
        meta = (world.path / "meta.json").read_bytes()
        db = (world.path / "works.sqlite").stat()
        key = hashlib.sha256(
            meta + f"\n{db.st_size} {db.st_mtime_ns} {FORMAT} {GRAM} {WINDOW}".encode()
        ).hexdigest()

        def build() -> QuoteIndex:
            if count > 20_000:
                log.warning(
                    "index %s: indexing the abstracts of %d works for the misattribution search%s",
                    world.path,
                    count,
                    f" (once; cached in {self.cache_root})" if self.cache_root else "",
                )

            def items() -> Iterator[tuple[IndexedText, list[str]]]:
                for w in world.iter_works():
                    if w.abstract and w.abstract.strip():
                        t = IndexedText(
                            f"abstract of {w.id}",
                            f"{w.id} '{(w.title or 'untitled')[:100]}'",
                            f"work:{w.id}",
                        )
                        yield t, PreparedText(w.abstract).words

            return QuoteIndex.build(items())

        self._world_index = self._cached("world", key, str(world.path.resolve()), build)
        self.opened["world_abstracts"] = len(self._world_index)
        return self._world_index

    # --- looking elsewhere -------------------------------------------------------------------

    def _name(self, t: IndexedText) -> str:
        """How a message names a text: a stored full text of a record by the record."""
        if self.world is not None and t.ref.startswith("store:"):
            stem = Path(t.ref[6:]).stem
            if _WORK_ID.fullmatch(stem):
                work = self.world.get(stem)
                if work is not None:
                    return f"{work.id} '{(work.title or 'untitled')[:100]}'"
        return t.name

    def find_elsewhere(
        self, piece: Piece, exclude: set[str], siblings: Sequence[SourceText] = ()
    ) -> Elsewhere | None:
        """Another text holding ``piece``, or None.

        Looked at in this order: ``siblings`` (the texts of the other sources the same answer
        cites: a quote is most often taken from one of them); the candidates of the store's texts
        and of the index's abstracts (most shared shingles first, :data:`CANDIDATES` of each);
        without an index of the abstracts, the works whose titles share the piece's words.
        ``exclude`` holds the stated source's text origins, work id and full-text file names.
        """
        for sib in siblings:
            if sib.origin in exclude:
                continue
            m = search_piece(piece.folded, self.prepared(sib))
            if m.found:
                return Elsewhere(
                    sib.origin.replace("abstract of ", ""), sib.origin, m.score, m.exact
                )

        def skip(t: IndexedText) -> bool:
            if t.origin in exclude:
                return True
            kind, _, ref = t.ref.partition(":")
            if kind == "work":
                return ref in exclude
            return f"fulltext:{ref}" in exclude or Path(ref).stem in exclude

        words = piece.words
        found: list[tuple[int, int, IndexedText]] = []
        for rank, index in enumerate((self.store_index(), self.world_index())):
            if index is not None:
                found += [(-v, rank, t) for t, v in index.candidates(words, skip)]
        for _, _, t in sorted(found, key=lambda c: (c[0], c[1])):
            st = self._text_of(t)
            if st is None:
                continue
            m = search_piece(piece.folded, self.prepared(st))
            if m.found:
                return Elsewhere(self._name(t), t.origin, m.score, m.exact)
        if self.world_index() is None:
            return self._by_title(piece, exclude)
        return None

    def _by_title(self, piece: Piece, exclude: set[str]) -> Elsewhere | None:
        """The works whose titles share the piece's words (top :data:`ELSEWHERE_TOP_K`) holding it."""
        world = self.world
        if world is None:
            return None
        try:
            hits = world.search_title(piece.text[:600], k=ELSEWHERE_TOP_K)
        except Exception:  # a query the title index cannot parse finds nothing
            hits = []
        for work in world.get_many([wid for wid, _ in hits if wid not in exclude]):
            st = (self.store.text_for_work(work) if self.store is not None else None) or (
                SourceText(work.abstract, f"abstract of {work.id}") if work.abstract else None
            )
            if st is None or st.origin in exclude:
                continue
            m: QuoteMatch = search_piece(piece.folded, self.prepared(st))
            if m.found:
                return Elsewhere(
                    f"{work.id} '{(work.title or 'untitled')[:100]}'", st.origin, m.score, m.exact
                )
        return None
