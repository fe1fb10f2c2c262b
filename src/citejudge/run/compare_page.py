"""The HTML page of ``citejudge compare --html``: agreement per field, and every flipped item one click away.

Built from :func:`citejudge.run.compare.compare_loaded`'s result and the two runs' result lines.
Flipped items form the same item table as the report (:mod:`citejudge.run.report_table`): each
flip count (``No → Yes: 3``) links to its items, a menu and a text box filter them, and each row
opens to both runs' explanations and details (matched record, fields as cited and as recorded,
candidates, decider). Same template macros, same static script, no external resource.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from citejudge.run.report import RunData
from citejudge.run.report_items import Block, Facet, Fact, line_details, short
from citejudge.run.report_page import Card, render_template
from citejudge.run.report_table import Cell, Count, FacetIndex, ItemTable, TableRow

__all__ = [
    "MAX_FLIPPED_ROWS",
    "ComparePage",
    "FieldRow",
    "build_compare_page",
    "render_compare_page",
    "write_compare_page",
]

FLIPPED = "Flipped field"
#: Flipped items the page shows at most (a reproducibility failure can flip every item).
MAX_FLIPPED_ROWS = 1000


@dataclass(frozen=True, slots=True)
class FieldRow:
    """Agreement on one result field, and its flips (``"No → Yes"``) linked to their items."""

    field: str
    n: int
    agree: int
    agreement: float
    kappa: float | None
    items: Count
    flips: list[tuple[str, Count]]


@dataclass(frozen=True, slots=True)
class ComparePage:
    """Everything the compare template shows."""

    task: str
    run_a: str
    run_b: str
    kind: str
    warning: str | None
    differing: list[tuple[str, str, str]]
    cards: list[Card]
    fields: list[FieldRow]
    table: ItemTable
    only_a: list[str]
    only_b: list[str]


def _group(field: str) -> str:
    return field.split("[", 1)[0]


def _value(v: Any) -> str:
    return short(json.dumps(v, ensure_ascii=False, default=str), 120)


def _sided(side: str, b: Block) -> Block:
    """A detail block of run ``side``, its title prefixed with the side."""
    if isinstance(b, Fact):
        return replace(b, label=f"{side}: {b.label}")
    return replace(b, title=f"{side}: {b.title}")


def build_compare_page(
    cmp: dict[str, Any], ra: RunData, rb: RunData, max_rows: int = MAX_FLIPPED_ROWS
) -> ComparePage:
    """The view model of a comparison; details come from each run's result line of a flipped item.

    The table holds the first ``max_rows`` flipped items (counts are over all of them).
    """
    task = cmp["task"]
    lines_a = {str(x["id"]): (x, n) for x, n in zip(ra.lines, ra.line_numbers, strict=True)}
    lines_b = {str(x["id"]): (x, n) for x, n in zip(rb.lines, rb.line_numbers, strict=True)}
    facets: list[list[Facet]] = []
    for x in cmp["flipped"]:
        fs: list[Facet] = []
        for f, c in x["fields"].items():
            g = _group(f)
            for facet in ((FLIPPED, g), (g, f"{c['a']} → {c['b']}")):
                if facet not in fs:
                    fs.append(facet)
        facets.append(fs)

    def order(group: str, counts: Counter[str]) -> list[str]:
        return sorted(counts, key=lambda v: (-counts[v], v))

    idx = FacetIndex(facets, [i < max_rows for i in range(len(facets))], order)
    fields = [
        FieldRow(
            f,
            s["n"],
            s["agree"],
            s["agreement"],
            s["kappa"],
            idx.count(sum(1 for fs in facets if (FLIPPED, f) in fs), (FLIPPED, f)),
            [(t, idx.count(n, (f, t))) for t, n in s["flips"].items()],
        )
        for f, s in cmp["fields"].items()
    ]
    groups = list(dict.fromkeys(_group(f) for x in cmp["flipped"] for f in x["fields"]))
    rows: list[TableRow] = []
    for i, (x, fs) in enumerate(zip(cmp["flipped"][:max_rows], facets[:max_rows], strict=True)):
        changes: dict[str, dict[str, Any]] = x["fields"]
        cells = []
        for g in groups:
            here = [c for f, c in changes.items() if _group(f) == g]
            text = "; ".join(f"{c['a']} → {c['b']}" for c in here[:3]) if here else "="
            cells.append(Cell(text + (" …" if len(here) > 3 else ""), "bad" if here else "na"))
        first_field, first = next(iter(changes.items()))
        more = [f"B: {first['explanation_b']}"] + [
            f"{f}: {c['a']} → {c['b']}" for f, c in list(changes.items())[1:4]
        ]
        blocks: list[Block] = []
        for f, c in changes.items():
            blocks.append(Fact(f"{f} in A ({c['a']})", short(c["explanation_a"])))
            blocks.append(Fact(f"{f} in B ({c['b']})", short(c["explanation_b"])))
        for side, lines in (("A", lines_a), ("B", lines_b)):
            got = lines.get(str(x["id"]))
            if got is not None:
                blocks.append(Fact(f"Run {side}", f"results.jsonl line {got[1]}"))
                blocks.extend(
                    _sided(side, b)
                    for b in line_details(task, got[0], got[1])
                    if not (isinstance(b, Fact) and b.label == "Result")
                )
        rows.append(
            TableRow(
                anchor=f"r{i}",
                tokens=idx.tokens(fs),
                key=str(x["id"]),
                outcome="error"
                if any("ERROR" in (c["a"], c["b"]) for c in changes.values())
                else "failed",
                cells=cells,
                reason=short(f"{first_field} A: {first['explanation_a']}", 300),
                more=[short(m, 300) for m in more],
                details=blocks,
            )
        )
    table = ItemTable(
        unit="item",
        columns=["item", *groups, "reasons in A and B (click for details)"],
        rows=rows,
        filters=idx.filters(),
        targets=idx.targets(),
        total=len(facets),
        shown=len(rows),
        companion=None,
        note=f"The page shows the first {len(rows):,} of {len(facets):,} flipped items; "
        "`citejudge compare --json` lists them all."
        if len(rows) < len(facets)
        else "",
    )
    d = cmp["manifest"]
    differing = [
        (
            k,
            _value(d["values"].get(k, [None, None])[0]),
            _value(d["values"].get(k, [None, None])[1]),
        )
        for k in [*d.get("model_keys", []), *d.get("other_keys", [])]
    ]
    items = cmp["items"]
    cards = [
        Card(items["common"], "items in both runs"),
        Card(len(facets), "flipped items", "#items" if rows else None),
        Card(len(cmp["only_in_a"]), "only in A"),
        Card(len(cmp["only_in_b"]), "only in B"),
    ]
    return ComparePage(
        task=task,
        run_a=cmp["run_a"],
        run_b=cmp["run_b"],
        kind=d["kind"],
        warning=d.get("warning"),
        differing=differing,
        cards=cards,
        fields=fields,
        table=table,
        only_a=list(cmp["only_in_a"]),
        only_b=list(cmp["only_in_b"]),
    )


def render_compare_page(page: ComparePage) -> str:
    """The self-contained HTML page of a comparison."""
    return render_template("compare.html.j2", page=page)


def write_compare_page(cmp: dict[str, Any], ra: RunData, rb: RunData, out: Path) -> None:
    """Build and write the comparison page to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_compare_page(build_compare_page(cmp, ra, rb)), encoding="utf-8")
