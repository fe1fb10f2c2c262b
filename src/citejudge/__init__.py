"""citejudge: offline, reproducible evaluation of citations.

``import citejudge`` is light: it never imports torch, vllm or outlines. Public names are
re-exported here; the implementation lives in the subpackages.
"""

from citejudge.errors import CitejudgeError, ConfigError, InputError, MissingDependencyError
from citejudge.records import Author, ReadIssue, Redirect, Version, Work

__version__ = "0.1.0"

__all__ = [
    "Author",
    "CitejudgeError",
    "ConfigError",
    "InputError",
    "MissingDependencyError",
    "ReadIssue",
    "Redirect",
    "Version",
    "Work",
    "__version__",
]
