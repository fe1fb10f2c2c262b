"""The compiled fast path of result validation agrees with jsonschema (it may only say "valid"
where jsonschema does; anything else goes to jsonschema, which writes the messages)."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.schema import _compile, fast_check, load_schema, validate_result

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["Yes", "No", "N/A", "Yes. ok", "No. x", "N/A. y", "yes.", "", "Maybe"]),
    st.text(max_size=8),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)

_REF_KEYS = [
    "reference_name",
    "reference_grounding",
    "content_grounding",
    "hallucination",
    "abstention",
    "verification_error",
]


@st.composite
def _reference_results(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly near-valid references results: the six keys, some dropped, changed or added."""
    values = st.one_of(
        st.sampled_from(["Yes", "No", "N/A", "Yes. Matches W1.", "No. Not found.", "N/A. x"]),
        _JSON,
    )
    obj = {k: draw(values) for k in _REF_KEYS if draw(st.integers(0, 9)) > 0}
    if draw(st.booleans()):
        obj.update(draw(st.dictionaries(st.text(max_size=6), _JSON, max_size=2)))
    return obj


@settings(max_examples=400, deadline=None)
@given(_reference_results())
def test_fast_path_says_valid_only_where_jsonschema_does(obj: dict[str, Any]) -> None:
    fast = fast_check("references")
    assert fast is not None  # the references result is made of plain keywords
    exact = jsonschema.Draft202012Validator(load_schema("references")).is_valid(obj)
    if fast(obj):
        assert exact
    assert (validate_result("references", obj) == []) == exact


def test_a_real_result_takes_the_fast_path() -> None:
    ok = {
        "reference_name": "Devlin et al. (2019). BERT.",
        "reference_grounding": "Yes. Matches W1 via doi.",
        "content_grounding": "N/A. Not judged.",
        "hallucination": "No",
        "abstention": "No",
        "verification_error": "No",
    }
    fast = fast_check("references")
    assert fast is not None and fast(ok)
    assert not fast({**ok, "hallucination": "Maybe"})
    assert not fast({**ok, "extra": 1})
    assert validate_result("references", {**ok, "hallucination": "Maybe"}) == [
        "hallucination: 'Maybe' is not one of ['Yes', 'No']"
    ]


# every keyword the fast path compiles, in one schema
_ALL_KEYWORDS: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["a"],
    "properties": {
        "a": {"type": "string", "pattern": "^x", "minLength": 2},
        "b": {"enum": ["p", "q"]},
        "c": {"type": ["integer", "null"], "minimum": 0, "maximum": 2},
        "d": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 2},
        "e": {"const": "k"},
        "f": {"type": "boolean"},
    },
}
_VALUES = st.one_of(
    st.sampled_from(["x", "xy", "ax", "p", "q", "k", 0, 1, 2, 3, 1.0, [], [1]]), _JSON
)


@settings(max_examples=600, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e", "f", "g"]), _VALUES, max_size=6))
def test_every_compiled_keyword_agrees_with_jsonschema(obj: dict[str, Any]) -> None:
    fast = _compile(_ALL_KEYWORDS)
    assert fast is not None
    if fast(obj):
        assert jsonschema.Draft202012Validator(_ALL_KEYWORDS).is_valid(obj)


def test_schemas_with_other_keywords_keep_jsonschema() -> None:
    assert _compile({"type": "object", "anyOf": [{"required": ["a"]}]}) is None
    assert _compile({"$ref": "#/$defs/x"}) is None
    assert _compile({"enum": [1, "a"]}) is None  # 1 == True in Python, not in JSON Schema
    assert fast_check("citation-eval") is None
