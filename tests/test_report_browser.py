"""The report as a person sees it: Debian's headless Chromium opens the page, filters, clicks, reads.

Driven over the DevTools pipe (``scripts/cdp_pipe.py``, no package, no downloaded browser);
skipped cleanly where ``/usr/bin/chromium`` is absent (``apt-get install chromium``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from citejudge.run.report import build_report
from test_report import manifest, write_run
from test_report_items import ORDER, references_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from cdp_pipe import Browser, find_chromium

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="Debian's chromium is not installed"),
]

VISIBLE = (
    "Array.from(document.querySelectorAll('#item-table tbody tr.it'))"
    ".filter(r => !r.hidden && r.offsetParent !== null)"
    ".map(r => r.querySelector('td code').textContent)"
)


def _visible(b: Browser) -> list[str]:
    got: list[str] = b.eval(VISIBLE)
    return got


def _option(b: Browser, group: str, value: str) -> str:
    """The verdict menu's token for ``group`` / ``value``, read from the page as a person reads the menu."""
    expr = (
        "Array.from(document.querySelectorAll('#filter-verdict optgroup'))"
        f".filter(g => g.label === {json.dumps(group)})"
        ".flatMap(g => Array.from(g.querySelectorAll('option')))"
        f".filter(o => o.dataset.v === {json.dumps(value)}).map(o => o.value)[0]"
    )
    token: Any = b.eval(expr)
    assert isinstance(token, str), (group, value)
    return token


def test_report_in_chromium_filters_and_opens_items(tmp_path: Path) -> None:
    d = write_run(tmp_path / "run", references_lines(), manifest(judge=None))
    build_report(d, None, None)
    url = (d / "report.html").as_uri()
    with Browser.launch() as b:
        b.open(url)
        # the item table, every item, failures and errors first; the filters shown by the script
        assert _visible(b) == ORDER
        assert b.eval("document.getElementById('filters').hidden") is False
        assert (
            b.eval("document.getElementById('filter-count').textContent") == "13 of 13 rows shown"
        )
        # the verdict menu: one facet
        token = _option(b, "Failing field", "year")
        b.eval(
            f"(() => {{ const m = document.getElementById('filter-verdict'); m.value = {json.dumps(token)};"
            " m.dispatchEvent(new Event('change')); })()"
        )
        assert _visible(b) == ["year-doi"]
        assert b.eval("location.hash") == f"#f-{token}"
        # typing narrows within the menu's choice; "show all" clears both
        b.eval("document.getElementById('filter-all').click()")
        b.type_into("#filter-text", "ambiguous")
        assert _visible(b) == ["ambiguous"]
        assert b.eval("document.getElementById('filter-count').textContent") == "1 of 13 rows shown"
        b.eval("document.getElementById('filter-all').click()")
        assert _visible(b) == ORDER
        # a count in "Why, counted" goes to its items in one click
        href = b.eval(
            "Array.from(document.querySelectorAll('#why td')).find(td => td.textContent === "
            "'(not matched: not found)').parentNode.querySelector('a').getAttribute('href')"
        )
        b.eval(f"document.querySelector('a[href=\"{href}\"]').click()")
        assert _visible(b) == ["fabricated"]
        assert "Match method (not matched: not found) and Reference grounding No" in b.eval(
            "document.getElementById('filter-link').textContent"
        )
        # a row opens to its details
        b.eval("document.getElementById('filter-all').click()")
        b.eval("document.querySelector('#item-table tbody tr.it summary').click()")
        assert b.eval("document.querySelector('#item-table tbody tr.it details').open") is True
        assert "Error" in b.eval(
            "document.querySelector('#item-table tbody tr.it details .det').innerText"
        )
        # without script: the plain sorted table, every row, no dead controls
        b.send("Emulation.setScriptExecutionDisabled", {"value": True}, session=True)
        b.open("about:blank")
        b.open(url + "#f-" + token)
        assert b.eval("document.getElementById('filters').hidden") is True
        assert (
            b.eval("document.querySelectorAll('#item-table tbody tr.it:not([hidden])').length")
            == 13
        )
