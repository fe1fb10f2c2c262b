"""The HTML page of ``citejudge report``: a typed view model of the report's numbers, laid out by a template.

:func:`build_page` turns the numbers of :func:`citejudge.run.report.build_report` (the dict also
written to ``report.json``) into a :class:`ReportPage`: tables as rows, confusion matrices with
their cell shades, bar charts with their geometry in pixels. :func:`render_page` lays it out with
the Jinja2 template ``templates/report.html.j2`` (package data, autoescaped). The charts are
inline SVG drawn by the template from that geometry, so the page needs no plotting library, no
script and no external resource.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Bar",
    "BarChart",
    "Card",
    "CategoryRow",
    "ClassRow",
    "Confusion",
    "ConfusionCell",
    "ConfusionRow",
    "DistributionSection",
    "ErrorRow",
    "Example",
    "Facts",
    "GoldSection",
    "GoldSource",
    "InputFile",
    "ReportPage",
    "Share",
    "Tick",
    "build_page",
    "render_page",
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


@dataclass(frozen=True, slots=True)
class Share:
    """One label of a distribution."""

    label: str
    n: int
    share: float


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
class ReportPage:
    """Everything the template shows."""

    title: str
    task: str
    run_dir: str
    generated_utc: str
    cards: list[Card]
    dropped_tail: bool
    unfinished_status: str | None
    facts: Facts | None
    gold: GoldSource | None
    gold_sections: list[GoldSection]
    distributions: list[DistributionSection]
    errors_total: int
    errors_by_kind: list[tuple[str, int]]
    error_examples: list[ErrorRow]
    timings: list[tuple[str, Any]]


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


def _confusion(m: dict[str, Any], error_label: str, plots: bool) -> Confusion:
    labels, cm = m["labels"], m["confusion"]
    # Every label but the ERROR pseudo-label without gold rows.
    shown = [i for i, lab in enumerate(labels) if lab != error_label or sum(cm[i])]
    top = max((max(cm[i]) for i in shown), default=0)
    rows = []
    for i in shown:
        cells = []
        for j, c in enumerate(cm[i]):
            shade, dark = _shade(c, top) if plots else (None, False)
            cells.append(ConfusionCell(c, i == j, shade, dark))
        rows.append(ConfusionRow(labels[i], cells, sum(cm[i])))
    cols = [sum(r[j] for r in cm) for j in range(len(labels))]
    return Confusion(labels, rows, cols, sum(cols))


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k}: {n}" for k, n in d.items())


def _gold_section(name: str, v: dict[str, Any], error_label: str, plots: bool) -> GoldSection:
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
        Example(x["key"], x["gold"], x["pred"], x["category"] or "", x["explanation"])
        for x in m["misclassified_examples"]
    ]
    return GoldSection(
        name,
        v["title"],
        v["unit"],
        True,
        list(m["warnings"]),
        cards,
        _confusion(m, error_label, plots),
        per_class,
        categories,
        chart,
        m["misclassified"],
        examples,
    )


def _distribution(name: str, v: dict[str, Any], plots: bool) -> DistributionSection:
    dist: dict[str, int] = v["distribution"]
    total = sum(dist.values()) or 1
    shares = [Share(k, n, n / total) for k, n in dist.items()]
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


def _error_row(x: dict[str, Any]) -> ErrorRow:
    err = x["error"]
    if isinstance(err, dict):
        return ErrorRow(str(x["id"]), str(err.get("kind") or ""), str(err.get("message") or ""))
    return ErrorRow(str(x["id"]), "", "" if err is None else str(err))


def build_page(rep: dict[str, Any], *, plots: bool, error_label: str) -> ReportPage:
    """The view model of a report's numbers; ``plots=False`` leaves out the charts and cell shades."""
    f = rep["manifest"]
    counts = f.get("counts") or {}
    rate = rep["throughput_items_per_s"]
    cards = [
        Card(rep["items"], "items"),
        Card(rep["errors"]["total"], "errors"),
        Card(counts.get("decided_without_model", "–"), "decided without a model"),
        Card(counts.get("seconds", "–"), "seconds (last session)"),
        Card(f"{rate:,.1f}" if rate is not None else "–", "items / s"),
    ]
    status = f.get("status")
    g = rep["gold"]
    gold = (
        None
        if not g
        else GoldSource(
            g["source"],
            ", ".join(f"{k}→{v}" for k, v in g["map"].items()) or "none",
            g["category_field"],
        )
    )
    err = rep["errors"]
    return ReportPage(
        title=str(f.get("run_id") or rep["run_dir"]),
        task=rep["task"],
        run_dir=rep["run_dir"],
        generated_utc=rep["generated_utc"],
        cards=cards,
        dropped_tail=rep["dropped_corrupted_tail"],
        unfinished_status=None if status in (None, "finished") else str(status),
        facts=_facts(f),
        gold=gold,
        gold_sections=[
            _gold_section(name, v, error_label, plots)
            for name, v in rep["views"].items()
            if "gold" in v
        ],
        distributions=[_distribution(name, v, plots) for name, v in rep["views"].items()],
        errors_total=err["total"],
        errors_by_kind=list(err["by_kind"].items()),
        error_examples=[_error_row(x) for x in err["examples"]],
        timings=list((f.get("timings") or {}).items()),
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
def _template() -> Any:
    import jinja2

    # autoescape=True, not select_autoescape(): the template's name ends in .j2, not .html.
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
    return env.get_template("report.html.j2")


def render_page(page: ReportPage) -> str:
    """The self-contained HTML page of ``page``."""
    return str(_template().render(page=page))
