"""One pipeline for `check` and `run`: the manifest model and its shipped schema, the task table, sinks."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import jsonschema
import orjson
import pytest

from citejudge.cli import build_parser, main
from citejudge.errors import ConfigError
from citejudge.index import build_index
from citejudge.io import OutputLine, dumps_line
from citejudge.run import RunConfig, RunManifest, load_config, run, run_check, validate_config
from citejudge.run.manifest import manifest_schema
from citejudge.run.store import Appender, StreamSink
from citejudge.schema import load_schema
from citejudge.tasks.protocol import TASKS, Task, load_task

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "src" / "citejudge" / "schemas" / "run_manifest.json"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("w") / "world.index"
    build_index([REPO / "demo" / "world" / "works.jsonl"], path, workers=1)
    return path


def test_shipped_manifest_schema_equals_the_model() -> None:
    expected = json.dumps(manifest_schema(), indent=2, sort_keys=True) + "\n"
    if os.environ.get("CITEJUDGE_UPDATE_SCHEMA"):
        SHIPPED.write_text(expected, encoding="utf-8")
    assert SHIPPED.read_text(encoding="utf-8") == expected, (
        "regenerate with CITEJUDGE_UPDATE_SCHEMA=1 pytest tests/test_pipeline.py"
    )
    assert load_schema("run_manifest") == manifest_schema()


def _validate_manifest(path: Path) -> dict[str, object]:
    manifest = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(load_schema("run_manifest")).validate(manifest)
    RunManifest.model_validate(manifest)
    return manifest  # type: ignore[no-any-return]


def test_check_and_run_write_the_same_results_and_valid_manifests(
    tmp_path: Path, world: Path
) -> None:
    items = REPO / "demo" / "citations.jsonl"
    out = tmp_path / "check.jsonl"
    assert (
        main(
            [
                "check",
                "references",
                str(items),
                "--index",
                str(world),
                "--out",
                str(out),
                "--no-llm",
                "-q",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    cfg_file = tmp_path / "run.yaml"
    cfg_file.write_text(
        f"task: references\ninput: {items}\nindex: {world}\nout: run\nmodel: none\nworkers: 1\n"
    )
    summary = run(load_config(cfg_file), quiet=True)
    assert (tmp_path / "run" / "results.jsonl").read_bytes() == out.read_bytes()

    check = _validate_manifest(tmp_path / "check.jsonl.manifest.json")
    ran = _validate_manifest(tmp_path / "run" / "manifest.json")
    assert check["command"] == "check" and ran["command"] == "run"
    # check keeps the keys it always had; a run has none of its check-only keys
    assert {"options", "input_sha256"} <= set(check) and not {"options", "input_sha256"} & set(ran)
    assert check["options"]["no_llm"] is True and check["options"]["out"] == str(out)  # type: ignore[index]
    assert check["input_sha256"] == check["input"]["files"][0]["sha256"]  # type: ignore[index]
    # one counting path: the same counts whichever command ran
    same = ("items", "errors", "decided_without_model", "verdicts")
    assert {k: check["counts"][k] for k in same} == {k: ran["counts"][k] for k in same}  # type: ignore[index]
    assert summary.to_dict()["verdicts"] == ran["counts"]["verdicts"]  # type: ignore[index]
    assert set(summary.verdicts) <= {"Yes", "No", "N/A", "error"}


def test_check_to_stdout_writes_no_manifest(
    tmp_path: Path,
    world: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    items = REPO / "demo" / "citations.jsonl"
    assert (
        main(
            [
                "check",
                "references",
                str(items),
                "--index",
                str(world),
                "--out",
                "-",
                "--no-llm",
                "-q",
            ]
        )
        == 0
    )
    lines = capsysbinary.readouterr().out.splitlines()
    assert len(lines) == len(items.read_bytes().splitlines())
    assert not list(tmp_path.glob("*.manifest.json"))


def test_every_task_implements_the_protocol_and_is_offered_everywhere() -> None:
    for name, spec in TASKS.items():
        assert isinstance(load_task(name), Task), spec.module
        assert load_schema(name)["type"] == "object"
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    check = next(a for a in sub.choices["check"]._actions if a.dest == "task")  # type: ignore[union-attr]
    assert list(check.choices) == [
        *TASKS,
        "document",
    ]  # check document: documents in, references out
    schema_cmd = next(a for a in sub.choices["schema"]._actions if a.dest == "task")  # type: ignore[union-attr]
    assert set(TASKS) <= set(schema_cmd.choices)


def test_unknown_task_and_key_are_one_config_error_with_a_suggestion() -> None:
    with pytest.raises(ConfigError) as exc:
        validate_config({"task": "rag_audit", "input": ["x"], "out": "o"}, "check")
    assert "did you mean 'rag-audit'" in exc.value.message
    with pytest.raises(ConfigError) as exc:
        validate_config({"task": "references", "input": ["x"], "out": "o", "worker": 2}, "check")
    assert exc.value.hint == "did you mean 'workers'?"
    with pytest.raises(ConfigError):
        load_task("nope")


def test_check_flags_are_validated_like_a_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "i.jsonl"
    items.write_text('{"id": 1}\n')
    code = main(
        ["check", "rag-audit", str(items), "--out", str(tmp_path / "o.jsonl"), "--workers", "0"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "workers" in err[0]


def test_check_reads_one_file_and_run_needs_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        run_check(
            RunConfig(task="rag-audit", input=["a.jsonl", "b.jsonl"], out=tmp_path / "o.jsonl")
        )
    with pytest.raises(ConfigError):
        run(RunConfig(task="rag-audit", input=["a.jsonl"], out="-"))


def test_appender_writes_whole_lines(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    sink = Appender(out)
    sink.write(dumps_line(OutputLine("a", "references", {"k": "v"}).to_dict()))
    assert out.read_bytes().count(b"\n") == 1
    sink.close()
    line = orjson.loads(out.read_bytes())
    assert list(line) == ["id", "task", "result", "details", "error"]


def test_stream_sink_flushes_each_line() -> None:
    buf = io.BytesIO()
    StreamSink(buf).write(b'{"id": "a"}\n')
    assert buf.getvalue() == b'{"id": "a"}\n'
