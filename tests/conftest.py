"""Shared fixtures: the path of ../shared/data (tests using it skip when it is absent)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
DEMO_WORKS = REPO / "demo" / "world" / "works.jsonl"


def index_demo(index: Path) -> int:
    """``citejudge index build`` of the demo world at ``index``; its exit code."""
    from citejudge.cli import main

    return main(["index", "build", str(DEMO_WORKS), "--index", str(index), "-q"])


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture(autouse=True, scope="session")
def _source_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """citation-eval runs keep their quote indexes in a temporary folder, not ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CITEJUDGE_SOURCE_CACHE", str(tmp_path_factory.mktemp("source-index")))
        yield
