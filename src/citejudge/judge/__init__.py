"""The boundary to the model: backends behind one protocol, cached judging, support deciders.

Exports the judge (``Judge``, ``JudgeBackend``, ``Sampling``), model cards and the backend
registry, the support-decision protocol and its deciders, answer schemas and prompt rendering.
Importing it imports no backend: heavy dependencies load inside a backend's factory.
"""

from typing import TYPE_CHECKING

from citejudge.lazy import lazy_exports

if TYPE_CHECKING:
    from citejudge.judge.cards import ModelCard, load_card
    from citejudge.judge.core import Judge, JudgeBackend, Sampling
    from citejudge.judge.decide import SupportDecider, SupportDecision, SupportQuestion
    from citejudge.judge.deciders import SupportForm, card_support_decider, support_decider
    from citejudge.judge.prompts import render
    from citejudge.judge.registry import make_backend
    from citejudge.judge.schemas import JudgeAnswer, schema_of

#: exported name -> its module, imported on first access: a run without a model (``--no-llm``)
#: imports only the modules it uses (the passage selection and its numpy stay out)
_LAZY = {
    "ModelCard": ".cards",
    "load_card": ".cards",
    "Judge": ".core",
    "JudgeBackend": ".core",
    "Sampling": ".core",
    "SupportDecider": ".decide",
    "SupportDecision": ".decide",
    "SupportQuestion": ".decide",
    "SupportForm": ".deciders",
    "card_support_decider": ".deciders",
    "support_decider": ".deciders",
    "render": ".prompts",
    "make_backend": ".registry",
    "JudgeAnswer": ".schemas",
    "schema_of": ".schemas",
}


__getattr__ = lazy_exports(__name__, _LAZY)


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
