"""The item table of the report and compare pages, and the links from counts to its rows.

Every row carries *facets* (``(group, value)`` pairs: ``("Reference grounding", "No")``,
``("Failing field", "year")``, ``("Gold: Verdict", "PASS")``). :class:`FacetIndex` gives each
facet a short token (``t0``, ``t1``…); a row lists its tokens in ``data-t``, a count on the page
links to ``#f-t3.t7`` (the rows carrying both facets), and the page's one static script filters
the table by that hash, by the verdict menu (one facet) and by a text box. Tokens are made here,
never from item text, so no item string reaches the script or an attribute unescaped. Without
script the page is the plain table in its order (failures and errors first), each link still
goes to the table, and each row's details open with a ``<details>`` element.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citejudge.run.report_items import Block, Facet

__all__ = [
    "Cell",
    "Count",
    "FacetIndex",
    "FilterGroup",
    "FilterOption",
    "ItemTable",
    "TableRow",
]


@dataclass(frozen=True, slots=True)
class Count:
    """A number on the page, with a link to the rows behind it (None: no row to show)."""

    n: int
    href: str | None


@dataclass(frozen=True, slots=True)
class FilterOption:
    """One facet in the verdict menu: how many rows carry it, and how many of those the page shows."""

    token: str
    label: str
    n: int
    shown: int


@dataclass(frozen=True, slots=True)
class FilterGroup:
    """The facets of one group, an ``<optgroup>`` of the verdict menu."""

    name: str
    options: list[FilterOption]


class FacetIndex:
    """Tokens of the facets of a table's rows, their counts, and the link targets used on the page."""

    def __init__(
        self,
        rows: Sequence[Sequence[Facet]],
        shown: Sequence[bool],
        order: Callable[[str, Counter[str]], list[str]],
    ) -> None:
        total: Counter[Facet] = Counter()
        inline: Counter[Facet] = Counter()
        groups: dict[str, Counter[str]] = {}
        for facets, is_shown in zip(rows, shown, strict=True):
            for f in dict.fromkeys(facets):  # first-seen order: the page is deterministic
                total[f] += 1
                inline[f] += int(is_shown)
                groups.setdefault(f[0], Counter())[f[1]] += 1
        self._groups: list[tuple[str, list[str]]] = [(g, order(g, c)) for g, c in groups.items()]
        self._token: dict[Facet, str] = {}
        for g, values in self._groups:
            for v in values:
                self._token[g, v] = f"t{len(self._token)}"
        self._total, self._inline = total, inline
        self._targets: dict[str, None] = {}

    def tokens(self, facets: Sequence[Facet]) -> str:
        """The ``data-t`` value of a row."""
        return " ".join(dict.fromkeys(self._token[f] for f in facets if f in self._token))

    def link(self, *facets: Facet) -> str | None:
        """``#f-tA.tB``: the rows carrying every facet; None when a facet is on no row."""
        toks = []
        for f in facets:
            t = self._token.get(f)
            if t is None:
                return None
            toks.append(t)
        href = "#f-" + ".".join(dict.fromkeys(toks))
        self._targets[href[1:]] = None
        return href

    def count(self, n: int, *facets: Facet) -> Count:
        """``n`` with a link to its rows (no link for zero)."""
        return Count(n, self.link(*facets) if n else None)

    def filters(self) -> list[FilterGroup]:
        """The verdict menu: every facet, grouped, with its row counts."""
        return [
            FilterGroup(
                g,
                [
                    FilterOption(self._token[g, v], v, self._total[g, v], self._inline[g, v])
                    for v in values
                ],
            )
            for g, values in self._groups
        ]

    def targets(self) -> list[str]:
        """Every link target made so far (an anchor each, so links reach the table without script)."""
        return list(self._targets)


@dataclass(frozen=True, slots=True)
class Cell:
    """A verdict cell: its label and how it reads (``ok``, ``bad``, ``na``, ``err``: CSS classes)."""

    text: str
    tone: str


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row: its anchor (``r<n>``), filter tokens, key, verdict cells, reason and details."""

    anchor: str
    tokens: str
    key: str
    outcome: str
    cells: list[Cell]
    reason: str
    more: list[str]
    details: list[Block]


@dataclass(frozen=True, slots=True)
class ItemTable:
    """The table, its filters and link targets, and where the rows it leaves out are."""

    unit: str
    columns: list[str]
    rows: list[TableRow]
    filters: list[FilterGroup]
    targets: list[str]
    total: int
    shown: int
    companion: str | None
    note: str
