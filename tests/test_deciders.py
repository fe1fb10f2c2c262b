"""The support deciders: the LLM's constrained answer, the calibrated scorer, and the card's choice."""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from citejudge.errors import ConfigError
from citejudge.judge.backends.scripted import ScriptedBackend, ScriptRule
from citejudge.judge.cards import load_card
from citejudge.judge.core import Judge
from citejudge.judge.decide import SupportDecider, SupportQuestion
from citejudge.judge.deciders import (
    LlmSupportDecider,
    ScorerSupportDecider,
    SupportForm,
    card_support_decider,
    support_decider,
)
from citejudge.judge.passages import PassageSelection, select_passages
from citejudge.tasks.ceval_schemas import SupportAnswer
from citejudge.tasks.citation_eval import SUPPORT_FORM

QUESTIONS = [
    SupportQuestion("A holds.", "A holds in all cases.", "<claim>A holds.</claim>"),
    SupportQuestion("B holds.", "Nothing about B.", "<claim>B holds.</claim>"),
    SupportQuestion("C holds.", "C never holds.", "<claim>C holds.</claim>"),
]


class _Scorer:
    name, threshold = "fake", 0.5

    def __init__(self, probs: list[float]) -> None:
        self.probs = probs
        self.calls: list[list[tuple[str, str]]] = []

    def score(self, pairs: list[tuple[str, str]]) -> list[float]:
        self.calls.append(pairs)
        return self.probs


def test_llm_decider_maps_the_task_labels_and_keeps_the_model_words() -> None:
    def rule(claim: str, label: str, reason: str) -> ScriptRule:
        return ScriptRule(
            (f"<claim>{claim}",), json.dumps({"label": label, "reason": reason}), "SupportAnswer"
        )

    backend = ScriptedBackend(
        [
            rule("A holds", "ENTAILMENT", " stated. "),
            rule("B holds", "NEUTRAL", ""),
            rule("C holds", "CONTRADICTION", "says never"),
        ]
    )
    decider = LlmSupportDecider(Judge(backend), SUPPORT_FORM)
    got = decider.decide(QUESTIONS)
    assert [d.label for d in got] == ["SUPPORTED", "NOT_SUPPORTED", "CONTRADICTED"]
    assert [SUPPORT_FORM.task_label(d.label) for d in got] == [
        "ENTAILMENT",
        "NEUTRAL",
        "CONTRADICTION",
    ]
    assert got[0].rationale == " stated. " and got[0].kind == "llm" and got[0].score is None
    assert all(d.request_hash for d in got) and len(backend.calls) == 1  # one batch
    assert decider.decide([]) == []


def test_llm_decider_turns_an_invalid_answer_into_an_error() -> None:
    backend = ScriptedBackend([ScriptRule(("<claim>",), '{"label": "MAYBE"}', "SupportAnswer")])
    (d, *_) = LlmSupportDecider(Judge(backend), SUPPORT_FORM).decide(QUESTIONS)
    assert d.label is None and not d.ok and d.error and d.rationale is None


def test_scorer_decider_thresholds_and_explains() -> None:
    scorer = _Scorer([0.5, 0.2, 0.9])
    got = ScorerSupportDecider(scorer).decide(QUESTIONS)
    assert [d.label for d in got] == [
        "SUPPORTED",
        "NOT_SUPPORTED",
        "SUPPORTED",
    ]  # never CONTRADICTED
    assert (
        got[1].rationale
        == "calibrated scorer fake: support probability 0.200 (below threshold 0.500)"
    )
    assert (
        got[0].score == 0.5
        and got[0].threshold == 0.5
        and got[0].kind == "scorer"
        and got[0].decider == "fake"
    )
    assert scorer.calls == [
        [(q.claim, q.evidence) for q in QUESTIONS]
    ]  # the prompt is not the scorer's


@pytest.mark.parametrize("probs", [[0.5], [0.1, float("nan"), 0.2], [0.1, 0.2, float("inf")]])
def test_scorer_decider_wrong_or_non_finite_output_is_an_error_for_every_question(
    probs: list[float],
) -> None:
    got = ScorerSupportDecider(_Scorer(probs)).decide(QUESTIONS)
    assert [d.label for d in got] == [None, None, None]
    assert all("non-finite" in (d.error or "") for d in got)


def test_support_form_is_one_to_one() -> None:
    with pytest.raises(ValueError, match="same support label"):
        SupportForm(SupportAnswer, {"ENTAILMENT": "SUPPORTED", "NEUTRAL": "SUPPORTED"})
    assert SUPPORT_FORM.task_label(None) is None


def test_the_card_decides_who_answers() -> None:
    backend = ScriptedBackend([])
    assert card_support_decider(load_card("scripted-demo"), backend) is None
    llm = support_decider(Judge(backend), SUPPORT_FORM)
    assert isinstance(llm, LlmSupportDecider) and isinstance(llm, SupportDecider)
    scorer = card_support_decider(load_card("cpu-default"), backend)
    assert isinstance(scorer, ScorerSupportDecider) and scorer.kind == "scorer"
    desc = scorer.describe()
    assert (
        desc["calibration"] == desc["requested"] == "cpu-embed-only" and len(desc["sha256"]) == 64
    )
    assert desc["uses_llm"] is False
    assert support_decider(Judge(backend, support=scorer), SUPPORT_FORM) is scorer


def test_a_missing_calibration_is_a_config_error() -> None:
    card = load_card("cpu-default").model_copy(
        update={"support_calibration": "no-such-calibration"}
    )
    with pytest.raises(ConfigError, match="no-such-calibration"):
        card_support_decider(card, ScriptedBackend([]))


class _PassageScorer(_Scorer):
    """A scorer with a long-text fit: passages and a threshold of its own for long evidence."""

    def __init__(self, probs: list[float]) -> None:
        super().__init__(probs)
        self.selected: list[tuple[str, str]] = []
        self.given: list[object] = []

    def select(self, claim: str, evidence: str) -> PassageSelection:
        self.selected.append((claim, evidence))
        return select_passages(claim, evidence)

    def assess(self, pairs: Sequence[tuple[str, str]], selections: Any = None) -> list[Any]:
        self.given = list(selections or [])
        out = []
        for (claim, ev), p, sel in zip(pairs, self.probs, self.given, strict=True):
            long = len(ev) > 40
            out.append(
                SimpleNamespace(
                    probability=p,
                    threshold=0.7 if long else 0.5,
                    kind="long" if long else "short",
                    selection=sel or (select_passages(claim, ev) if long else None),
                )
            )
        return out


def test_scorer_decider_applies_each_fit_threshold_and_names_the_fit() -> None:
    scorer = _PassageScorer([0.6, 0.6])
    decider = ScorerSupportDecider(scorer)
    long_ev = "Keane leads the trust. " * 5
    sel = decider.select("Keane leads the trust.", long_ev)
    assert scorer.selected == [("Keane leads the trust.", long_ev)] and sel.passages
    got = decider.decide(
        [
            SupportQuestion("A holds.", "A holds."),
            SupportQuestion("Keane leads the trust.", long_ev, "", sel),
        ]
    )
    assert [d.label for d in got] == ["SUPPORTED", "NOT_SUPPORTED"]  # 0.6 vs 0.5, vs 0.7
    assert [d.threshold for d in got] == [0.5, 0.7]
    assert [d.evidence_kind for d in got] == ["short", "long"]
    assert got[1].selection is sel and scorer.given == [None, sel]
    assert "passages of a long text" in (got[1].rationale or "")
    # a plain scorer keeps its one threshold and makes no selection of its own
    plain = ScorerSupportDecider(_Scorer([0.6]))
    assert plain.select("A holds.", "A holds.").passages[0].text == "A holds."
    (d,) = plain.decide([SupportQuestion("A holds.", "A holds.")])
    assert d.threshold == 0.5 and d.evidence_kind is None and d.selection is None
