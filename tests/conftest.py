"""Shared fixtures: the path of ../shared/data (tests using it skip when it is absent)."""

from __future__ import annotations

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
