"""A wheel built from the checkout carries everything it needs (cards, prompts, calibrations, report template).

The wheel is built without build isolation, installed (without dependencies: they are this
environment's) into a fresh folder, and run from another folder with the source tree off the
path: it builds the demo index and checks the demo citations with the default model card.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The wheel built from the checkout, and the folder it is installed into."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist, site = tmp / "dist", tmp / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
        ],
        check=True,
        cwd=tmp,
    )
    wheel = next(dist.glob("citejudge-*.whl"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        cwd=tmp,
    )
    return wheel, site


@pytest.mark.slow
def test_wheel_ships_the_report_template(installed: tuple[Path, Path], tmp_path: Path) -> None:
    wheel, site = installed
    assert "citejudge/run/templates/report.html.j2" in zipfile.ZipFile(wheel).namelist()
    run = tmp_path / "run"
    run.mkdir()
    line = {
        "id": "a",
        "task": "references",
        "error": None,
        "details": {"input_extra": {}},
        "result": {"reference_grounding": "Yes. Matches W1 via doi.", "hallucination": "No"},
    }
    (run / "results.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEJUDGE_")}
    env["PYTHONPATH"] = str(site)
    code = "import sys; from citejudge.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run(
        [sys.executable, "-c", code, "report", str(run)],
        cwd=tmp_path,
        env=env,
        text=True,
        capture_output=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["reference_grounding"] == {"Yes": 1}
    assert "<svg" in (run / "report.html").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.model
def test_wheel_runs_the_default_check_from_another_folder(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, site = installed
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEJUDGE_")}
    env["PYTHONPATH"] = str(site)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        code = "import sys; from citejudge.cli import main; sys.exit(main(sys.argv[1:]))"
        return subprocess.run(
            [sys.executable, "-c", code, *args],
            cwd=work,
            env=env,
            text=True,
            capture_output=True,
            timeout=900,
        )

    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import citejudge.resources as r; print(r.__file__); "
            "print(r.resource_dir('models')); print(r.resource_dir('prompts'))",
        ],
        cwd=work,
        env=env,
        text=True,
        capture_output=True,
        check=True,
    ).stdout.split()
    assert all(w.startswith(str(site)) for w in where), where
    assert (Path(where[1]) / "cpu-default.yaml").is_file()

    demo = REPO / "demo"
    r = cli("index", "build", str(demo / "world" / "works.jsonl"), "--index", "world.index", "-q")
    assert r.returncode == 0, r.stderr
    r = cli(
        "check",
        "references",
        str(demo / "citations.jsonl"),
        "--index",
        "world.index",
        "--out",
        "out.jsonl",
        "-q",
    )
    assert r.returncode == 0, r.stderr[-2000:]
    # -q silences the libraries' progress bars too
    assert "Loading weights" not in r.stderr and "it/s]" not in r.stderr, r.stderr[-1000:]
    lines = [json.loads(x) for x in (work / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines and all(ln["result"] is not None or ln["error"] for ln in lines)
    manifest = json.loads((work / "out.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["judge"]["card"]["name"] == "cpu-default"
