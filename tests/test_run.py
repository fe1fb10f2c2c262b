"""Batch runs: config, resume after SIGKILL, determinism, faults, locking."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citejudge.errors import ConfigError
from citejudge.index import build_index
from citejudge.run import RunError, load_config, read_done, run

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("w") / "world.index"
    build_index([REPO / "demo" / "world" / "works.jsonl"], path, workers=1)
    return path


def _items(path: Path, n: int) -> Path:
    src = (REPO / "demo" / "citations.jsonl").read_text().splitlines()
    rows = []
    for i in range(n):
        d = json.loads(src[i % len(src)])
        d["id"] = f"{d['id']}-{i}"
        rows.append(json.dumps(d, ensure_ascii=False))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _config(tmp: Path, world: Path, items: Path, out: str = "run", **extra: object) -> Path:
    cfg = {
        "task": "references",
        "input": str(items),
        "index": str(world),
        "out": out,
        "model": "none",
        "workers": 1,
        "today_year": 2026,
        **extra,
    }
    p = tmp / f"{out}.yaml"
    import yaml

    p.write_text(yaml.safe_dump(cfg))
    return p


def test_config_is_strict_with_did_you_mean(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("task: references\ninput: x.jsonl\nout: r\nbatchsize: 3\n")
    with pytest.raises(ConfigError) as exc:
        load_config(p)
    assert "batch_size" in (exc.value.hint or "")


def test_config_env_and_flag_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("task: references\ninput: x.jsonl\nout: r\nworkers: 1\n")
    monkeypatch.setenv("CITEJUDGE_WORKERS", "3")
    cfg = load_config(p, model="none")
    assert cfg.workers == 3 and cfg.no_llm and cfg.out == tmp_path / "r"


def test_two_runs_are_byte_identical(tmp_path: Path, world: Path) -> None:
    items = _items(tmp_path / "items.jsonl", 60)
    a = run(load_config(_config(tmp_path, world, items, "a")), quiet=True)
    b = run(load_config(_config(tmp_path, world, items, "b")), quiet=True)
    assert a.items == b.items == 60
    assert (tmp_path / "a" / "results.jsonl").read_bytes() == (
        tmp_path / "b" / "results.jsonl"
    ).read_bytes()
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert (
        manifest["status"] == "finished"
        and manifest["config_sha256"]
        and manifest["input"]["files"][0]["sha256"]
    )
    assert manifest["code"]["commit"] is None or len(manifest["code"]["commit"]) == 40
    assert manifest["versions"]["python"] and "rapidfuzz" in manifest["versions"]


def test_existing_results_need_resume(tmp_path: Path, world: Path) -> None:
    items = _items(tmp_path / "items.jsonl", 5)
    cfg = load_config(_config(tmp_path, world, items))
    run(cfg, quiet=True)
    with pytest.raises(RunError):
        run(cfg, quiet=True)
    s = run(cfg, resume=True, quiet=True)
    assert s.resumed_from == 5 and s.processed == 0


def test_corrupted_last_line_is_redone(tmp_path: Path, world: Path) -> None:
    items = _items(tmp_path / "items.jsonl", 20)
    cfg = load_config(_config(tmp_path, world, items))
    run(cfg, quiet=True)
    results = tmp_path / "run" / "results.jsonl"
    full = results.read_bytes()
    lines = full.splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:12]) + lines[12][: len(lines[12]) // 2])
    s = run(cfg, resume=True, quiet=True)
    assert s.resumed_from == 12 and s.processed == 8
    assert results.read_bytes() == full
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["repaired_tail"] is True


def test_disappeared_shard_is_reported(tmp_path: Path, world: Path) -> None:
    items = _items(tmp_path / "items.jsonl", 5)
    cfg = load_config(_config(tmp_path, world, items))
    run(cfg, quiet=True)
    items.unlink()
    with pytest.raises(RunError, match="missing"):
        run(cfg, resume=True, quiet=True)


def test_disk_full_leaves_no_partial_line(
    tmp_path: Path, world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _items(tmp_path / "items.jsonl", 30)
    cfg = load_config(_config(tmp_path, world, items))
    real_write = os.write
    calls = {"n": 0}

    def flaky_write(fd: int, data: bytes) -> int:
        if data.endswith(b"\n") and data.startswith(b'{"id"'):
            calls["n"] += 1
            if calls["n"] == 11:
                real_write(fd, data[: len(data) // 2])  # a partial line hits the disk...
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", flaky_write)
    with pytest.raises(RunError, match="No space left"):
        run(cfg, quiet=True)
    monkeypatch.setattr(os, "write", real_write)
    done, repaired = read_done(tmp_path / "run" / "results.jsonl")
    assert len(done) == 10 and not repaired  # ...and was rolled back
    s = run(cfg, resume=True, quiet=True)
    assert s.resumed_from == 10 and s.items == 30


def test_second_run_on_same_directory_is_refused(tmp_path: Path, world: Path) -> None:
    import fcntl

    items = _items(tmp_path / "items.jsonl", 3)
    cfg = load_config(_config(tmp_path, world, items))
    (tmp_path / "run").mkdir()
    with (tmp_path / "run" / "run.lock").open("a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        with pytest.raises(RunError, match="another citejudge run"):
            run(cfg, quiet=True)


def test_sigkill_then_resume_equals_uninterrupted(tmp_path: Path, world: Path) -> None:
    items = _items(tmp_path / "items.jsonl", 3000)
    ref_cfg = _config(tmp_path, world, items, "ref")
    run(load_config(ref_cfg), quiet=True)
    killed_cfg = _config(tmp_path, world, items, "killed")
    cmd = [sys.executable, "-m", "citejudge.cli", "run", "--config", str(killed_cfg), "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = tmp_path / "killed" / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and results.stat().st_size > 100_000:
            break
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = len(read_done(results)[0]) if results.exists() else 0
    assert 0 < before < 3000, "the kill should land mid-run"
    s = run(load_config(killed_cfg), resume=True, quiet=True)
    assert s.resumed_from == before and s.processed == 3000 - before
    assert results.read_bytes() == (tmp_path / "ref" / "results.jsonl").read_bytes()


class _BatchFailingBackend:
    """Raises on the first ``fail`` batches, then answers SUPPORTED."""

    name = "failing"
    revision = "failing-1"

    def __init__(self, fail: int) -> None:
        self.fail = fail
        self.batches = 0

    def generate_batch(self, prompts, schema, sampling):  # type: ignore[no-untyped-def]
        self.batches += 1
        if self.batches <= self.fail:
            raise RuntimeError("CUDA error: device lost")
        if schema.__name__ == "AbstentionJudgement":
            return ['{"abstention": "no"}'] * len(prompts)
        return ['{"label": "SUPPORTED", "missing": ""}'] * len(prompts)


@pytest.mark.parametrize(
    ("fail", "budget", "over"), [(1, False, False), (99, 0.9, False), (99, 0.1, True)]
)
def test_backend_failure_retried_then_per_item_errors(
    tmp_path: Path,
    world: Path,
    monkeypatch: pytest.MonkeyPatch,
    fail: int,
    budget: object,
    over: bool,
) -> None:
    from citejudge.judge.core import Judge
    from citejudge.run import stages

    backend = _BatchFailingBackend(fail)

    def fake_build_judge(model, cache_dir, sampling, prompts, schemas):  # type: ignore[no-untyped-def]
        return Judge(backend), {"backend": backend.name}

    monkeypatch.setattr(stages, "build_judge", fake_build_judge)
    items = _items(tmp_path / "items.jsonl", 13)
    cfg = load_config(_config(tmp_path, world, items, model="scripted-demo", fail_on_error=budget))
    s = run(cfg, quiet=True)
    lines = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    judged = [x for x in lines if (x["details"].get("content") or {}).get("evidence")]
    assert judged, "some items reach the judge"
    if fail == 1:  # the failed batch was retried and succeeded
        assert s.errors == 0 and all(
            x["result"]["content_grounding"].startswith("Yes.") for x in judged
        )
    else:
        assert s.errors == len(judged) and all(x["error"]["kind"] == "judge" for x in judged)
        assert "device lost" in judged[0]["error"]["message"]
    assert s.over_budget is over


@pytest.mark.parametrize("path", sorted((REPO / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_load(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.out.is_absolute()
    if cfg.task != "references" and "demo" in path.name:
        assert all(Path(p).is_file() for p in cfg.input)  # the bundled demo inputs exist
