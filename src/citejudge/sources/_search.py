"""Where a run looks for quotes: the stated source, the answer's other sources, every other text.

:class:`SourceSearch` is built once per process of a run. It keeps the texts it has prepared
(folded) for quote search, and opens two :class:`~citejudge.sources.QuoteIndex` on first need,
from the cache root when one is given (see :mod:`citejudge.sources._index_cache`), else in memory:

* the **store's texts** (every text file of the source store, :meth:`SourceStore.files`), keyed
  by a content hash of the store;
* the **index records' abstracts**, keyed by the identity of the index; only for an index of at
  most :data:`WORLD_TEXTS_MAX` works (above it, quotes are looked for in the works whose titles
  share the quote's words, as before).

The store itself is only read, so it may be read-only.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citejudge.index import WorldIndex
from citejudge.match.resolve import WorldLookup
from citejudge.sources._index_cache import open_cached, store_key, world_key
from citejudge.sources._quote_index import IndexedText, QuoteIndex, min_votes
from citejudge.sources._quotes import Piece, PreparedText, QuoteMatch, search_piece
from citejudge.sources._store import SourceStore, SourceText

__all__ = [
    "ELSEWHERE_TOP_K",
    "MIN_ELSEWHERE_CHARS",
    "WORLD_TEXTS_MAX",
    "Elsewhere",
    "SourceSearch",
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


@dataclass(frozen=True)
class Elsewhere:
    """Where else a quote (or a piece of it) was found: a record of the index or a stored text."""

    name: str
    origin: str
    score: float
    exact: bool


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

    def store_index(self) -> QuoteIndex | None:
        """The index of the store's texts (None without a store)."""
        if self._store_index is not None or self.store is None:
            return self._store_index
        store = self.store
        files = store.files()
        key = store_key(store.root, files, self.cache_root) if self.cache_root is not None else ""

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

        self._store_index = open_cached(
            self.cache_root, "store", key, str(store.root.resolve()), build
        )
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
        key = world_key(world.path)

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

        self._world_index = open_cached(
            self.cache_root, "world", key, str(world.path.resolve()), build
        )
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
        and of the index's abstracts (most shared shingles first, :data:`CANDIDATES` of each, each
        holding at least :func:`min_votes` of the piece's shingle hashes);
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
        least = min_votes(len(words))
        found: list[tuple[int, int, IndexedText]] = []
        for rank, index in enumerate((self.store_index(), self.world_index())):
            if index is not None:
                found += [(-v, rank, t) for t, v in index.candidates(words, skip, min_votes=least)]
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
