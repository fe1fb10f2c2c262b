"""Archives of documents: an arXiv source bundle (``.tar.gz``), a ``.zip`` of papers.

An archive is unpacked into a temporary folder and read like a folder (see
:func:`~citejudge.documents._read.document_files`); each document it holds is then named
``ARCHIVE/path/inside`` (``2301.00001.tar.gz/main.tex``), so that item ids, error records and
the manifest never show the temporary folder and a run over the same archive is the same run.
Unpacking refuses what could leave the folder (absolute paths, ``..``, links) and stops at a
size and a member count no paper reaches.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citejudge.documents._build import DocumentError

__all__ = ["ARCHIVE_SUFFIXES", "is_archive", "unpacked"]

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
#: Unpacked bytes and members an archive may hold: far above a paper's source with its figures.
MAX_BYTES = 1 << 30
MAX_MEMBERS = 20_000


def is_archive(path: Path) -> bool:
    """Whether ``path`` names an archive of documents (by its suffix)."""
    name = path.name.lower()
    return name.endswith(ARCHIVE_SUFFIXES)


def _check(path: Path, sizes: list[int]) -> None:
    if len(sizes) > MAX_MEMBERS or sum(sizes) > MAX_BYTES:
        raise DocumentError(
            f"{path}: the archive holds {len(sizes)} files, {sum(sizes)} bytes unpacked: too many "
            f"to be a document's source (at most {MAX_MEMBERS} files, {MAX_BYTES} bytes)",
            hint="unpack it yourself and give the folder",
        )


def _unpack(path: Path, dest: Path) -> None:
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                entries = [m for m in zf.infolist() if not m.is_dir()]
                _check(path, [m.file_size for m in entries])
                for e in entries:
                    zf.extract(e, dest)  # zipfile drops absolute paths and ".." itself
        else:
            with tarfile.open(path) as tf:
                members = [m for m in tf.getmembers() if m.isfile()]
                _check(path, [m.size for m in members])
                tf.extractall(dest, members=members, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as exc:
        raise DocumentError(
            f"{path}: the archive cannot be unpacked: {exc}",
            hint="a .zip, .tar, .tar.gz (.tgz), .tar.bz2 or .tar.xz",
        ) from exc


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
