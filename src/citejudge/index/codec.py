"""How an index stores its records: msgpack, compressed with zstd and a dictionary trained at build.

One record is small (a few hundred bytes), too small for zstd alone to find its repetitions;
a dictionary trained on a sample of the world's own records supplies them (field names, venue
names, DOI prefixes, source paths), which brings a record to about a quarter of its size.
The codec is described in ``meta.json`` (``records``: codec, level, fields, dictionary file and
its SHA-256) and the dictionary is a file of the index, so a reader needs nothing else.

``fields="matching"`` leaves out what reference grounding never reads (the abstract, author
ORCIDs, MAG id, update date, the world file a record came from): such an index answers every
reference-grounding question and says it has no text for content grounding.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec
import zstandard

from citejudge.errors import IndexError_
from citejudge.records import Work

__all__ = ["DICT_FILE", "FIELDS", "Fields", "RecordCodec", "train_dictionary"]

Fields = Literal["all", "matching"]
#: The field sets ``index build --fields`` offers.
FIELDS: tuple[Fields, ...] = ("all", "matching")
DICT_FILE = "records.zdict"
LEVEL = 3
#: zstd level by field set: records with abstracts are large and compress well at a fast level;
#: the short matching records gain a sixth of their size at level 6 (about 9 us more a record).
LEVELS: dict[Fields, int] = {"all": 3, "matching": 6}
DICT_BYTES = 256 * 1024
#: Records sampled to train the dictionary; a world with fewer than MIN_SAMPLES gets none.
TRAIN_SAMPLES = 8000
MIN_SAMPLES = 1000


def train_dictionary(samples: Sequence[bytes], level: int = LEVEL) -> bytes | None:
    """A zstd dictionary trained on encoded records, or None when there are too few of them.

    Deterministic: the same samples give the same dictionary (fixed COVER parameters, one thread).
    """
    if len(samples) < MIN_SAMPLES:
        return None
    try:
        d = zstandard.train_dictionary(
            DICT_BYTES, list(samples), k=256, d=8, level=level, threads=1
        )
    except zstandard.ZstdError:  # records too alike or too short to learn from
        return None
    return d.as_bytes()


def _matching_only(work: Work) -> Work:
    """``work`` without what reference grounding never reads.

    That is the abstract, the ORCIDs, the MAG id (no citation states one), the record's
    ``updated_date`` and the world file it came from.
    """
    authors = work.authors
    if any(a.orcid for a in authors):
        authors = [msgspec.structs.replace(a, orcid=None) if a.orcid else a for a in authors]
    return msgspec.structs.replace(
        work, abstract=None, source=None, mag=None, updated=None, authors=authors
    )


class _Title(msgspec.Struct):
    """A stored record read for its title only (msgspec skips the other keys of the map)."""

    title: str | None = None


@dataclass
class RecordCodec:
    """Encode a :class:`Work` for storage and decode it back."""

    fields: Fields = "all"
    dictionary: bytes | None = None
    level: int | None = None  # None: the level of ``fields`` (LEVELS)

    def __post_init__(self) -> None:
        if self.level is None:
            self.level = LEVELS[self.fields]
        zdict = zstandard.ZstdCompressionDict(self.dictionary) if self.dictionary else None
        if zdict is not None:
            zdict.precompute_compress(level=self.level)
        self._zc = zstandard.ZstdCompressor(
            level=self.level,
            dict_data=zdict,
            write_checksum=False,
            write_content_size=True,
            write_dict_id=False,
        )
        self._zd = zstandard.ZstdDecompressor(dict_data=zdict)
        self._enc = msgspec.msgpack.Encoder()
        self._dec = msgspec.msgpack.Decoder(Work)
        self._dec_title = msgspec.msgpack.Decoder(_Title)

    def pack(self, work: Work) -> bytes:
        """The msgpack bytes of ``work`` restricted to the codec's fields (before compression)."""
        if self.fields == "matching":
            work = _matching_only(work)
        return self._enc.encode(work)

    def encode(self, work: Work) -> bytes:
        """The stored bytes of ``work``."""
        return self._zc.compress(self.pack(work))

    def encode_all(self, works: Sequence[Work]) -> list[bytes]:
        """The stored bytes of each of ``works``, as :meth:`encode` gives them.

        Packs them all, then compresses them all: zstd's dictionary tables (about 1 MiB at
        level 3, twice a core's L2) stay in cache across the compressions instead of being
        evicted by the record conversion between two of them.
        """
        compress = self._zc.compress
        return [compress(b) for b in [self.pack(w) for w in works]]

    def decode(self, data: bytes) -> Work:
        """The work stored as ``data``."""
        return self._dec.decode(self._zd.decompress(data))

    def decode_title(self, data: bytes) -> str | None:
        """The title of the work stored as ``data``, the rest of the record skipped unbuilt.

        A fifth of :meth:`decode`'s time (4 against 17 µs): title blocks compare tens of
        candidate titles a citation.
        """
        return self._dec_title.decode(self._zd.decompress(data)).title

    # --- description in meta.json ----------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The ``records`` entry of ``meta.json``."""
        out: dict[str, Any] = {"codec": "zstd", "level": self.level, "fields": self.fields}
        if self.dictionary:
            out["dictionary"] = DICT_FILE
            out["dictionary_sha256"] = hashlib.sha256(self.dictionary).hexdigest()
        return out

    def save(self, root: Path) -> None:
        """Write the dictionary file (if any) into the index directory ``root``."""
        if self.dictionary:
            (root / DICT_FILE).write_bytes(self.dictionary)

    @classmethod
    def load(cls, root: Path, meta: dict[str, Any]) -> RecordCodec:
        """The codec an index at ``root`` was built with (checked against ``meta.json``)."""
        desc = meta.get("records") or {}
        if desc.get("codec") != "zstd" or desc.get("fields") not in FIELDS:
            raise IndexError_(
                f"index {root}: unknown record codec {desc!r}",
                hint=f"rebuild it: citejudge index build SOURCE --index {root}",
            )
        dictionary = None
        if desc.get("dictionary"):
            path = root / str(desc["dictionary"])
            try:
                dictionary = path.read_bytes()
            except OSError as exc:
                raise IndexError_(f"index {root}: record dictionary unreadable: {exc}") from exc
            if hashlib.sha256(dictionary).hexdigest() != desc.get("dictionary_sha256"):
                raise IndexError_(
                    f"index {root}: {path.name} does not match meta.json",
                    hint="the index was altered; rebuild it",
                )
        return cls(
            fields=desc["fields"], dictionary=dictionary, level=int(desc.get("level", LEVEL))
        )
