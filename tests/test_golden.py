"""The demo's results stay byte-identical across restructuring (stored expectations).

Each case runs ``citejudge check`` in process on a bundled demo input with a deterministic judge
(``--no-llm`` or a scripted card) and compares the output lines with ``tests/golden/``. A change
of behaviour shows as a diff here; when it is intended, regenerate with
``CITEJUDGE_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff in the commit.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from citejudge.cli import main
from conftest import index_demo

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
CASES = [
    ("references-nollm", ["references", "demo/citations.jsonl", "--no-llm"]),
    ("references-scripted", ["references", "demo/citations.jsonl", "--model", "scripted-demo"]),
    ("rag-audit-nollm", ["rag-audit", "demo/rag-audit.jsonl", "--no-llm"]),
    ("citation-eval-nollm", ["citation-eval", "demo/citation-eval.jsonl", "--no-llm"]),
]


@pytest.fixture(scope="module")
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = tmp_path_factory.mktemp("golden") / "world.index"
    assert index_demo(index) == 0
    return index


@pytest.mark.parametrize(("name", "args"), CASES, ids=[c[0] for c in CASES])
def test_demo_results_match_the_stored_expectations(
    name: str, args: list[str], demo_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # relative input paths: the error records name them as given
    out = tmp_path / f"{name}.jsonl"
    index = ["--index", str(demo_index)] if args[0] != "rag-audit" else []
    code = main(
        ["check", *args, *index, "--out", str(out), "-q", "--cache-dir", str(tmp_path / "cache")]
    )
    assert code == 0
    got = out.read_text(encoding="utf-8")
    expected = GOLDEN / f"{name}.jsonl"
    if os.environ.get("CITEJUDGE_UPDATE_GOLDEN"):
        expected.write_text(got, encoding="utf-8")
    assert got == expected.read_text(encoding="utf-8")
