"""The provenance facts of a manifest: the code revision and the package versions."""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

import pytest

from citejudge.hashing import _version, code_revision, package_versions


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("name", ["pydantic", "rapidfuzz", "citejudge", "msgspec"])
def test_versions_read_from_the_header_lines_are_metadatas(name: str) -> None:
    assert _version(metadata.distribution(name)) == metadata.version(name)


def test_package_versions_are_metadatas_or_none() -> None:
    got = package_versions()
    assert {"python", "citejudge", "pydantic", "vllm", "torch"} <= set(got)
    for name, version in got.items():
        if name == "python":
            continue
        try:
            want: str | None = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            want = None
        assert version == want, name


def test_code_revision_commit_and_dirty(tmp_path: Path) -> None:
    assert code_revision(tmp_path) == {"commit": None, "dirty": None}  # not a repository
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    assert code_revision(tmp_path) == {"commit": None, "dirty": None}  # no commit yet
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "commit", "-q", "-m", "one")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert code_revision(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "new.txt").write_text("untracked files do not count\n")
    assert code_revision(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "a.txt").write_text("two\n")
    assert code_revision(tmp_path) == {"commit": head, "dirty": True}
    _git(tmp_path, "add", "a.txt")  # staged counts too
    assert code_revision(tmp_path) == {"commit": head, "dirty": True}
