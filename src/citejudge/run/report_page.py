"""The HTML page of ``citejudge report``: a typed view model of the report's numbers, laid out by a template.

:func:`build_page` turns the numbers of :func:`citejudge.run.report.build_report` (the dict also
written to ``report.json``) and the run's item rows into a :class:`ReportPage`: an ordered list of
:class:`Section` s, one per view of the run — verdicts, why (counted), judge, gold comparisons,
items, errors, run facts, timings. A section is a ``kind`` and a typed body; the template
``templates/report.html.j2`` has one macro per kind, so a new view is one builder here and one
macro there. Every count that stands for rows links to them (:class:`~citejudge.run.report_table.FacetIndex`).
:func:`render_page` lays the page out with Jinja2 (package data, autoescaped). Charts are inline
SVG drawn by the template; the one inline script is static text (the filters); no external resource.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citejudge.run.report_items import (
    PRIMARY_VIEW,
    REASON_CHARS,
    VIEW_SPECS,
    Block,
    Facet,
    ItemRow,
    short,
)
from citejudge.run.report_table import Cell, Count, FacetIndex, ItemTable, TableRow
from citejudge.run.report_why import value_order

__all__ = [
    "Bar",
    "BarChart",
    "Card",
    "CategoryRow",
    "ClassRow",
    "Confusion",
    "ConfusionCell",
    "ConfusionRow",
    "CountRow",
    "CountTable",
    "DeciderRow",
    "DistributionSection",
    "DocumentRow",
    "ErrorRow",
    "ErrorsSection",
    "Example",
    "Facts",
    "GoldSection",
    "GoldSource",
    "InputFile",
    "JudgeSection",
    "ReportPage",
    "Section",
    "Share",
    "Tick",
    "build_page",
    "item_table",
    "render_page",
    "render_template",
    "static_script",
]

Number = int | float

# Bar chart geometry, in pixels.
_ROW, _BAR, _TOP, _AXIS, _CHAR, _NOTE = 22.0, 15.0, 28.0, 34.0, 7.0, 96.0
# Confusion cell shades: white to dark blue.
_LIGHT, _DARK = (247, 251, 255), (8, 48, 107)


@dataclass(frozen=True, slots=True)
class Card:
    """One headline number (formatted by the template; a string is shown as is)."""

    value: Number | str | None
    label: str
    href: str | None = None


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: its label, the note after it, its top edge, its length and where its texts go."""

    label: str
    note: str
    y: float
    width: float
    text_y: float
    note_x: float


@dataclass(frozen=True, slots=True)
class Tick:
    """One tick of the value axis."""

    x: float
    text: str


@dataclass(frozen=True, slots=True)
class BarChart:
    """A horizontal bar chart: labels left of ``x0``, bars from ``x0`` over at most ``plot_width``."""

    title: str
    axis: str
    x0: float
    plot_width: float
    width: float
    height: float
    axis_y: float
    bars: list[Bar]
    ticks: list[Tick]
    bar_height: float = _BAR
    label_x: float = 0.0
    center_x: float = 0.0


@dataclass(frozen=True, slots=True)
class ConfusionCell:
    """One cell of a confusion matrix, with its shade when the page has plots."""

    count: int
    diagonal: bool
    shade: str | None
    dark: bool
    href: str | None = None


@dataclass(frozen=True, slots=True)
class ConfusionRow:
    """The cells of one gold label."""

    label: str
    cells: list[ConfusionCell]
    total: int


@dataclass(frozen=True, slots=True)
class Confusion:
    """A confusion matrix: gold labels down, predicted labels across, with totals."""

    labels: list[str]
    rows: list[ConfusionRow]
    column_totals: list[int]
    total: int


@dataclass(frozen=True, slots=True)
class ClassRow:
    """Precision, recall and F1 of one label."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int
    predicted: int


@dataclass(frozen=True, slots=True)
class CategoryRow:
    """Accuracy within one category, and its gold and predicted label counts (``label: n, ...``)."""

    category: str
    n: int
    correct: int
    accuracy: float
    gold: str
    predicted: str


@dataclass(frozen=True, slots=True)
class Example:
    """One misclassified row."""

    key: str
    gold: str
    pred: str
    category: str
    explanation: str
    href: str | None = None


@dataclass(frozen=True, slots=True)
class GoldSection:
    """A view compared with the gold labels; ``matched`` is False when no gold label matches a row."""

    name: str
    title: str
    unit: str
    matched: bool
    warnings: list[str]
    cards: list[Card]
    confusion: Confusion | None
    per_class: list[ClassRow]
    categories: list[CategoryRow]
    category_chart: BarChart | None
    misclassified: int
    examples: list[Example]
    misclassified_href: str | None = None


@dataclass(frozen=True, slots=True)
class Share:
    """One label of a distribution."""

    label: str
    n: int
    share: float
    href: str | None = None


@dataclass(frozen=True, slots=True)
class DistributionSection:
    """The predicted labels of one view."""

    name: str
    title: str
    unit: str
    n: int
    shares: list[Share]
    chart: BarChart | None


@dataclass(frozen=True, slots=True)
class ErrorRow:
    """One failed item."""

    id: str
    kind: str
    message: str
    href: str | None = None


@dataclass(frozen=True, slots=True)
class InputFile:
    """One input file of the run."""

    path: str | None
    items: int | None
    sha256: str | None


@dataclass(frozen=True, slots=True)
class Facts:
    """Provenance of the run, from its manifest (JSON values already serialised)."""

    run_id: str | None
    status: str | None
    task: str | None
    started_utc: str | None
    finished_utc: str | None
    code_commit: str
    code_dirty: bool | None
    model: str | None
    model_revision: str | None
    backend: str | None
    model_details: bool
    sampling: str | None
    index_path: str | None
    index_meta_sha256: str | None
    index_works: int | None
    index_schema_version: int | None
    config_sha256: str | None
    schema_sha256: str | None
    inputs: list[InputFile]
    seeds: str
    versions: str
    judge_stats: str | None
    tokens: str | None


@dataclass(frozen=True, slots=True)
class GoldSource:
    """Where the gold labels come from."""

    source: str
    mapping: str
    category_field: str | None


@dataclass(frozen=True, slots=True)
class CountRow:
    """One row of a count table: its value, a count per column, and the rows with the value at all."""

    label: str
    cells: list[Count]
    all: Count


@dataclass(frozen=True, slots=True)
class CountTable:
    """A breakdown: ``row_group`` values down, ``col_group`` values across; every count links to its rows."""

    title: str
    note: str
    unit: str
    n: int
    n_href: str | None
    among: str
    row_group: str
    col_group: str | None
    cols: list[str]
    col_n: list[Count]
    rows: list[CountRow]


@dataclass(frozen=True, slots=True)
class DeciderRow:
    """How many questions of one kind one decider answered."""

    question: str
    decider: str
    n: int


@dataclass(frozen=True, slots=True)
class JudgeSection:
    """Who decided: plain sentences, the questions per decider, and the judge's request counts."""

    sentences: list[str]
    deciders: list[DeciderRow]
    stats: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """One checked document: its counts, each linked to its rows where rows carry them."""

    file: str
    href: str | None
    format: str
    error: str | None
    references: int
    verdicts: list[tuple[str, Count]]
    citing_sentences: int
    judged: int
    content: list[tuple[str, Count]]
    uncited: int
    nowhere: int


@dataclass(frozen=True, slots=True)
class ErrorsSection:
    """The failed items: counts by kind (linked to their rows) and the first few."""

    total: int
    by_kind: list[tuple[str, Count]]
    examples: list[ErrorRow]


@dataclass(frozen=True, slots=True)
class Section:
    """One view of the page: ``kind`` names the template macro that draws ``body``."""

    kind: str
    anchor: str
    title: str
    body: Any
    note: str = ""


@dataclass(frozen=True, slots=True)
class ReportPage:
    """Everything the template shows: a header, then the sections in order."""

    title: str
    task: str
    run_dir: str
    generated_utc: str
    cards: list[Card]
    dropped_tail: bool
    unfinished_status: str | None
    sections: list[Section]


# ------------------------------------------------------------------------------ charts


def _nice_step(top: float) -> float:
    """A 1, 2 or 5 times a power of ten step giving about four ticks up to ``top``."""
    raw = top / 4
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _bar_chart(
    title: str,
    axis: str,
    names: Sequence[str],
    values: Sequence[float],
    notes: Sequence[str],
    *,
    xmax: float | None = None,
    plot_width: float = 300.0,
) -> BarChart:
    """Horizontal bars, top to bottom in the given order; ``xmax`` fixes the scale (accuracy: 1)."""
    top = xmax if xmax is not None else (max(values, default=0.0) or 1.0)
    step = 0.2 if xmax is not None else _nice_step(top)
    top = max(top, step * math.ceil(top / step - 1e-9))
    x0 = 12.0 + _CHAR * max((len(n) for n in names), default=4)
    scale = plot_width / top
    bars = []
    for i, (name, value, note) in enumerate(zip(names, values, notes, strict=True)):
        y, width = _TOP + i * _ROW, round(value * scale, 1)
        bars.append(Bar(name, note, y, width, y + _BAR - 3, round(x0 + width + 4, 1)))
    axis_y = _TOP + len(bars) * _ROW
    ticks = [
        Tick(round(x0 + k * step * scale, 1), f"{k * step:g}") for k in range(round(top / step) + 1)
    ]
    width = max(x0 + plot_width + _NOTE, 8 + 7.5 * len(title))
    return BarChart(
        title,
        axis,
        x0,
        plot_width,
        width,
        axis_y + _AXIS,
        axis_y,
        bars,
        ticks,
        label_x=x0 - 6,
        center_x=round(x0 + plot_width / 2, 1),
    )


def _shade(count: int, top: int) -> tuple[str, bool]:
    """The cell colour of ``count`` on a white-to-blue scale up to ``top``, and whether it is dark."""
    t = count / top if top else 0.0
    rgb = (round(a + (b - a) * t) for a, b in zip(_LIGHT, _DARK, strict=True))
    return "#{:02x}{:02x}{:02x}".format(*rgb), t > 0.5


# ------------------------------------------------------------------------------ sections


def _confusion(
    m: dict[str, Any], error_label: str, plots: bool, title: str, idx: FacetIndex
) -> Confusion:
    labels, cm = m["labels"], m["confusion"]
    # Every label but the ERROR pseudo-label without gold rows.
    shown = [i for i, lab in enumerate(labels) if lab != error_label or sum(cm[i])]
    top = max((max(cm[i]) for i in shown), default=0)
    rows = []
    for i in shown:
        cells = []
        for j, c in enumerate(cm[i]):
            shade, dark = _shade(c, top) if plots else (None, False)
            href = idx.link((f"Gold: {title}", labels[i]), (title, labels[j])) if c else None
            cells.append(ConfusionCell(c, i == j, shade, dark, href))
        rows.append(ConfusionRow(labels[i], cells, sum(cm[i])))
    cols = [sum(r[j] for r in cm) for j in range(len(labels))]
    return Confusion(labels, rows, cols, sum(cols))


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k}: {n}" for k, n in d.items())


def _gold_section(
    name: str,
    v: dict[str, Any],
    error_label: str,
    plots: bool,
    idx: FacetIndex,
    anchors: dict[str, str],
) -> GoldSection:
    m = v["gold"]
    if m is None:
        return GoldSection(name, v["title"], v["unit"], False, [], [], None, [], [], None, 0, [])
    cards = [
        Card(m[k], lab)
        for k, lab in [
            ("n", f"labelled {v['unit']}s"),
            ("accuracy", "accuracy"),
            ("balanced_accuracy", "balanced accuracy"),
            ("macro_f1", "macro F1"),
            ("kappa", "Cohen's κ"),
            ("unlabelled", "without gold"),
        ]
    ]
    per_class = [
        ClassRow(k, s["precision"], s["recall"], s["f1"], int(s["support"]), int(s["predicted"]))
        for k, s in m["per_class"].items()
    ]
    cats = m["per_category"]
    categories = [
        CategoryRow(
            c, s["n"], s["correct"], s["accuracy"], _counts(s["gold"]), _counts(s["predicted"])
        )
        for c, s in cats.items()
    ]
    chart = (
        _bar_chart(
            f"{v['title']}: accuracy per category",
            "accuracy",
            list(cats),
            [s["accuracy"] for s in cats.values()],
            [f"{s['accuracy']:.2f} (n={s['n']})" for s in cats.values()],
            xmax=1.0,
        )
        if plots and cats
        else None
    )
    examples = [
        Example(
            x["key"],
            x["gold"],
            x["pred"],
            x["category"] or "",
            x["explanation"],
            f"#{anchors[x['key']]}" if x["key"] in anchors else None,
        )
        for x in m["misclassified_examples"]
    ]
    return GoldSection(
        name,
        v["title"],
        v["unit"],
        True,
        list(m["warnings"]),
        cards,
        _confusion(m, error_label, plots, v["title"], idx),
        per_class,
        categories,
        chart,
        m["misclassified"],
        examples,
        idx.link(("Gold mismatch", v["title"])) if m["misclassified"] else None,
    )


def _distribution(
    name: str, v: dict[str, Any], plots: bool, idx: FacetIndex
) -> DistributionSection:
    dist: dict[str, int] = v["distribution"]
    total = sum(dist.values()) or 1
    shares = [
        Share(k, n, n / total, idx.link((v["title"], k)) if n else None) for k, n in dist.items()
    ]
    chart = (
        _bar_chart(
            v["title"],
            f"{v['unit']}s",
            list(dist),
            [float(n) for n in dist.values()],
            [f"{n} ({n / total:.0%})" for n in dist.values()],
        )
        if plots and dist
        else None
    )
    return DistributionSection(name, v["title"], v["unit"], v["n"], shares, chart)


def _count_table(t: dict[str, Any], unit: str, idx: FacetIndex) -> CountTable:
    among: list[Facet] = [(str(g), str(v)) for g, v in t["among"]]
    rg, cg = t["row_group"], t["col_group"]
    rows = []
    for i, rv in enumerate(t["rows"]):
        cells = [
            idx.count(n, *among, (rg, rv), (cg, cv))
            for cv, n in zip(t["cols"], t["cells"][i], strict=True)
        ]
        rows.append(CountRow(rv, cells, idx.count(t["row_n"][i], *among, (rg, rv))))
    col_n = [idx.count(n, *among, (cg, cv)) for cv, n in zip(t["cols"], t["col_n"], strict=True)]
    return CountTable(
        title=t["title"],
        note=t["note"],
        unit=unit,
        n=t["n"],
        n_href=idx.link(*among) if among and t["n"] else None,
        among=" and ".join(f"{g} {v}" for g, v in among),
        row_group=rg,
        col_group=cg,
        cols=list(t["cols"]),
        col_n=col_n,
        rows=rows,
    )


_NOT_JUDGED = {
    "references": "Content grounding of a grounded reference is N/A (not judged).",
    "rag-audit": "ACCURATE and COMPLETE, the judged dimensions, were not evaluated.",
    "citation-eval": "Citation support and answer correctness were not judged (NOT_JUDGED).",
}

_STATS = (
    ("requests", "requests (questions sent to the judge)"),
    ("cache_hits", "answered from the request cache"),
    ("model_calls", "batched model calls"),
    ("invalid", "invalid answers (not the schema)"),
    ("retries", "requests asked again"),
    ("errors", "requests left without a valid answer"),
    ("prompt_tokens", "prompt tokens"),
    ("output_tokens", "output tokens"),
)


def _judge(rep: dict[str, Any]) -> JudgeSection:
    f = rep["manifest"]
    task = rep["task"]
    deciders = [DeciderRow(d["question"], d["decider"], d["n"]) for d in rep["deciders"]]
    by_llm = sum(d.n for d in deciders if d.decider == "LLM")
    by_scorer = sum(d.n for d in deciders if d.decider.startswith("scorer"))
    sentences: list[str] = []
    stats: list[tuple[str, str]] = []
    if not f:
        sentences.append(
            "This run directory has no manifest: the questions below are counted from the "
            "results; the model and its request counts are unknown."
        )
    elif not f.get("judge_stats") and str(f.get("model") or "").startswith("none"):
        sentences.append(
            "No model was used (model: none): every verdict comes from the deterministic "
            "stage. " + _NOT_JUDGED.get(task, "")
        )
    else:
        sentences.append(f"Model {f.get('model')} (backend {f.get('backend') or '?'}).")
        sc = f.get("support_scorer") or {}
        if sc:
            thr = sc.get("threshold")
            thr_text = f" (threshold {thr:.3f})" if isinstance(thr, (int, float)) else ""
            feature = (
                "; it reads the LLM's label probabilities as one of its features"
                if sc.get("uses_llm")
                else ""
            )
            sentences.append(
                f"The model card names a calibrated scorer, {sc.get('calibration')}{thr_text}: "
                f"it, not the LLM's answer, decided the support questions — {by_scorer} in this "
                f"run{feature}."
            )
        st = f.get("judge_stats") or {}
        for k, label in _STATS:
            if k in st:
                stats.append((label, f"{st[k]:,}"))
        req = st.get("requests")
        if req == 0:
            sentences.append(
                "The LLM received no request in this session"
                + (
                    ": every question was decided by the scorer or by rules. "
                    "That is expected, not a broken run."
                    if by_llm == 0
                    else "; the LLM answers counted below come from an earlier session of this run."
                )
            )
        elif req is not None:
            sentences.append(
                f"In this session the judge received {req:,} request(s): "
                f"{st.get('cache_hits', 0):,} answered from its cache, the others sent to the "
                f"model in {st.get('model_calls', 0):,} batched call(s); "
                f"{st.get('invalid', 0):,} answer(s) did not fit the schema"
                + (f" ({st['retries']:,} request(s) asked again)" if "retries" in st else "")
                + f", {st.get('errors', 0):,} request(s) ended without a valid answer."
            )
    if not deciders:
        sentences.append("No question went to a model or a scorer.")
    return JudgeSection(sentences, deciders, stats)


def _documents(rep: dict[str, Any], idx: FacetIndex) -> list[DocumentRow]:
    """The per-document summaries (``check document`` and ``document`` runs) with their links.

    Reference verdicts count entries; their links select the document's result lines with that
    verdict (a line is one entry and one sentence citing it). Content verdicts count (sentence,
    entry) pairs, as the lines do.
    """
    out: list[DocumentRow] = []
    for d in rep.get("documents") or []:
        f = str(d.get("file") or "?")
        doc: Facet = ("Document", f)
        rg = d.get("reference_grounding") or {}
        cg = d.get("content_grounding") or {}
        out.append(
            DocumentRow(
                file=f,
                href=idx.link(doc),
                format=str(d.get("format") or "–"),
                error=d.get("error"),
                references=int(d.get("references") or 0),
                verdicts=[
                    (
                        k,
                        idx.count(
                            int(n), doc, ("Reference grounding", "No" if k == "Not found" else k)
                        ),
                    )
                    for k, n in rg.items()
                ],
                citing_sentences=int(d.get("citing_sentences") or 0),
                judged=int(d.get("citing_sentences_judged") or 0),
                content=[
                    (k, idx.count(int(n), doc, ("Content grounding", k))) for k, n in cg.items()
                ],
                uncited=int(d.get("uncited") or 0),
                nowhere=int(d.get("markers_pointing_nowhere") or 0),
            )
        )
    return out


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _facts(f: dict[str, Any]) -> Facts | None:
    if not f:
        return None
    return Facts(
        run_id=f.get("run_id"),
        status=f.get("status"),
        task=f.get("task"),
        started_utc=f.get("started_utc"),
        finished_utc=f.get("finished_utc"),
        code_commit=f.get("code_commit") or "unknown",
        code_dirty=f.get("code_dirty"),
        model=f.get("model"),
        model_revision=f.get("model_revision"),
        backend=f.get("backend"),
        model_details=bool(f.get("model_revision") or f.get("backend")),
        sampling=_json(f["sampling"]) if f.get("sampling") else None,
        index_path=f.get("index_path"),
        index_meta_sha256=f.get("index_meta_sha256"),
        index_works=f.get("index_works"),
        index_schema_version=f.get("index_schema_version"),
        config_sha256=f.get("config_sha256"),
        schema_sha256=f.get("schema_sha256"),
        inputs=[InputFile(i["path"], i["items"], i["sha256"]) for i in f.get("input_files", [])],
        seeds=_json(f.get("seeds")),
        versions=", ".join(f"{k} {v}" for k, v in (f.get("versions") or {}).items() if v),
        judge_stats=_json(f["judge_stats"]) if f.get("judge_stats") else None,
        tokens=_json(f["tokens"]) if f.get("tokens") else None,
    )


def _error_row(x: dict[str, Any], anchors: dict[str, str]) -> ErrorRow:
    err = x["error"]
    key = str(x["id"])
    href = f"#{anchors[key]}" if key in anchors else None
    if isinstance(err, dict):
        return ErrorRow(key, str(err.get("kind") or ""), str(err.get("message") or ""), href)
    return ErrorRow(key, "", "" if err is None else str(err), href)


def item_table(
    task: str,
    rows: Sequence[ItemRow],
    shown: Sequence[tuple[ItemRow, list[Block]]],
    idx: FacetIndex,
    info: dict[str, Any],
) -> ItemTable:
    """The item table of ``shown`` (in page order); call it last, once every link is made."""
    specs = VIEW_SPECS[task]
    used = [s for s in specs if any(s.name in r.labels for r, _ in shown)] or list(specs)
    trs = [
        TableRow(
            anchor=f"r{r.index}",
            tokens=idx.tokens(r.facets),
            key=r.key,
            outcome=r.outcome,
            cells=[Cell(r.labels.get(s.name, "–"), s.tone(r.labels.get(s.name, ""))) for s in used],
            reason=short(r.reason, REASON_CHARS),
            more=[short(m, REASON_CHARS) for m in r.more[:3]],
            details=blocks,
        )
        for r, blocks in shown
    ]
    unit = str(info.get("unit") or "item")
    primary = next(s.title for s in specs if s.name == PRIMARY_VIEW[task])
    note = ""
    if info.get("companion"):
        note = (
            f"The page shows the first {info.get('rows_per_verdict')} rows of each "
            f"{primary.lower()} verdict "
            f"({len(trs):,} of {len(rows):,}); the other {info.get('in_companion'):,} are in "
            "the companion file named here, one JSON object a line, in the same order."
        )
    return ItemTable(
        unit=unit,
        columns=[unit, *(s.column for s in used), "reason (click for details)"],
        rows=trs,
        filters=idx.filters(),
        targets=idx.targets(),
        total=len(rows),
        shown=len(trs),
        companion=info.get("companion"),
        note=note,
    )


def _anchors(shown: Sequence[tuple[ItemRow, list[Block]]]) -> dict[str, str]:
    """Row key (and item id, for its first row) → the row's anchor."""
    out: dict[str, str] = {}
    for r, _ in shown:
        out.setdefault(r.key, f"r{r.index}")
        out.setdefault(r.item_id, f"r{r.index}")
    return out


def build_page(
    rep: dict[str, Any],
    *,
    plots: bool,
    error_label: str,
    rows: Sequence[ItemRow] = (),
    shown: Sequence[tuple[ItemRow, list[Block]]] = (),
) -> ReportPage:
    """The view model of a report: its numbers, all item ``rows`` (for counts) and the ``shown`` rows with details.

    ``plots=False`` leaves out the charts and cell shades.
    """
    task = rep["task"]
    f = rep["manifest"]
    shown_keys = {r.index for r, _ in shown}
    idx = FacetIndex(
        [r.facets for r in rows],
        [r.index in shown_keys for r in rows],
        lambda g, c: value_order(task, g, c),
    )
    anchors = _anchors(shown)
    counts = f.get("counts") or {}
    rate = rep["throughput_items_per_s"]
    outcomes = rep.get("outcomes") or {}
    unit = (rep.get("item_table") or {}).get("unit", "item")
    cards = [
        Card(rep["items"], "items", "#items"),
        Card(
            outcomes.get("failed", 0),
            f"failed {unit}s",
            idx.link(("Outcome", "failed")) if outcomes.get("failed") else None,
        ),
        Card(
            rep["errors"]["total"],
            "errors",
            idx.link(("Outcome", "error")) if rep["errors"]["total"] else None,
        ),
        Card(counts.get("decided_without_model", "–"), "decided without a model"),
        Card(counts.get("seconds", "–"), "seconds (last session)"),
        Card(f"{rate:,.1f}" if rate is not None else "–", "items / s"),
    ]
    status = f.get("status")
    sections: list[Section] = [
        Section(
            "verdicts",
            "verdicts",
            "Verdicts",
            [_distribution(name, v, plots, idx) for name, v in rep["views"].items()],
            "Every count links to its rows in the item table.",
        )
    ]
    documents = _documents(rep, idx)
    if documents:
        sections.append(
            Section(
                "documents",
                "documents",
                "Documents",
                documents,
                "References count entries; content grounding counts (sentence, entry) pairs.",
            )
        )
    why = [_count_table(t, unit, idx) for t in rep.get("breakdowns") or []]
    if why:
        sections.append(Section("why", "why", "Why, counted", why))
    sections.append(Section("judge", "judge", "Who decided", _judge(rep)))
    g = rep["gold"]
    if g:
        sections.append(
            Section(
                "gold_source",
                "gold",
                "Gold labels",
                GoldSource(
                    g["source"],
                    ", ".join(f"{k}→{v}" for k, v in g["map"].items()) or "none",
                    g["category_field"],
                ),
            )
        )
        for name, v in rep["views"].items():
            if "gold" in v:
                sections.append(
                    Section(
                        "gold",
                        f"gold-{name.replace('.', '-')}",
                        f"{v['title']} vs gold",
                        _gold_section(name, v, error_label, plots, idx, anchors),
                        f"({v['unit']}s)",
                    )
                )
    err = rep["errors"]
    errors = ErrorsSection(
        err["total"],
        [(k, idx.count(n, ("Error kind", k))) for k, n in err["by_kind"].items()],
        [_error_row(x, anchors) for x in err["examples"]],
    )
    facts = _facts(f)
    timings = list((f.get("timings") or {}).items())
    info = rep.get("item_table") or {"unit": unit}
    # the item table last: every link above has registered its target by now
    table = item_table(task, rows, shown, idx, info)
    items_title = f"{'Citations' if unit == 'citation' else 'Items'}, failures first"
    sections.append(Section("items", "items", items_title, table))
    sections.append(Section("errors", "errors", "Errors", errors))
    sections.append(Section("run", "run", "Run", facts))
    if timings:
        sections.append(Section("timings", "timings", "Timings", timings))
    return ReportPage(
        title=str(f.get("run_id") or rep["run_dir"]),
        task=task,
        run_dir=rep["run_dir"],
        generated_utc=rep["generated_utc"],
        cards=cards,
        dropped_tail=rep["dropped_corrupted_tail"],
        unfinished_status=None if status in (None, "finished") else str(status),
        sections=sections,
    )


# ------------------------------------------------------------------------------ rendering


def _num(x: Any) -> str:
    """A table value: ``–`` for none, three decimals for a float."""
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.3f}"
    return str(x)


@functools.cache
def _env() -> Any:
    import jinja2

    # autoescape=True, not select_autoescape(): the templates' names end in .j2, not .html.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("citejudge.run", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=lambda x: "" if x is None else x,
    )
    env.filters["num"] = _num
    env.filters["pct"] = lambda x, digits=1: f"{x:.{digits}%}"
    return env


def render_template(name: str, **context: Any) -> str:
    """Render one of the package's page templates (autoescaped)."""
    return str(_env().get_template(name).render(**context))


def static_script() -> str:
    """The body of the page's one inline script: static text, the same on every page."""
    module = _env().get_template("_common.html.j2").module
    text = str(module.script()).strip()
    return text.removeprefix("<script>").removesuffix("</script>").strip()


def render_page(page: ReportPage) -> str:
    """The self-contained HTML page of ``page``."""
    return render_template("report.html.j2", page=page)
