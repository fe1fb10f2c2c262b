"""Lazy package exports (``citejudge.lazy``) and what a reference check's start-up imports."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

LAZY_PACKAGES = ["citejudge", "citejudge.documents", "citejudge.judge", "citejudge.readers"]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_export_resolves_to_its_modules_object(package: str) -> None:
    pkg = importlib.import_module(package)
    lazy = pkg._LAZY
    assert set(lazy) <= set(pkg.__all__)
    for name in lazy:
        module = importlib.import_module(lazy[name], package)
        assert getattr(pkg, name) is getattr(module, name)
        assert name in vars(pkg)  # kept: the next access is a plain attribute read
    with pytest.raises(AttributeError, match="no_such_name"):
        pkg.no_such_name  # noqa: B018


def test_a_reference_check_imports_neither_numpy_nor_the_document_readers() -> None:
    # what `citejudge check references --no-llm` imports before its first citation
    code = (
        "import json, sys\n"
        "from citejudge.cli import main\n"
        "import citejudge.api, citejudge.run.pipeline, citejudge.tasks.references\n"
        "from citejudge.index import WorldIndex\n"
        "from citejudge.readers import parse_item_citation\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    for heavy in (
        "numpy",
        "rich",
        "citejudge.documents._read",
        "citejudge.documents._finder",
        "citejudge.judge.passages",
        "citejudge.judge.cards",
        "citejudge.sources",
        "citejudge.tasks.content",
        "citejudge.readers.openalex",
    ):
        assert heavy not in loaded, heavy
    assert "citejudge.readers.freetext" in loaded  # (the negative: the check's own reader is)
