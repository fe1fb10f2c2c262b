"""The boundary to the model: backends behind one protocol, cached judging, support deciders.

Exports the judge (``Judge``, ``JudgeBackend``, ``Sampling``), model cards and the backend
registry, the support-decision protocol and its deciders, answer schemas and prompt rendering.
Importing it imports no backend: heavy dependencies load inside a backend's factory.
"""

from citejudge.judge.cards import ModelCard, load_card
from citejudge.judge.core import Judge, JudgeBackend, Sampling
from citejudge.judge.decide import SupportDecider, SupportDecision, SupportQuestion
from citejudge.judge.deciders import SupportForm, card_support_decider, support_decider
from citejudge.judge.prompts import render
from citejudge.judge.registry import make_backend
from citejudge.judge.schemas import JudgeAnswer, schema_of

__all__ = [
    "Judge",
    "JudgeAnswer",
    "JudgeBackend",
    "ModelCard",
    "Sampling",
    "SupportDecider",
    "SupportDecision",
    "SupportForm",
    "SupportQuestion",
    "card_support_decider",
    "load_card",
    "make_backend",
    "render",
    "schema_of",
    "support_decider",
]
