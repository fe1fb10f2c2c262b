"""citejudge: offline, reproducible evaluation of citations.

``import citejudge`` is light: it never imports torch, vllm or outlines. Public names are
re-exported here; the implementation lives in the subpackages. The Python API
(:mod:`citejudge.api`): :func:`open_index`, :func:`check`, :func:`read_document`,
:func:`check_documents`, :class:`Result`.
"""

from citejudge.api import (
    Result,
    check,
    check_documents,
    check_file,
    open_index,
    read_document,
)
from citejudge.documents import CitingSentence, Document, DocumentError, Marker, Reference
from citejudge.errors import CitejudgeError, ConfigError, InputError, MissingDependencyError
from citejudge.records import Author, ReadIssue, Redirect, Version, Work

__version__ = "0.1.0"

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
