"""Names a package exports but imports on first use (PEP 562's module ``__getattr__``).

A package whose ``__init__`` imported every submodule made every command pay for all of them:
``check references --no-llm`` loaded the document readers, the judge's passage code and their
regular expressions without using them. Such a package lists its exports here instead, beside
the same imports under ``TYPE_CHECKING`` for the type checker::

    __getattr__ = lazy_exports(__name__, {"Document": "._model", "read_document": "._read"})

The first access imports the module and keeps the value in the package, so later accesses are
plain attribute reads.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each of ``names`` from its module (relative to it)."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
