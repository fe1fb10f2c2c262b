"""An index of texts by word shingles: which texts share runs of words with a quote piece.

The misattribution search asks, for a piece of a quote its stated source does not hold, which
other texts hold it. Scanning every text costs as much as the texts; this index costs the same
for 200 texts and for 200,000: a piece is looked up by its shingles and only a bounded number of
candidate texts (:data:`CANDIDATES`) are then aligned with it.

* A text is folded as quotes are (:class:`~citejudge.sources.PreparedText`); each run of
  :data:`~citejudge.sources.GRAM` words is hashed to 64 bits (blake2b of each word, combined and
  mixed), and the text keeps the smallest hash of every :data:`WINDOW` consecutive shingles
  (winnowing, Schleimer et al. 2003): any run of ``WINDOW + GRAM - 1`` (7) words a piece shares
  with a text shares at least one kept hash, and a text keeps about a third of its shingles.
* The index is two sorted arrays, hashes and text numbers; a piece's shingle hashes are found
  with binary searches. A hash kept by more than :data:`MAX_DOC_FREQ` texts (menus, licences,
  common phrases) casts no vote. Texts are ranked by how many of the piece's hashes they hold.
* On disk (:meth:`QuoteIndex.save`): ``fp.npy``, ``doc.npy`` (memory-mapped on load),
  ``docs.jsonl`` (each text's origin, name and reference) and ``meta.json`` (written last).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from citejudge.sources._quotes import GRAM

__all__ = [
    "CANDIDATES",
    "FORMAT",
    "MAX_DOC_FREQ",
    "VOTE_SHARE",
    "WINDOW",
    "IndexedText",
    "QuoteIndex",
    "fingerprints",
    "min_votes",
    "shingle_hashes",
]

#: Consecutive shingles of which a text keeps the smallest hash.
WINDOW = 5
#: A hash held by more texts than this is not used to find candidates.
MAX_DOC_FREQ = 64
#: Candidate texts aligned with a piece at most.
CANDIDATES = 5
#: Share of the hashes a text holding a piece keeps of it that a candidate must hold.
VOTE_SHARE = 0.3
#: Version of the on-disk layout and of the hashing (part of every cache key).
FORMAT = 1

U64 = npt.NDArray[np.uint64]
_P1 = np.uint64(0x9E3779B97F4A7C15)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_WORDS: dict[str, int] = {}
_WORDS_MAX = 1 << 21


def _word_hash(word: str) -> int:
    h = _WORDS.get(word)
    if h is None:
        h = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")
        if len(_WORDS) < _WORDS_MAX:
            _WORDS[word] = h
    return h


def shingle_hashes(words: list[str]) -> U64:
    """The 64-bit hash of every run of ``GRAM`` consecutive words (stable across processes)."""
    if len(words) < GRAM:
        return np.empty(0, dtype=np.uint64)
    a = np.fromiter((_word_hash(w) for w in words), dtype=np.uint64, count=len(words))
    h = a[:-2] * _P1 + a[1:-1] * _P2 + a[2:]  # uint64 arithmetic wraps
    h ^= h >> np.uint64(30)
    h *= _M1
    h ^= h >> np.uint64(27)
    h *= _M2
    h ^= h >> np.uint64(31)
    return h


def fingerprints(words: list[str]) -> U64:
    """The hashes a text keeps: the smallest of every ``WINDOW`` consecutive shingles, unique."""
    h = shingle_hashes(words)
    if len(h) <= WINDOW:
        return np.unique(h[:1] if len(h) == 0 else h.min(keepdims=True))
    view = np.lib.stride_tricks.sliding_window_view(h, WINDOW)
    picked = view.argmin(axis=1) + np.arange(len(view))
    return np.unique(h[picked])


def min_votes(words: int) -> int:
    """Shingle hashes a text must share with a piece of ``words`` words to be a candidate.

    A text holding the piece keeps about ``2 / (WINDOW + 1)`` of its ``words - GRAM + 1``
    shingles (a third); a candidate needs :data:`VOTE_SHARE` of that, at least one. Measured on
    WiCE pages in a store of 2,220 pages: texts holding a sentence share about the expected
    number; texts sharing only common phrases with a sentence they do not hold share one or two.
    """
    expected = max(words - GRAM + 1, 0) * 2 / (WINDOW + 1)
    return max(1, round(VOTE_SHARE * expected))


@dataclass(frozen=True)
class IndexedText:
    """A text of the index: where its words come from (``origin``), how a message names it, how to read it.

    ``ref`` is ``store:<file relative to the store>`` or ``work:<id>`` (the record's abstract).
    """

    origin: str
    name: str
    ref: str


class QuoteIndex:
    """Texts by their shingle fingerprints (see the module docstring)."""

    def __init__(self, texts: list[IndexedText], fp: U64, doc: npt.NDArray[np.uint32]) -> None:
        self.texts = texts
        self.fp = fp
        self.doc = doc

    @classmethod
    def build(cls, items: Iterable[tuple[IndexedText, list[str]]]) -> QuoteIndex:
        """Index each text (given by its folded words)."""
        texts: list[IndexedText] = []
        fps: list[U64] = []
        docs: list[npt.NDArray[np.uint32]] = []
        for text, words in items:
            f = fingerprints(words)
            if len(f):
                fps.append(f)
                docs.append(np.full(len(f), len(texts), dtype=np.uint32))
            texts.append(text)
        if not fps:
            return cls(texts, np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint32))
        fp = np.concatenate(fps)
        doc = np.concatenate(docs)
        order = np.lexsort((doc, fp))
        return cls(texts, fp[order], doc[order])

    def __len__(self) -> int:
        return len(self.texts)

    def candidates(
        self,
        words: list[str],
        skip: Callable[[IndexedText], bool],
        k: int = CANDIDATES,
        min_votes: int = 1,
    ) -> list[tuple[IndexedText, int]]:
        """Up to ``k`` texts sharing the most shingle hashes with ``words`` (most first), and how many.

        Texts ``skip`` rejects are passed over, as are texts with fewer than ``min_votes`` hashes
        or fewer than a third of the best text's; ties go to the text indexed first.
        """
        q = np.unique(shingle_hashes(words))
        if not len(q) or not len(self.fp):
            return []
        lo = np.searchsorted(self.fp, q, side="left")
        hi = np.searchsorted(self.fp, q, side="right")
        n = hi - lo
        keep = (n > 0) & (n <= MAX_DOC_FREQ)
        if not keep.any():
            return []
        hit = np.concatenate([self.doc[a:b] for a, b in zip(lo[keep], hi[keep], strict=True)])
        ids, votes = np.unique(hit, return_counts=True)
        order = np.lexsort((ids, -votes))
        out: list[tuple[IndexedText, int]] = []
        floor: float = min_votes
        for j in order:
            if votes[j] < floor:
                break
            t = self.texts[int(ids[j])]
            if skip(t):
                continue
            if not out:
                floor = max(floor, int(votes[j]) / 3)
            out.append((t, int(votes[j])))
            if len(out) >= k:
                break
        return out

    # --- on disk ---------------------------------------------------------------------------

    def save(self, folder: Path, meta: dict[str, Any]) -> None:
        """Write the index into ``folder`` (``meta.json`` last: a folder without it is incomplete)."""
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "fp.npy", np.ascontiguousarray(self.fp))
        np.save(folder / "doc.npy", np.ascontiguousarray(self.doc))
        with (folder / "docs.jsonl").open("w", encoding="utf-8") as fh:
            for t in self.texts:
                fh.write(json.dumps([t.origin, t.name, t.ref], ensure_ascii=False) + "\n")
        info = {**meta, "format": FORMAT, "texts": len(self.texts), "fingerprints": len(self.fp)}
        (folder / "meta.json").write_text(json.dumps(info, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> QuoteIndex:
        """Open an index :meth:`save` wrote (arrays memory-mapped); ValueError if it is unusable."""
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT:
                raise ValueError(f"format {meta.get('format')}, not {FORMAT}")
            fp = np.load(folder / "fp.npy", mmap_mode="r")
            doc = np.load(folder / "doc.npy", mmap_mode="r")
            texts = [
                IndexedText(*json.loads(line))
                for line in (folder / "docs.jsonl").read_text(encoding="utf-8").splitlines()
                if line
            ]
        except (OSError, ValueError, TypeError) as exc:
            raise ValueError(f"quote index {folder}: {exc}") from exc
        if len(texts) != meta.get("texts") or len(fp) != len(doc):
            raise ValueError(f"quote index {folder}: sizes disagree with meta.json")
        return cls(texts, fp, doc)
