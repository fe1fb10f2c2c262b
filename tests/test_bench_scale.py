"""``scripts/bench_scale.py`` end to end on tiny worlds: the figures it prints, and ``--indexes``
keeping the built indexes so that a second run only queries (same build figures, new rounds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_scale.py"


def _run(tmp: Path) -> tuple[dict[str, Any], str]:
    argv = [sys.executable, str(SCRIPT), "--sizes", "1500,3000", "--refs", "40", "--warm", "5"]
    argv += ["--rounds", "2", "--matching-at", "", "--workers", "1"]
    argv += ["--snapshots", str(tmp / "snaps"), "--indexes", str(tmp / "ix"), "--tmp", str(tmp)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout), out.stderr


@pytest.mark.slow
def test_bench_scale_prints_growth_and_reuses_its_indexes(tmp_path: Path) -> None:
    first, log = _run(tmp_path)
    assert "index kept" not in log
    sizes = [r["size"] for r in first["sizes"]]
    assert sizes == [1500, 3000]
    for row in first["sizes"]:
        assert row["build"]["works"] > 0 and row["build"]["bytes_per_work"]["total"] > 0
        for kind in ("identifier", "exact_title", "noisy_title"):
            q = row["queries"][kind]
            assert q["refs"] == 40 and q["refs_per_s"] > 0 and sum(q["stages"].values()) == 40
    for kind in ("identifier", "exact_title", "noisy_title"):
        g = first["growth"][f"{kind}_refs_per_s"]
        assert len(g["ratio_per_round"]) == 2 and all(x > 0 for x in g["ratio_per_round"])
    assert (tmp_path / "ix" / "index-3000-s0" / "meta.json").is_file()

    second, log = _run(tmp_path)
    assert log.count("index kept from an earlier run") == 2 and "] build" not in log
    assert [r["build"] for r in second["sizes"]] == [r["build"] for r in first["sizes"]]
    assert second["sizes"][1]["queries"]["noisy_title"]["refs"] == 40
