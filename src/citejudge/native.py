"""The C module ``citejudge._native``, when it is built and wanted.

``setup.py`` builds it where a C compiler is at hand; an install without one goes on, and the
callers take their Python paths, which give the same results (differential tests check it).
Setting ``CITEJUDGE_NO_NATIVE`` to a non-empty value makes a process take the Python paths alone:
for benchmarks and for ruling the module out when looking for a fault.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["load", "why_not"]


def load() -> ModuleType | None:
    """The C module, or None when it is not built or ``CITEJUDGE_NO_NATIVE`` is set."""
    if os.environ.get("CITEJUDGE_NO_NATIVE"):
        return None
    try:  # (by name: an extension module has no source for the import-graph test to place)
        return importlib.import_module("citejudge._native")
    except ImportError:  # pragma: no cover - an install without a C compiler
        return None


def why_not() -> str:
    """Why :func:`load` gives None (for a build's warning)."""
    if os.environ.get("CITEJUDGE_NO_NATIVE"):
        return "the C module is turned off (CITEJUDGE_NO_NATIVE)"
    return "the C module citejudge._native is not built (install the package with a C compiler)"
