"""The support question every task asks — does this evidence support this claim? — as one protocol.

Content grounding, rag-audit ACCURATE and citation-eval (support and the source check) each ask
it. A :class:`SupportDecider` answers a batch of :class:`SupportQuestion` with one
:class:`SupportDecision` each, in the shared three-way vocabulary of :data:`SupportLabel`; each
task maps that back to its own labels. Which decider answers is chosen from the model card in one
place (:func:`citejudge.judge.deciders.support_decider`): the LLM's schema-constrained answer on
GPU cards, the calibrated scorer on the CPU card (see docs/SUPPORT.md), a CPU verifier when one
is measured good enough.

This module holds the types only (no implementation; from the rest of ``judge`` it imports only the
passage types of :mod:`citejudge.judge.passages`, which import nothing of ``judge``), so that
:class:`citejudge.judge.core.Judge` can carry the card's decider without an import cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:  # (annotations only: numpy loads with the passage code that makes one)
    from citejudge.judge.passages import PassageSelection

__all__ = ["DeciderKind", "SupportDecider", "SupportDecision", "SupportLabel", "SupportQuestion"]

#: Supported; not supported (not stated, different, or undecidable for a two-way decider); contradicted.
SupportLabel = Literal["SUPPORTED", "NOT_SUPPORTED", "CONTRADICTED"]
#: What produced a decision: the LLM's constrained answer, a calibrated scorer, or a CPU verifier.
DeciderKind = Literal["llm", "scorer", "verifier"]


@dataclass(frozen=True)
class SupportQuestion:
    """One claim and the evidence it is judged against.

    ``prompt`` is the task's rendered prompt, read only by the LLM decider (each task words its
    question and answer schema its own way); CPU deciders read ``claim`` and ``evidence``, and
    ``selection`` when the task already selected the passages of a long evidence text
    (:func:`citejudge.judge.deciders.select_for`), so that they judge the passages the prompt shows.
    """

    claim: str
    evidence: str
    prompt: str = ""
    selection: PassageSelection | None = None


@dataclass(frozen=True)
class SupportDecision:
    """The answer to one :class:`SupportQuestion`, or why there is none (``label`` None, ``error`` set)."""

    label: SupportLabel | None
    #: The name of the decider (calibration name, or the LLM backend's name).
    decider: str
    kind: DeciderKind
    #: Probability of support (scorers and verifiers); None for the LLM.
    score: float | None = None
    #: The score at or above which the decider says SUPPORTED; None for the LLM.
    threshold: float | None = None
    #: Why: the LLM's own words (as it wrote them), or the scorer's score against its threshold.
    #: None when the LLM gave no valid answer.
    rationale: str | None = None
    #: Content hash of the LLM request (the cache key); None for CPU deciders.
    request_hash: str | None = None
    error: str | None = None
    #: Which of a scorer's fits judged: "short" (the whole evidence) or "long" (selected passages).
    evidence_kind: str | None = None
    #: The passages a scorer judged a long text by (None for short evidence and for the LLM).
    selection: PassageSelection | None = None
    #: Numbers, dates and names of the claim no judged passage holds (set by the coverage rule,
    #: :func:`citejudge.judge.deciders.apply_coverage_rule`).
    missing: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when there is a label."""
        return self.label is not None


@runtime_checkable
class SupportDecider(Protocol):
    """Answers support questions in one batch."""

    @property
    def name(self) -> str:
        """The decider's name (calibration name, or the LLM backend's name)."""
        ...

    @property
    def kind(self) -> DeciderKind:
        """What kind of decider this is."""
        ...

    def decide(self, questions: Sequence[SupportQuestion]) -> list[SupportDecision]:
        """One decision per question, in order; a failure is a decision with an error, never a guessed label."""
        ...

    def describe(self) -> dict[str, Any]:
        """What identifies this decider in the run manifest."""
        ...
