"""No answer is cut by ``max_tokens``: every answer schema's worst case fits the budget it is asked with.

The worst case of a schema is its longest admissible JSON (every string at its maximum length,
every list full, one space wherever the decoder may put one), written with the characters that
cost the most tokens (digits, accented and CJK letters: one token per character). It is counted
with each card's own tokenizer where the tokenizer is on this machine, and checked against what
:meth:`Judge.sampling_for` asks of the backend; a card without local weights is checked with the
character bound the budget is built on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from citejudge.judge.cards import ModelCard, list_cards
from citejudge.judge.core import Judge
from citejudge.judge.schemas import AbstentionJudgement, ClaimSupport, answer_budget, max_answer
from citejudge.tasks.ceval_schemas import CorrectnessAnswer, SourceCheckAnswer, SupportAnswer
from citejudge.tasks.rag_schemas import ChunkSupport, CitationNeed

REPO = Path(__file__).resolve().parents[1]
SCHEMAS: list[type[BaseModel]] = [
    ClaimSupport,
    AbstentionJudgement,
    SupportAnswer,
    SourceCheckAnswer,
    CorrectnessAnswer,
    ChunkSupport,
    CitationNeed,
]
FILLERS = ["9", "ž", "中", "a"]


def _worst_texts(schema: type[BaseModel]) -> list[str]:
    out = []
    for f in FILLERS:
        inst = max_answer(schema, f)
        schema.model_validate(inst)  # the worst case is a valid answer
        out.append(json.dumps(inst, ensure_ascii=False, separators=(", ", ": ")))
    return out


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.__name__)
def test_worst_case_is_a_valid_answer_within_the_character_bound(schema: type[BaseModel]) -> None:
    for text in _worst_texts(schema):
        assert len(text) + 8 <= answer_budget(schema), (schema.__name__, len(text))


@pytest.mark.parametrize("card", list_cards(REPO / "models"), ids=lambda c: c.name)
def test_every_card_asks_enough_tokens_for_every_schema(card: ModelCard) -> None:
    judge = Judge.__new__(Judge)
    judge.sampling = card.sampling
    for schema in SCHEMAS:
        budget = judge.sampling_for(schema).max_tokens
        assert budget >= answer_budget(schema)
        # and the prompt still has room in the context
        assert budget + 1024 <= card.context_length, (card.name, schema.__name__)


@pytest.mark.model
def test_default_card_tokenizer_fits_the_worst_case() -> None:
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    from citejudge.judge.cards import load_card
    from citejudge.judge.gguf import checked_files, materialize_gguf

    card = load_card("cpu-default", REPO / "models")
    try:
        files = checked_files(card, REPO / "models")
    except Exception as exc:
        pytest.skip(f"cpu-default weights not installed: {exc}")
    gguf = next(f for f in files if f.spec.role == "gguf")
    folder = materialize_gguf(gguf.path, sha256=gguf.sha256)
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    judge = Judge.__new__(Judge)
    judge.sampling = card.sampling
    for schema in SCHEMAS:
        budget = judge.sampling_for(schema).max_tokens
        for text in _worst_texts(schema):
            n = len(tok.encode(text, add_special_tokens=False))
            assert n + 1 <= budget, (schema.__name__, text[:40], n, budget)
