"""Why the verdicts are what they are, counted: cross tables of the item rows' facets.

Each table counts rows (items, or citations for ``citation-eval``) that carry one facet of a
row group and one of a column group, among the rows that carry every facet of ``among``:

* ``references``: why reference grounding is No (failing field: authors, year, title, venue,
  identifier kind, not found, ambiguous, inconsistent citation…), match method × reference
  grounding, content grounding × which decider decided it, and why content went undecided;
* ``rag-audit``: failing dimension × language;
* ``citation-eval``: citation support × source verification, and support × its decider.

A row can carry several facets of one group (an item failing two fields, an answer failing two
dimensions): it then counts once in each, and the ``all`` column counts it once. Each cell
names its facets, so the page links it to the rows behind it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citejudge.run.report_items import OUTCOMES, VIEW_SPECS, Facet, ItemRow

__all__ = ["Breakdown", "breakdowns", "cross_table", "value_order"]


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One table to count: ``row_group`` down, ``col_group`` across (None: one count column)."""

    name: str
    title: str
    row_group: str
    col_group: str | None
    among: tuple[Facet, ...] = ()
    note: str = ""


_SPECS: dict[str, tuple[Breakdown, ...]] = {
    "references": (
        Breakdown(
            "failing_field",
            "Why reference grounding is No: the failing field",
            "Failing field",
            None,
            (("Reference grounding", "No"),),
            "an item failing several fields counts once for each",
        ),
        Breakdown(
            "match_method",
            "Match method × reference grounding",
            "Match method",
            "Reference grounding",
            note="how the cited work was found (identifier kinds, exact title key, title search), "
            "or why it was not",
        ),
        Breakdown(
            "content_decider",
            "Content grounding × who decided it",
            "Content grounding",
            "Content decider",
            note="LLM: the model's constrained answer; scorer: the model card's calibrated CPU "
            "scorer; none: decided by a rule or not judged (next table)",
        ),
        Breakdown(
            "content_basis",
            "Content grounding: on what basis",
            "Content basis",
            "Content grounding",
        ),
    ),
    "rag-audit": (
        Breakdown(
            "dimension_language",
            "Failing dimension × language",
            "Failing dimension",
            "Language",
            note="an answer failing several dimensions counts once for each",
        ),
        Breakdown("verdict_language", "Verdict × language", "Verdict", "Language"),
    ),
    "citation-eval": (
        Breakdown(
            "support_source",
            "Citation support × source verification",
            "Citation support",
            "Source verification",
        ),
        Breakdown(
            "support_decider",
            "Citation support × who decided it",
            "Citation support",
            "Support decider",
        ),
    ),
}


_FIXED_ORDER: dict[str, tuple[str, ...]] = {
    "Outcome": OUTCOMES,
    "Failing dimension": ("exists", "accurate", "complete", "formatted"),
}


def value_order(task: str, group: str, counts: Counter[str]) -> list[str]:
    """The values of a facet group in reading order: a view's labels first, else by count."""
    for spec in VIEW_SPECS[task]:
        if spec.title == group or group == f"Gold: {spec.title}":
            known = [x for x in spec.labels if x in counts]
            rest = sorted((x for x in counts if x not in spec.labels), key=str)
            return known + rest
    fixed = _FIXED_ORDER.get(group)
    if fixed is not None:
        return [x for x in fixed if x in counts] + sorted(x for x in counts if x not in fixed)
    return sorted(counts, key=lambda v: (v.startswith("("), -counts[v], v))


def cross_table(task: str, rows: Sequence[ItemRow], spec: Breakdown) -> dict[str, Any]:
    """The counts of one breakdown as JSON-ready numbers (``cells[i][j]``, ``row_n``, ``col_n``, ``n``)."""
    pool = [r for r in rows if all(r.has(f) for f in spec.among)]
    rc: Counter[str] = Counter()
    cc: Counter[str] = Counter()
    cell: Counter[tuple[str, str]] = Counter()
    for r in pool:
        rvals = {v for g, v in r.facets if g == spec.row_group}
        cvals = {v for g, v in r.facets if g == spec.col_group} if spec.col_group else set()
        rc.update(rvals)
        cc.update(cvals)
        for a in rvals:
            for b in cvals:
                cell[a, b] += 1
    rvs = value_order(task, spec.row_group, rc)
    cvs = value_order(task, spec.col_group, cc) if spec.col_group else []
    return {
        "name": spec.name,
        "title": spec.title,
        "row_group": spec.row_group,
        "col_group": spec.col_group,
        "among": [list(f) for f in spec.among],
        "note": spec.note,
        "n": len(pool),
        "rows": rvs,
        "cols": cvs,
        "cells": [[cell[a, b] for b in cvs] for a in rvs],
        "row_n": [rc[a] for a in rvs],
        "col_n": [cc[b] for b in cvs],
    }


def breakdowns(task: str, rows: Sequence[ItemRow]) -> list[dict[str, Any]]:
    """Every breakdown of the task, in reading order (tables with no row are left out)."""
    out = [cross_table(task, rows, spec) for spec in _SPECS.get(task, ())]
    return [t for t in out if t["rows"]]
