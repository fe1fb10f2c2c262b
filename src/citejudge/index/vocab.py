"""The title vocabulary of an index: which words some title has, without asking Tantivy.

Respelling a misspelt query word (:meth:`citejudge.index.store.WorldIndex._respellings`) asks
the document frequency of every string one edit away from it, a few hundred per word, and
almost none of them is a word. Tantivy answers each with a term-dictionary lookup in every
segment of the title index, and a build leaves more segments the bigger the world (6 at 1M
works, 12 at 8M, dozens at the whole OpenAlex): the cost of a typo grew with the world.

``vocab.u64`` lists the title words that begin with an ASCII letter or digit
(:data:`PREFIXES`), as 64-bit entries ``chunk << 32 | crc32(word)`` sorted (``chunk``: the
position of the first character in :data:`PREFIXES`, so that the file is written one first
character at a time, in order, and memory holds one such chunk of the dictionary). A binary
search over a memory map tells which strings may be words; only those go to
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

import mmap
import os
import sys
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
        # (searched with bisect: opening an index and checking a typo import no numpy, whose
        # import cost more than a run of a few citations spends in this search)
        entries: Sequence[int] = memoryview(data).cast("Q")
        if sys.byteorder != "little":  # the file is little-endian: a big-endian host converts
            swapped = array("Q", bytes(data))
            swapped.byteswap()
            entries = swapped
        #: every entry of the file (words, then the alphabet)
        self.entries = len(entries)
        self._split = bisect_left(entries, len(PREFIXES) << 32)
        self._a = entries[: self._split]
        #: the letters other than ASCII that listed words contain, in code point order
        self.alphabet = "".join(chr(e & 0xFFFFFFFF) for e in entries[self._split :])

    def __len__(self) -> int:
        """Number of words listed."""
        return self._split

    def maybe_words(self, strings: Sequence[str]) -> list[str]:
        """Those of ``strings`` that may be title words (in order): all but proven non-words."""
        a, n, chunk = self._a, self._split, _CHUNK.get
        out: list[str] = []
        for s in strings:
            c = chunk(s[:1])
            if c is None:  # (a first character the file does not list: Tantivy decides)
                out.append(s)
            elif n:
                key = c << 32 | zlib.crc32(s.encode())
                i = bisect_left(a, key, 0, n)
                if i < n and a[i] == key:
                    out.append(s)
        return out
