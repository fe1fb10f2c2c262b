"""The offline vLLM backend: one in-process engine, one ``generate`` call per batch.

Generation is constrained to the answer model's JSON Schema by vLLM's structured outputs with
the **guidance** backend and engine-level ``disable_any_whitespace`` (on this machine the only
combination that gave 100% valid JSON; see DESIGN.md "Known hazards"). Each prompt (the user
message) is wrapped in the model's chat template and tokenised here, so the exact token ids
the model sees are known and no second BOS is added.

On CPU (``gpu: false`` on the card) the vLLM-cpu environment variables are set, each only if
not already set, before vLLM is imported. The engine is built once per process for a given
set of engine arguments and reused by every backend object that asks for the same arguments.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from citejudge.errors import BackendUnavailableError, ConfigError
from citejudge.hashing import canonical_json, sha256_text
from citejudge.judge._deps import require
from citejudge.judge.cards import ModelCard
from citejudge.judge.core import Sampling
from citejudge.judge.schemas import schema_of

__all__ = [
    "CPU_ENV",
    "OFFLINE_ENV",
    "VLLMBackend",
    "get_engine",
    "model_path",
    "set_cpu_env",
    "set_offline_env",
]

log = logging.getLogger(__name__)

#: Settings vLLM-cpu needs on this kind of machine (in-process engine, no thread binding).
#: TORCHDYNAMO_DISABLE: with ``enforce_eager`` the model is not compiled anyway, but vLLM's
#: prompt-logprob helper is ``torch.compile``d and its first call compiled for 2.5-20 s.
CPU_ENV: dict[str, str] = {
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
    "OMP_NUM_THREADS": "1",
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "TORCHDYNAMO_DISABLE": "1",
}

#: Model hubs are never contacted: weights load from local folders only. vLLM logs to stdout by
#: default, which would mix with results a command writes there: send its log to stderr.
OFFLINE_ENV: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_LOGGING_STREAM": "ext://sys.stderr",
}

_OPTIONS = frozenset(
    {
        "dtype",
        "max_model_len",
        "enforce_eager",
        "seed",
        "structured_outputs_backend",
        "enable_prefix_caching",
        "build",
        "engine_args",
        "gpu_memory_utilization",
        "tensor_parallel_size",
    }
)


def set_offline_env() -> None:
    """Set the offline-hub and vLLM log-stream variables (only those not already set)."""
    for k, v in OFFLINE_ENV.items():
        os.environ.setdefault(k, v)


def set_cpu_env() -> None:
    """Set the vLLM-cpu variables (only those not already set); call before importing vllm."""
    for k, v in CPU_ENV.items():
        os.environ.setdefault(k, v)


def model_path(card: ModelCard, models_dir: Path | None = None) -> Path:
    """The card's model folder: ``~`` expanded, a relative path taken from the card folder."""
    if not card.model:
        raise ConfigError(
            f"card {card.name!r} names no model folder", hint="set `model:` to a local folder"
        )
    p = Path(os.path.expanduser(card.model))
    if not p.is_absolute():
        from citejudge.judge.cards import MODELS_DIR

        p = (models_dir or Path(os.environ.get("CITEJUDGE_MODELS", MODELS_DIR))) / p
    return p


@functools.cache
def get_engine(model: str, engine_args_json: str) -> Any:
    """The ``vllm.LLM`` for these arguments, built on first use and reused in this process.

    ``engine_args_json`` is the canonical JSON of the ``vllm.LLM`` keyword arguments (a string,
    so the process-wide cache can key on it).
    """
    require("vllm")
    from vllm import LLM

    kwargs: dict[str, Any] = json.loads(engine_args_json)
    log.info("starting vLLM engine for %s (%s)", model, kwargs)
    return LLM(model=model, **kwargs)


@dataclass
class VLLMBackend:
    """A vLLM engine answering prompts with schema-constrained JSON (one ``generate`` per batch).

    The engine starts on first use, not when the backend is made: a Ray driver that only
    records the judge in the manifest (the judging runs in GPU actors) never loads the model.
    """

    model_dir: str
    engine_args_json: str
    tokenizer: Any
    chat_template: str | None
    max_model_len: int
    name: str = "vllm"
    revision: str = ""
    #: Per prompt of the last ``generate_batch``: generated token count and vLLM's finish
    #: reason ("stop", "length"; None for a prompt that was not sent). For benchmarks and logs.
    last_output_tokens: list[int] = field(default_factory=list, repr=False)
    last_finish_reasons: list[str | None] = field(default_factory=list, repr=False)
    #: (prompt tokens, generated tokens) of the last ``generate_batch`` (the Judge sums them).
    last_usage: tuple[int, int] = (0, 0)
    _schemas: dict[type[BaseModel], dict[str, Any]] = field(default_factory=dict, repr=False)
    _llm: Any = field(default=None, repr=False)
    _start_error: BackendUnavailableError | None = field(default=None, repr=False)

    @property
    def llm(self) -> Any:
        """The ``vllm.LLM`` engine (started, or reused from the process-wide cache, on first use).

        A failed start is remembered and raised again as :class:`BackendUnavailableError`, which
        stops the run (the engine is not retried for every batch).
        """
        if self._start_error is not None:
            raise self._start_error
        if self._llm is None:
            try:
                self._llm = get_engine(self.model_dir, self.engine_args_json)
            except Exception as exc:
                self._start_error = BackendUnavailableError(
                    f"the vLLM engine for {self.model_dir} could not start: {type(exc).__name__}: {exc}",
                    hint="check the card's engine options and the GPU/CPU memory",
                )
                raise self._start_error from exc
        return self._llm

    @classmethod
    def from_card(
        cls, card: ModelCard, models_dir: Path | None = None, **options: Any
    ) -> VLLMBackend:
        """Start (or reuse) the engine for a card.

        Options: ``dtype`` ("auto"), ``max_model_len`` (the card's context length),
        ``enforce_eager`` (True on CPU), ``seed`` (the card's sampling seed),
        ``structured_outputs_backend`` ("guidance"), ``enable_prefix_caching`` (True),
        ``gpu_memory_utilization``, ``tensor_parallel_size``, ``engine_args`` (more
        ``vllm.LLM`` keyword arguments), ``build: tiny`` (build the random test model into the
        card's folder when it is missing, see :mod:`citejudge.judge.tiny`). The card's
        ``options`` are the defaults of these keyword arguments.
        """
        options = {**card.options, **options}
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], sorted(_OPTIONS), n=1)
            raise ConfigError(
                f"unknown vllm option(s) {unknown} on card {card.name!r}",
                hint=f"did you mean {close[0]!r}?"
                if close
                else f"known: {', '.join(sorted(_OPTIONS))}",
            )
        require(
            "vllm"
        )  # fail at start-up, not on the first batch (the engine itself starts lazily)
        set_offline_env()
        if not card.gpu:
            set_cpu_env()
        path = model_path(card, models_dir)
        if options.get("build") == "tiny":
            from citejudge.judge.tiny import build_tiny_llama

            build_tiny_llama(path)
        elif options.get("build") is not None:
            raise ConfigError(
                f"unknown build {options['build']!r} on card {card.name!r}", hint="use build: tiny"
            )
        if not (path / "config.json").is_file():
            raise ConfigError(
                f"model folder {path} of card {card.name!r} has no config.json",
                hint="build or download the model into that folder first",
            )
        max_len = int(options.get("max_model_len", card.context_length))
        args: dict[str, Any] = {
            "dtype": options.get("dtype", "auto"),
            "max_model_len": max_len,
            "enforce_eager": bool(options.get("enforce_eager", not card.gpu)),
            "seed": int(options.get("seed", card.sampling.seed)),
            "enable_prefix_caching": bool(options.get("enable_prefix_caching", True)),
            "structured_outputs_config": {
                "backend": options.get("structured_outputs_backend", "guidance"),
                "disable_any_whitespace": True,
            },
        }
        for k in ("gpu_memory_utilization", "tensor_parallel_size"):
            if k in options:
                args[k] = options[k]
        args.update(options.get("engine_args") or {})
        tokenizer = _local_tokenizer(path)
        template = _chat_template(card, tokenizer, models_dir)
        tpl_hash = sha256_text(template)[:16] if template is not None else "none"
        return cls(
            model_dir=str(path),
            engine_args_json=canonical_json(args).decode(),
            tokenizer=tokenizer,
            chat_template=template,
            max_model_len=max_len,
            name=f"vllm:{card.name}",
            revision=f"{card.revision}+chat:{tpl_hash}",
        )

    def encode(self, prompt: str) -> list[int]:
        """Token ids of one user message wrapped in the chat template (no extra special tokens)."""
        text = self._context_text(prompt)
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def _schema(self, schema: type[BaseModel]) -> dict[str, Any]:
        if schema not in self._schemas:
            self._schemas[schema] = schema_of(schema)
        return self._schemas[schema]

    def generate_batch(
        self, prompts: Sequence[str], schema: type[BaseModel], sampling: Sampling
    ) -> list[str]:
        """One constrained answer per prompt, from a single ``LLM.generate`` call.

        A prompt too long for the context gets, instead of JSON, a one-line explanation (which
        the :class:`~citejudge.judge.core.Judge` reports as that request's error) so the rest of
        the batch is still answered.
        """
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        params = SamplingParams(
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            seed=sampling.seed,
            structured_outputs=StructuredOutputsParams(json=self._schema(schema)),
        )
        out = [""] * len(prompts)
        todo: list[int] = []
        batch: list[dict[str, Any]] = []
        for i, p in enumerate(prompts):
            ids = self.encode(p)
            if len(ids) + sampling.max_tokens > self.max_model_len:
                out[i] = (
                    f"prompt too long: {len(ids)} tokens + max_tokens {sampling.max_tokens} "
                    f"> max_model_len {self.max_model_len}"
                )
                continue
            todo.append(i)
            batch.append({"prompt_token_ids": ids})
        self.last_output_tokens = [0] * len(prompts)
        self.last_finish_reasons = [None] * len(prompts)
        if batch:
            results = self.llm.generate(batch, params, use_tqdm=False)
            for i, r in zip(todo, results, strict=True):
                c = r.outputs[0]
                out[i] = c.text
                self.last_output_tokens[i] = len(c.token_ids)
                self.last_finish_reasons[i] = c.finish_reason
        self.last_usage = (
            sum(len(b["prompt_token_ids"]) for b in batch),
            sum(self.last_output_tokens),
        )
        return out

    def score_choices(
        self, prompts: Sequence[str], prefix: str, choices: Sequence[str]
    ) -> list[dict[str, float]]:
        """Log-probability of each choice continuing ``prefix`` after each prompt's assistant turn.

        For prefix ``'{"label":"'`` and choices ``["SUPPORTED", "NOT_SUPPORTED"]`` this scores
        the two verdicts without generating. One batched ``generate`` call with
        ``prompt_logprobs`` over every prompt × choice; a choice's score is the sum of the
        log-probabilities of the tokens after the longest token prefix it shares with
        prompt+prefix (a BPE merge across the boundary puts that merged token in the sum).
        """
        from vllm import SamplingParams

        if not choices:
            raise ValueError("score_choices needs at least one choice")
        params = SamplingParams(temperature=0.0, max_tokens=1, prompt_logprobs=0, seed=0)
        batch: list[dict[str, Any]] = []
        starts: list[int] = []
        for p in prompts:
            base = self._context_text(p) + prefix
            ctx_ids = list(self.tokenizer.encode(base, add_special_tokens=False))
            for c in choices:
                full = list(self.tokenizer.encode(base + c, add_special_tokens=False))
                n = 0
                limit = min(len(full), len(ctx_ids))
                while n < limit and full[n] == ctx_ids[n]:
                    n += 1
                if n >= len(full):
                    raise ValueError(f"choice {c!r} adds no token after the prefix")
                if len(full) + 1 > self.max_model_len:
                    raise ValueError(
                        f"prompt of {len(full)} tokens exceeds max_model_len {self.max_model_len}"
                    )
                batch.append({"prompt_token_ids": full})
                starts.append(max(n, 1))
        results = self.llm.generate(batch, params, use_tqdm=False)
        out: list[dict[str, float]] = []
        k = 0
        for _ in prompts:
            row: dict[str, float] = {}
            for c in choices:
                r, start = results[k], starts[k]
                ids = r.prompt_token_ids
                total = 0.0
                for pos in range(start, len(ids)):
                    total += float(r.prompt_logprobs[pos][ids[pos]].logprob)
                row[c] = total
                k += 1
            out.append(row)
        return out

    def _context_text(self, prompt: str) -> str:
        if self.chat_template is None:
            return prompt
        return str(
            self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}],
                chat_template=self.chat_template,
                add_generation_prompt=True,
                tokenize=False,
            )
        )


def _local_tokenizer(path: Path) -> Any:
    """The model folder's tokenizer, from local files only (the same one vLLM loads)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path), local_files_only=True)


def _chat_template(card: ModelCard, tokenizer: Any, models_dir: Path | None) -> str | None:
    """The template text a card asks for: the tokenizer's own, a file, or none (raw prompts)."""
    name = card.chat_template
    if name == "none":
        return None
    if name == "tokenizer":
        tpl = getattr(tokenizer, "chat_template", None)
        if not isinstance(tpl, str) or not tpl:
            raise ConfigError(
                f"the tokenizer of card {card.name!r} has no chat template",
                hint="set chat_template: to a .jinja file, or 'none' for a base model",
            )
        return tpl
    p = Path(os.path.expanduser(name))
    if not p.is_absolute():
        from citejudge.judge.cards import MODELS_DIR

        p = (models_dir or Path(os.environ.get("CITEJUDGE_MODELS", MODELS_DIR))) / p
    if not p.is_file():
        raise ConfigError(
            f"chat template {name!r} of card {card.name!r} not found at {p}",
            hint="use 'tokenizer', 'none' or a path to a .jinja file",
        )
    return p.read_text(encoding="utf-8")
