"""The support deciders, and the one place that picks which of them answers a task's support questions.

* :class:`LlmSupportDecider` — the LLM's schema-constrained answer, asked through the
  :class:`~citejudge.judge.core.Judge` (cached, validated); each task gives its prompt per question
  and its answer schema as a :class:`SupportForm`.
* :class:`ScorerSupportDecider` — a calibrated two-way scorer
  (:class:`citejudge.judge.support.SupportScorer`): SUPPORTED at or above its threshold,
  NOT_SUPPORTED below; it cannot tell contradiction from silence.
* a CPU verifier (an NLI or fact-checking model with a calibrated threshold) fits the same
  protocol with ``kind="verifier"``; none is measured good enough yet (docs/SUPPORT.md).

:func:`card_support_decider` builds the card's CPU decider once per run (None: the LLM decides);
:func:`support_decider` is what every task calls. For a long evidence text a task selects the
passages first with :func:`select_for` (the scorer ranks them with its embedder too, the LLM's
passages are ranked by claim coverage alone, so its prompts do not depend on an installed
embedder), puts them in the prompt and the :class:`SupportQuestion`, and reads each decision
through :func:`apply_coverage_rule`: a number or date of the claim that no passage of a long text
holds makes the claim at most partially supported, NOT_SUPPORTED.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from citejudge.judge.cards import ModelCard
from citejudge.judge.core import Judge, JudgeBackend
from citejudge.judge.decide import (
    DeciderKind,
    SupportDecider,
    SupportDecision,
    SupportLabel,
    SupportQuestion,
)
from citejudge.judge.passages import PassageSelection, select_passages
from citejudge.text import detect_language

__all__ = [
    "CalibratedScorer",
    "LlmSupportDecider",
    "PassageScorer",
    "ScorerSupportDecider",
    "SupportForm",
    "apply_coverage_rule",
    "card_support_decider",
    "select_for",
    "support_decider",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SupportForm:
    """How one task asks the LLM a support question: the answer schema and how to read it."""

    #: The answer model (its ``label`` field is a ``Literal`` of the task's labels).
    schema: type[BaseModel]
    #: The schema's labels → the shared :data:`~citejudge.judge.decide.SupportLabel` (one to one).
    labels: Mapping[str, SupportLabel]
    #: The answer field that explains the label (e.g. ``missing`` or ``reason``).
    rationale: str = "reason"
    #: The answer field that holds the label.
    label_field: str = "label"

    def __post_init__(self) -> None:
        if len(set(self.labels.values())) != len(self.labels):
            raise ValueError(f"{self.schema.__name__}: two labels map to the same support label")

    def task_label(self, label: SupportLabel | None) -> str | None:
        """The task's own label for a shared one (None stays None)."""
        if label is None:
            return None
        for mine, shared in self.labels.items():
            if shared == label:
                return mine
        raise ValueError(f"{self.schema.__name__} has no label for {label}")


@dataclass
class LlmSupportDecider:
    """Support decisions from the LLM's constrained answer (one ``judge.ask`` for the whole batch)."""

    judge: Judge
    form: SupportForm
    kind: DeciderKind = field(default="llm", init=False)

    @property
    def name(self) -> str:
        """The backend's name."""
        return self.judge.backend.name

    def decide(self, questions: Sequence[SupportQuestion]) -> list[SupportDecision]:
        """Ask the judge every question's ``prompt`` with the form's schema."""
        if not questions:
            return []
        out: list[SupportDecision] = []
        for o in self.judge.ask([q.prompt for q in questions], self.form.schema):
            if o.answer is None:
                out.append(
                    SupportDecision(
                        None,
                        self.name,
                        "llm",
                        request_hash=o.request_hash,
                        error=o.error or "no valid answer",
                    )
                )
            else:
                label = self.form.labels[str(getattr(o.answer, self.form.label_field))]
                out.append(
                    SupportDecision(
                        label,
                        self.name,
                        "llm",
                        rationale=str(getattr(o.answer, self.form.rationale)),
                        request_hash=o.request_hash,
                    )
                )
        return out

    def describe(self) -> dict[str, Any]:
        """The judge's description (backend, revision, sampling)."""
        return {"kind": self.kind, **self.judge.describe()}


@runtime_checkable
class CalibratedScorer(Protocol):
    """A two-way scorer: probability of support per ``(claim, evidence)`` pair, and its threshold."""

    @property
    def name(self) -> str:
        """The calibration's name."""
        ...

    @property
    def threshold(self) -> float:
        """Probability at or above which a claim counts as supported."""
        ...

    def score(self, pairs: list[tuple[str, str]], /) -> Sequence[float]:
        """One probability per pair, in order."""
        ...


@runtime_checkable
class PassageScorer(CalibratedScorer, Protocol):
    """A calibrated scorer that selects the passages of long texts and judges them by a fit of their own.

    :class:`citejudge.judge.support.SupportScorer` is one.
    """

    def select(self, claim: str, evidence: str, /) -> PassageSelection:
        """The passages of ``evidence`` to judge ``claim`` against."""
        ...

    def assess(
        self,
        pairs: Sequence[tuple[str, str]],
        selections: Sequence[PassageSelection | None] | None = None,
        /,
    ) -> Sequence[Any]:
        """Per pair: ``probability``, ``threshold``, ``kind`` ("short"/"long") and ``selection``."""
        ...


@dataclass
class ScorerSupportDecider:
    """Support decisions from a calibrated scorer, in one ``score`` call per batch.

    A failing scorer, or output that is not one finite probability per question, gives every
    question an error (per-item errors, never a guessed label).
    """

    scorer: CalibratedScorer
    #: What the manifest records about the scorer (calibration file and its sha256, ...).
    provenance: dict[str, Any] = field(default_factory=dict)
    kind: DeciderKind = field(default="scorer", init=False)

    @property
    def name(self) -> str:
        """The scorer's (calibration's) name."""
        return str(self.scorer.name)

    def select(self, claim: str, evidence: str) -> PassageSelection:
        """The passages to judge ``claim`` by: the scorer's own selection when it makes one."""
        if isinstance(self.scorer, PassageScorer):
            return self.scorer.select(claim, evidence)
        return select_passages(claim, evidence)

    def _assess(
        self, questions: Sequence[SupportQuestion]
    ) -> list[tuple[float, float, str | None, PassageSelection | None]]:
        pairs = [(q.claim, q.evidence) for q in questions]
        got: list[tuple[float, float, str | None, PassageSelection | None]]
        if isinstance(self.scorer, PassageScorer):
            got = [
                (float(a.probability), float(a.threshold), str(a.kind), a.selection)
                for a in self.scorer.assess(pairs, [q.selection for q in questions])
            ]
        else:
            thr = float(self.scorer.threshold)
            got = [(float(p), thr, None, None) for p in self.scorer.score(pairs)]
        if len(got) != len(questions) or not all(math.isfinite(p) for p, *_ in got):
            raise ValueError(
                f"scorer returned {len(got)} scores for {len(questions)} pairs, or a non-finite one"
            )
        return got

    def decide(self, questions: Sequence[SupportQuestion]) -> list[SupportDecision]:
        """Score every ``(claim, evidence)`` and compare with the threshold of the fit that judged it."""
        if not questions:
            return []
        name = self.name
        try:
            got = self._assess(questions)
        except Exception as exc:  # an unusable scorer leaves every question undecided
            log.warning("support scorer %s failed: %s", name, exc)
            error = f"{type(exc).__name__}: {exc}"
            thr = float(self.scorer.threshold)
            return [
                SupportDecision(None, name, self.kind, threshold=thr, error=error)
                for _ in questions
            ]
        out: list[SupportDecision] = []
        for p, thr, kind, sel in got:
            what = f"calibrated scorer {name}" + (
                " (passages of a long text)" if kind == "long" else ""
            )
            out.append(
                SupportDecision(
                    "SUPPORTED" if p >= thr else "NOT_SUPPORTED",
                    name,
                    self.kind,
                    score=p,
                    threshold=thr,
                    rationale=f"{what}: support probability {p:.3f} "
                    f"({'at or above' if p >= thr else 'below'} threshold {thr:.3f})",
                    evidence_kind=kind,
                    selection=sel,
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        """The provenance given at construction, or the name and threshold."""
        return dict(self.provenance) or {
            "calibration": self.name,
            "threshold": float(self.scorer.threshold),
        }


def card_support_decider(card: ModelCard, backend: JudgeBackend) -> SupportDecider | None:
    """The CPU decider a model card names, or None when the card's LLM decides support itself.

    ``support_calibration`` → the calibrated scorer (with the backend's label log-probabilities as
    a feature when the calibration uses them and the backend can give them). A card field naming a
    CPU verifier would be read here too.
    """
    if not card.support_calibration:
        return None
    from citejudge.errors import ConfigError
    from citejudge.hashing import file_sha256
    from citejudge.judge.support import ChoiceScorer, SupportScorer, calibration_path

    name = card.support_calibration
    path = calibration_path(name)
    if not path.is_file():
        raise ConfigError(
            f"support calibration {name!r} not found at {path}",
            hint="set CITEJUDGE_CALIBRATION to the configs/calibration folder",
        )
    scorer = SupportScorer.load(path, backend if isinstance(backend, ChoiceScorer) else None)
    return ScorerSupportDecider(
        scorer,
        provenance={
            "calibration": scorer.name,
            "threshold": scorer.threshold,
            # the calibration actually in use (a fallback when the card's needs a missing package)
            "requested": name,
            "sha256": file_sha256(scorer.calibration_file),
            "uses_llm": scorer.uses_llm,
        },
    )


def support_decider(judge: Judge, form: SupportForm) -> SupportDecider:
    """Who answers a task's support questions: the card's CPU decider if it names one, else the LLM."""
    return judge.support if judge.support is not None else LlmSupportDecider(judge, form)


def select_for(decider: SupportDecider, claim: str, evidence: str) -> PassageSelection:
    """The passages of ``evidence`` that ``decider`` should judge ``claim`` against.

    A decider with a ``select`` method (the calibrated scorer) selects them itself, with its
    embedder; any other (the LLM) gets passages ranked by claim coverage alone
    (:func:`citejudge.judge.passages.select_passages`).
    """
    own = getattr(decider, "select", None)
    if callable(own):
        sel = own(claim, evidence)
        if isinstance(sel, PassageSelection):
            return sel
    return select_passages(claim, evidence)


def apply_coverage_rule(
    decision: SupportDecision, selection: PassageSelection, claim: str = "", evidence: str = ""
) -> SupportDecision:
    """The decision with the claim-coverage rule applied.

    A number or date of the claim that no passage selected from a long text holds makes the
    claim at most partially supported: a SUPPORTED decision becomes NOT_SUPPORTED, and every
    decision records what was not found (``missing``). Decisions without a label stay as they
    are, and so do the labels of short evidence (a sentence, an abstract, judged whole as before)
    and of Czech pairs (the language read from ``claim`` with its ``evidence``, as the scorer
    reads it to pick its fit: a short claim alone, "Dvořák premiered Rusalka in 1901.", can read
    as Czech): there a missing number is about as frequent among supported claims
    as among the others (measured by ``scripts/bench_support.py``: HealthVer 5.8% / 6.8%, SciFact
    4.3% / 3.6%, COVID-Fact 5.6% / 6.8%, CTKFacts 6.8% / 7.6%), on WiCE's pages it is not (2.8% /
    35.2%).
    """
    if decision.label is None or not selection.missing:
        return decision
    missing = tuple(selection.missing)
    if (
        decision.label != "SUPPORTED"
        or selection.kind != "long"
        or (claim and detect_language(f"{claim}\n{evidence}") == "cs")
    ):
        return replace(decision, missing=missing)
    listed = ", ".join(f'"{m}"' for m in missing)
    why = f"not in the passages: {listed} (at most partially supported)"
    return replace(
        decision,
        label="NOT_SUPPORTED",
        rationale=f"{decision.rationale}; {why}" if decision.rationale else why,
        missing=missing,
    )
