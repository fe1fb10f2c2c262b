"""The title vocabulary of an index: which words some title has, without asking Tantivy.

Respelling a misspelt query word (:meth:`citejudge.index.store.WorldIndex._respellings`) asks
the document frequency of every string one edit away from it, a few hundred per word, and
almost none of them is a word. Tantivy answers each with a term-dictionary lookup in every
segment of the title index, and a build leaves more segments the bigger the world (6 at 1M
works, 12 at 8M, dozens at the whole OpenAlex): the cost of a typo grew with the world.

``vocab.u64`` lists the title words that begin with an ASCII letter or digit
(:data:`PREFIXES`), as 64-bit entries ``chunk << 32 | crc32(word)`` sorted (``chunk``: the
position of the first character in :data:`PREFIXES`, so that the file is written one first
character at a time, in order, and memory holds one such chunk of the dictionary). One
vectorised binary search over a memory map tells which strings may be words; only those go to
Tantivy, which still gives every frequency. A string whose entry is absent is no word (every
word of those first characters is in the file), so answers are those of Tantivy alone.
Strings of any other first character always go to Tantivy.

After the words, entries ``len(PREFIXES) << 32 | code point`` list the letters other than ASCII
that the listed words contain (``tnfα``, ``pparγ``: folding keeps Greek and other scripts), the
alphabet a one-edit spelling of an ASCII word may need besides ASCII letters and digits.
The build records the number of entries in ``meta.json`` (``vocabulary_entries``); a reader
trusts the file only when they agree, so that an index updated by a version that did not
rewrite the file answers through Tantivy alone.
"""

from __future__ import annotations

import itertools
import mmap
import os
import sys
import zlib
from bisect import bisect_left
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (numpy loads when a vocabulary is written or first searched)
    import numpy as np
    import numpy.typing as npt

__all__ = ["PREFIXES", "VOCAB_FILE", "Vocabulary", "write_vocabulary"]

VOCAB_FILE = "vocab.u64"
#: First characters of the words the file lists (Tantivy lower-cases titles' words).
PREFIXES = "0123456789abcdefghijklmnopqrstuvwxyz"
_CHUNK = {c: i for i, c in enumerate(PREFIXES)}


def write_vocabulary(searcher: Any, field: str, path: Path) -> int:
    """Write the vocabulary file of ``field`` of the searcher's index to ``path``.

    Walks the term dictionary one first character at a time (``terms_with_prefix``), so memory
    holds one chunk of it, and replaces ``path`` at the end (written beside, then moved).
    Returns the number of entries written.
    """
    import numpy as np

    tmp = path.with_name(path.name + ".tmp")
    n = 0
    letters: set[str] = set()
    with open(tmp, "wb") as out:

        def put(chunk: int, low: Any) -> None:
            nonlocal n
            out.write((low | np.uint64(chunk << 32)).astype("<u8").tobytes())
            n += len(low)

        for i, c in enumerate(PREFIXES):
            terms = searcher.terms_with_prefix(field, c)
            crcs = np.fromiter(
                (zlib.crc32(t.encode()) for t, _count in terms), dtype=np.uint64, count=len(terms)
            )
            letters.update(ch for t, _count in terms if not t.isascii() for ch in t)
            del terms
            put(i, np.unique(crcs))
        alphabet = sorted(ord(ch) for ch in letters if not ch.isascii())
        put(len(PREFIXES), np.array(alphabet, dtype=np.uint64))
    os.replace(tmp, path)
    return n


class Vocabulary:
    """A vocabulary file, memory-mapped read-only (any number of processes share it)."""

    def __init__(self, path: Path) -> None:
        size = path.stat().st_size
        if size % 8:
            raise ValueError(f"{path}: {size} bytes, not a whole number of entries")
        self._mm: mmap.mmap | None = None
        data: Any = b""
        if size:
            with path.open("rb") as f:
                self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            data = self._mm
        # (read with bisect here, with numpy's vectorised search in maybe_words: opening an
        # index does not import numpy)
        entries: Sequence[int] = memoryview(data).cast("Q")
        if sys.byteorder != "little":  # the file is little-endian
            entries = [int.from_bytes(data[i : i + 8], "little") for i in range(0, size, 8)]
        #: every entry of the file (words, then the alphabet)
        self.entries = len(entries)
        self._split = bisect_left(entries, len(PREFIXES) << 32)
        self._words: npt.NDArray[np.uint64] | None = None
        #: the letters other than ASCII that listed words contain, in code point order
        self.alphabet = "".join(chr(e & 0xFFFFFFFF) for e in entries[self._split :])

    def __len__(self) -> int:
        """Number of words listed."""
        return self._split

    def _listed(self) -> npt.NDArray[np.uint64]:
        """The word entries, as a numpy array over the map (made on first use)."""
        if self._words is None:
            import numpy as np

            if self._mm is None:
                self._words = np.zeros(0, np.uint64)
            else:
                self._words = np.frombuffer(self._mm, dtype="<u8", count=self._split)
        return self._words

    def maybe_words(self, strings: Sequence[str]) -> list[str]:
        """Those of ``strings`` that may be title words (in order): all but proven non-words."""
        import numpy as np

        n = len(strings)
        chunks = np.fromiter(
            map(_CHUNK.get, [s[:1] for s in strings], itertools.repeat(-1)), np.int64, n
        )
        crcs = np.fromiter(map(zlib.crc32, map(str.encode, strings)), np.uint64, n)
        listed = chunks >= 0
        keep = ~listed
        a = self._listed()
        if len(a):
            keys = (chunks.astype(np.uint64) << np.uint64(32)) | crcs
            at = np.minimum(np.searchsorted(a, keys), len(a) - 1)
            keep |= a[at] == keys
        return [s for s, k in zip(strings, keep.tolist(), strict=True) if k]
