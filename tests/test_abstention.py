import pytest
from hypothesis import given
from hypothesis import strategies as st

from citejudge.tasks.abstention import detect_abstention


@pytest.mark.parametrize(
    "text",
    [
        "I need to check the original paper before I can say what it reports.",
        "I cannot access the full text of this article.",
        "I don't have access to the source, so I am not sure what it says.",
        "I'm not sure what the paper concludes about this.",
        "Musel bych si to ověřit v původním článku.",
        "Nemám přístup k plnému textu.",
        "Nejsem si jistá, co přesně zdroj uvádí.",
        "Nemohu ověřit, co článek tvrdí.",
    ],
)
def test_clear_abstentions(text: str) -> None:
    assert detect_abstention(text).status == "yes"


@pytest.mark.parametrize(
    "text",
    [
        "BERT improves the GLUE score by 7.7 points.",
        "Residual networks with 152 layers won ILSVRC 2015.",
        "Studie ukázala, že vitamin D snižuje riziko.",
        "",
        None,
    ],
)
def test_claims_are_not_abstentions(text: str | None) -> None:
    assert detect_abstention(text).status == "no"


def test_abstention_inside_a_claim_is_unclear() -> None:
    res = detect_abstention(
        "I am not sure what the source says, but it reported that accuracy increased by 12% on ImageNet."
    )
    assert res.status == "unclear"
    assert res.phrase


@given(st.text(max_size=300))
def test_never_raises(text: str) -> None:
    assert detect_abstention(text).status in {"yes", "no", "unclear"}
