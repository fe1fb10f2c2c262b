"""citejudge: offline, reproducible evaluation of citations.

``import citejudge`` is light: it never imports torch, vllm or outlines. Public names are
re-exported here; the implementation lives in the subpackages. The Python API
(:mod:`citejudge.api`): :func:`open_index`, :func:`check`, :func:`read_document`,
:func:`check_documents`, :class:`Result`.
"""

from typing import TYPE_CHECKING

from citejudge.api import (
    Result,
    check,
    check_documents,
    check_file,
    open_index,
    read_document,
)
from citejudge.errors import CitejudgeError, ConfigError, InputError, MissingDependencyError
from citejudge.lazy import lazy_exports
from citejudge.records import Author, ReadIssue, Redirect, Version, Work

if TYPE_CHECKING:
    from citejudge.documents import CitingSentence, Document, DocumentError, Marker, Reference

#: names loaded on first use: the document readers (their finder model, regexes and parsers)
#: cost start-up time that ``check references`` and ``index build`` do not need
_LAZY = {
    name: ".documents"
    for name in ("CitingSentence", "Document", "DocumentError", "Marker", "Reference")
}

__version__ = "0.1.0"


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "Author",
    "CitejudgeError",
    "CitingSentence",
    "ConfigError",
    "Document",
    "DocumentError",
    "InputError",
    "Marker",
    "MissingDependencyError",
    "ReadIssue",
    "Redirect",
    "Reference",
    "Result",
    "Version",
    "Work",
    "__version__",
    "check",
    "check_documents",
    "check_file",
    "open_index",
    "read_document",
]
