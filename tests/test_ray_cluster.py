"""``executor: ray`` on a two-node cluster (two raylets on loopback) joined with ``--ray-address``.

The cluster is started with ``ray start --block`` in its own temporary folder, process group
and token, and stopped by signalling exactly those processes: ``ray stop`` would stop every
Ray instance of the machine.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray.data")

from citejudge.index import build_index
from citejudge.run import load_config, run

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


_GIVEN: set[int] = set()


def _free_port() -> int:
    """A port free now and not handed out before (the OS may offer a just-closed one again)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


def _node_ports() -> list[str]:
    """Ports every raylet would otherwise take from fixed defaults (and collide on)."""
    return [
        f"--dashboard-agent-listen-port={_free_port()}",
        f"--dashboard-agent-grpc-port={_free_port()}",
        f"--runtime-env-agent-port={_free_port()}",
        f"--metrics-export-port={_free_port()}",
    ]


def _wait_started(proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "Ray runtime started" in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    raise RuntimeError(f"ray start did not come up:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each ``ray start --block`` we started (it stops its node); kill its group if it hangs."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=45)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


@pytest.fixture
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """A head and a worker raylet (one CPU each) on 127.0.0.1; yields (address, driver env)."""
    temp = Path(tempfile.mkdtemp(prefix="cj-ray-", dir="/tmp"))  # short: Ray's socket paths
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "token",  # this cluster's own token, not ~/.ray/auth_token
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
    }
    ray = [
        sys.executable,
        "-m",
        "ray.scripts.scripts",
        "start",
        "--block",
        "--num-cpus=1",
        "--node-ip-address=127.0.0.1",
        f"--temp-dir={temp}",
        "--min-worker-port=0",
        "--max-worker-port=0",
        "--object-store-memory=150000000",
    ]
    port = _free_port()
    address = f"127.0.0.1:{port}"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for role, args in (
            (
                "head",
                [
                    "--head",
                    f"--port={port}",
                    "--include-dashboard=false",
                    f"--ray-client-server-port={_free_port()}",
                ],
            ),
            ("worker", [f"--address={address}"]),
        ):
            log = temp / f"{role}.log"
            with log.open("wb") as out:
                procs.append(
                    subprocess.Popen(
                        [*ray, *args, *_node_ports()],
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
            _wait_started(procs[-1], log)
        yield address, env
    finally:
        _stop(procs[::-1])
        shutil.rmtree(temp, ignore_errors=True)


def test_two_node_cluster_equals_local(tmp_path: Path, cluster: tuple[str, dict[str, str]]) -> None:
    import yaml

    address, env = cluster
    world = tmp_path / "world.index"  # shared storage: both nodes read this very path
    build_index([REPO / "demo" / "world" / "works.jsonl"], world, workers=1)
    src = (REPO / "demo" / "citations.jsonl").read_text(encoding="utf-8").splitlines()
    rows = []
    for i in range(40):
        d = json.loads(src[i % len(src)])
        d["id"] = f"{d['id']}-{i}"
        rows.append(json.dumps(d, ensure_ascii=False))
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(rows) + "\n", encoding="utf-8")
    base = {
        "task": "references",
        "input": str(items),
        "index": str(world),
        "model": "none",
        "today_year": 2026,
        "workers": 2,
    }
    for name, extra in (("local", {"workers": 1}), ("cluster", {"executor": "ray"})):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump({**base, "out": name, **extra}))

    run(load_config(tmp_path / "local.yaml"), quiet=True)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from citejudge.cli import main; sys.exit(main())",
            "run",
            "--config",
            str(tmp_path / "cluster.yaml"),
            "--ray-address",
            address,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "start-up" in proc.stderr

    results = (tmp_path / "cluster" / "results.jsonl").read_bytes()
    assert results == (tmp_path / "local" / "results.jsonl").read_bytes()
    assert len(results.splitlines()) == 40
    manifest = json.loads((tmp_path / "cluster" / "manifest.json").read_text())
    assert manifest["config"]["ray_address"] == address
    assert manifest["ray"]["address"] == address
    assert len(manifest["ray"]["nodes"]) == 2, "both raylets ran a CPU worker"
    assert 0 < manifest["timings"]["startup_s"] <= manifest["timings"]["seconds_this_session"]
