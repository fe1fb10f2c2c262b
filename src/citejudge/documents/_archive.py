"""Archives of documents: an arXiv source bundle (``.tar.gz``), a ``.zip`` of papers.

An archive (by its suffix; a file without one, as arXiv's e-print download ``2301.00001v1``
is, by its first bytes: a gzipped tar, a zip, or a single gzipped ``.tex`` read as ``main.tex``)
is unpacked into a temporary folder and read like a folder (see
:func:`~citejudge.documents._read.document_files`); each document it holds is then named
``ARCHIVE/path/inside`` (``2301.00001.tar.gz/main.tex``), so that item ids, error records and
the manifest never show the temporary folder and a run over the same archive is the same run.
Unpacking refuses what could leave the folder (absolute paths, ``..``, links) and stops at a
size and a member count no paper reaches.
"""

from __future__ import annotations

import gzip
import re
import shutil
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citejudge.documents._build import DocumentError

__all__ = ["ARCHIVE_SUFFIXES", "is_archive", "unpacked"]

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
#: Unpacked bytes and members an archive may hold: far above a paper's source with its figures.
MAX_BYTES = 1 << 30
MAX_MEMBERS = 20_000
#: arXiv's e-print file names: the identifier, whose "." is no suffix ("2301.00001v2").
_ARXIV_ID = re.compile(r"^\d{4}\.\d{4,5}(?:v\d+)?$")


def is_archive(path: Path) -> bool:
    """Whether ``path`` is an archive of documents.

    By its suffix, or, for a file without one (arXiv's e-print download, ``2301.00001``), by
    its first bytes (gzip, zip).
    """
    name = path.name.lower()
    if name.endswith(ARCHIVE_SUFFIXES):
        return True
    if (path.suffix and not _ARXIV_ID.search(name)) or not path.is_file():
        return False
    try:
        with path.open("rb") as f:
            return f.read(4) in (b"\x1f\x8b\x08\x00", b"\x1f\x8b\x08\x08", b"PK\x03\x04")
    except OSError:
        return False


def _check(path: Path, sizes: list[int]) -> None:
    if len(sizes) > MAX_MEMBERS or sum(sizes) > MAX_BYTES:
        raise DocumentError(
            f"{path}: the archive holds {len(sizes)} files, {sum(sizes)} bytes unpacked: too many "
            f"to be a document's source (at most {MAX_MEMBERS} files, {MAX_BYTES} bytes)",
            hint="unpack it yourself and give the folder",
        )


def _unpack(path: Path, dest: Path) -> None:
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                entries = [m for m in zf.infolist() if not m.is_dir()]
                _check(path, [m.file_size for m in entries])
                for e in entries:
                    zf.extract(e, dest)  # zipfile drops absolute paths and ".." itself
        elif _single_gzip(path):
            # arXiv sends a paper of one file as that file gzipped, without a name
            with gzip.open(path) as gz:
                data = gz.read(MAX_BYTES + 1)
            _check(path, [len(data)])
            (dest / "main.tex").write_bytes(data)
        else:
            with tarfile.open(path) as tf:
                members = [m for m in tf.getmembers() if m.isfile()]
                _check(path, [m.size for m in members])
                tf.extractall(dest, members=members, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        raise DocumentError(
            f"{path}: the archive cannot be unpacked: {exc}",
            hint="a .zip, .tar, .tar.gz (.tgz), .tar.bz2 or .tar.xz",
        ) from exc


def _single_gzip(path: Path) -> bool:
    """A gzipped file without an archive suffix that is not a tar (no ``ustar`` in its header)."""
    if path.name.lower().endswith(ARCHIVE_SUFFIXES):
        return False
    try:
        with gzip.open(path) as gz:
            head = gz.read(512)
    except (OSError, EOFError, zlib.error):
        return False
    return head[257:262] != b"ustar"


@contextmanager
def unpacked(path: Path) -> Iterator[Path]:
    """A temporary folder holding what the archive ``path`` holds (removed afterwards).

    Raises :class:`DocumentError` (naming the archive) when it cannot be unpacked or is too big.
    """
    if not path.is_file():
        raise DocumentError(f"{path}: no such file")
    dest = Path(tempfile.mkdtemp(prefix="citejudge-archive-"))
    try:
        _unpack(path, dest)
        yield dest
    finally:
        shutil.rmtree(dest, ignore_errors=True)
