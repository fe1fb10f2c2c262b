"""The weights of a CRFsuite model file, for the C decoder of the reference parser.

CRFsuite's tagger looks every feature string of a sequence up in the model's attribute
dictionary and then decodes; ``citejudge._native.crf_viterbi`` does the same sums and the same
Viterbi from the weights read here, and looks the features up in a Python dict (whose keys
keep their hashes), about six times faster on the parser's sequences and with the same labels
(``tests/test_parse_crf.py`` and ``scripts/diff_parse.py`` hold the two together).

The file (CRFsuite's ``crf1d_model.c``, version 100): a 48-byte header of little-endian
``uint32`` fields (magic ``lCRF``, size, type ``FOMC``, version, numbers of features, labels and
attributes (the features' count left 0), offsets of the features, the label and attribute dictionaries and the two
reference tables); the features chunk (``FEAT``, size, count, then per feature its type, source,
destination as ``uint32`` and its weight as a little-endian double: type 0 is a state feature
attribute -> label, type 1 a transition label -> label); each dictionary a CQDB chunk whose
backward array gives, per id, the offset of its record (id, key size, key with its NUL).
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass

__all__ = ["Weights", "read_weights"]

_HEADER = struct.Struct("<4sI4sIIIIIIIII")
_CQDB_HEADER = struct.Struct("<4sIIIII")
_CQDB_BYTEORDER = 0x62445371
_RECORD = struct.Struct("<II")
_FEATURE = struct.Struct("<IIId")


@dataclass(frozen=True)
class Weights:
    """A model's labels, attribute ids and weights, as ``crf_viterbi`` takes them."""

    #: label names by id
    labels: tuple[str, ...]
    #: attribute (feature) name -> id
    attrs: dict[bytes, int]
    #: state weights, attribute-major: ``state[a * L + y]`` (native doubles)
    state: bytes
    #: transition weights ``trans[i * L + j]`` from label i to label j (native doubles)
    trans: bytes


def _names(data: bytes, base: int, count: int) -> list[bytes]:
    """The keys of ids ``0 .. count-1`` of the CQDB chunk at ``base``."""
    chunk, size, _flag, order, bwd_size, bwd_offset = _CQDB_HEADER.unpack_from(data, base)
    if chunk != b"CQDB" or order != _CQDB_BYTEORDER or bwd_size < count or not bwd_offset:
        raise ValueError("not a CRFsuite dictionary")
    if count == 0:
        return []
    end = base + size
    try:
        offsets = struct.unpack_from(f"<{count}I", data, base + bwd_offset)
    except struct.error as exc:
        raise ValueError("a CRFsuite dictionary is cut short") from exc
    out = []
    # each record: its id, its key's size (with the NUL), its key (records are not aligned)
    for i, off in enumerate(offsets):
        off += base
        if off + 8 > end:
            raise ValueError("a CRFsuite dictionary record is out of place")
        rid, ksize = _RECORD.unpack_from(data, off)
        stop = off + 8 + ksize
        if rid != i or ksize < 1 or stop > end:
            raise ValueError("a CRFsuite dictionary record is out of place")
        out.append(data[off + 8 : stop])
    if not all(key.endswith(b"\0") for key in out):
        raise ValueError("a CRFsuite dictionary key is not ended by NUL")
    return [key[:-1] for key in out]


def read_weights(data: bytes) -> Weights:
    """The weights of the CRFsuite model ``data``. Raises ValueError for another file."""
    if len(data) < _HEADER.size:
        raise ValueError("not a CRFsuite model")
    # (the header's count of features is not filled in: the features chunk has it)
    (magic, size, kind, version, _n, n_labels, n_attrs, off_feat, off_labels, off_attrs) = (
        _HEADER.unpack_from(data)[:10]
    )
    if magic != b"lCRF" or kind != b"FOMC" or version != 100 or size != len(data) or n_labels < 1:
        raise ValueError("not a CRFsuite 1d model (version 100)")
    labels = tuple(x.decode("utf-8") for x in _names(data, off_labels, n_labels))
    attrs = {name: i for i, name in enumerate(_names(data, off_attrs, n_attrs))}
    chunk, chunk_size, count = struct.unpack_from("<4sII", data, off_feat)
    start = off_feat + 12
    if chunk != b"FEAT" or chunk_size != 12 + _FEATURE.size * count or off_feat + chunk_size > size:
        raise ValueError("the CRFsuite features chunk is out of place")
    n = n_labels
    # (a struct loop, not numpy: the parser's first citation would otherwise import numpy,
    # ~50 ms of every process's start-up; the weights are the same doubles)
    state = array("d", bytes(8 * n_attrs * n))
    trans = array("d", bytes(8 * n * n))
    for kind_, src, dst, weight in _FEATURE.iter_unpack(
        data[start : start + _FEATURE.size * count]
    ):
        if dst >= n or kind_ > 1 or src >= (n_attrs if kind_ == 0 else n):
            raise ValueError("a CRFsuite feature is out of range")
        (state if kind_ == 0 else trans)[src * n + dst] = weight
    return Weights(labels, attrs, state.tobytes(), trans.tobytes())
