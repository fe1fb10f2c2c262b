"""The training noise of the reference parser (``scripts/parser_data.add_noise``).

The dash noises (``train_parser.py --dash-separator`` / ``--title-dash``) draw from a generator
of their own, seeded by the string: with them, every other kind of noise, and every string
they do not touch, stays what it is without them. (When the title–container dash drew from
the shared generator, turning it on reshuffled all the noise after it, so a candidate trained
with it differed from the shipped model in far more than the dashes, and the rendered-citation
benchmark's faithful items moved with that reshuffle.)
"""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.fixture()
def pdata() -> Iterator[ModuleType]:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("parser_data", SCRIPTS / "parser_data.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["parser_data"] = mod  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)
    yield mod


def _labelled(*parts: tuple[str, str | None]) -> tuple[str, list[str | None]]:
    text = "".join(p for p, _ in parts)
    chars: list[str | None] = [lab for p, lab in parts for _ in p]
    return text, chars


# the shape of bench_rendered's faithful items the title–container dash broke: a subtitle after
# a colon (which the title dash turns into "—"), then the container
STRING = _labelled(
    ("Killgore", None),
    (", M. W. ", None),
    ("Looking Ahead to the 5th World Water Forum: Istanbul 2009", "title"),
    (". ", None),
    ("World Environmental and Water Resources Congress", "container"),
    (" 2008, 1–10.", None),
)


def _noised(pdata: ModuleType, seed: int, dash: float, title_dash: float) -> tuple[str, object]:
    pdata.DASH_SEPARATOR, pdata.TITLE_DASH = dash, title_dash
    rng = random.Random(seed)
    text, chars = pdata.add_noise(STRING[0], list(STRING[1]), rng, {})
    assert len(text) == len(chars)
    return text, rng.getstate()


def test_dash_noises_leave_the_shared_generator_alone(pdata: ModuleType) -> None:
    dashed = title_dashed = 0
    for seed in range(400):
        plain, state = _noised(pdata, seed, 0.0, 0.0)
        for dash, title_dash in ((0.3, 0.0), (0.0, 0.3), (0.3, 0.3)):
            text, after = _noised(pdata, seed, dash, title_dash)
            # the generator every other noise draws from is where it was without the dashes
            assert after == state
            if text != plain:
                # and nothing but a dash changed the string
                assert any(d in text for d in (" — ", " – ", " - ", " -- ")), (plain, text)
                dashed += bool(re.search(r"\s[-–—]+\s+World Environmental", text))
                title_dashed += bool(re.search(r"Forum\s[-–—]+\sIstanbul", text))
    # the noises happen (each where it is on, for about 30% of the strings)
    assert dashed > 50 and title_dashed > 50


def test_title_dash_stays_title(pdata: ModuleType) -> None:
    pdata.DASH_SEPARATOR, pdata.TITLE_DASH = 0.0, 1.0
    seen = 0
    for seed in range(50):
        text, chars = pdata.add_noise(STRING[0], list(STRING[1]), random.Random(seed), {})
        k = text.find("Forum")
        if k < 0 or "Forum: " in text:
            continue
        cut = text[k + len("Forum") : text.find("Istanbul")]
        assert cut.strip() in ("—", "–", "-")
        assert set(chars[k : text.find("Istanbul") + 4]) == {"title"}
        seen += 1
    assert seen > 30
    # without it, nothing of the kind
    pdata.TITLE_DASH = 0.0
    for seed in range(50):
        text, _ = pdata.add_noise(STRING[0], list(STRING[1]), random.Random(seed), {})
        assert "Forum —" not in text and "Forum –" not in text and "Forum -" not in text
