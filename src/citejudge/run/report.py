"""``citejudge report``: metrics, tables, plots and every item of a run directory in one self-contained HTML page.

A run directory holds ``results.jsonl`` and ``manifest.json`` (see :mod:`citejudge.run.pipeline`).
Each result line becomes one or more item rows (:mod:`citejudge.run.report_items`: one per item,
one per citation for ``citation-eval``) with its verdicts, outcome, reason and facets. The rows
are read as *views*, a labeling of items (or of citations):

* ``references``: ``reference_grounding`` (the ``Yes``/``No``/``N/A`` prefix; the view gold
  labels are compared with), ``content_grounding`` and ``hallucination``;
* ``rag-audit``: ``verdict`` (gold view) and the status of each dimension;
* ``citation-eval``: ``citation_support`` (one row per citation, key ``ID#CITATION_ID``; gold
  view), ``source_verification`` (per citation) and ``alignment`` (per item; gold view).

An item whose ``result`` is null is predicted ``ERROR`` in every view, so it counts against
accuracy. Gold labels come from a JSONL/CSV/JSON file (``id,label[,category]``) or from a field
of the input items kept in ``details.input_extra`` (e.g. HALLMARK's ``label``), optionally renamed
by a mapping such as ``VALID=Yes,HALLUCINATED=No``; each row then carries its gold label as a
facet, so a confusion cell links to its rows. :mod:`citejudge.run.report_why` counts why verdicts
are what they are. This module computes the numbers and picks the rows the page shows (failures
and errors first, at most N per verdict; the rest go to a companion JSONL);
:mod:`citejudge.run.report_page` lays them out (a Jinja2 template, charts as inline SVG, one
static inline script for the filters, no external resource); ``report.json`` beside the page
holds the same numbers.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from citejudge.errors import CitejudgeError
from citejudge.run.metrics import classification_summary, label_order
from citejudge.run.report_items import (
    ERROR_LABEL,
    OUTCOMES,
    PRIMARY_VIEW,
    VIEW_SPECS,
    ItemRow,
    decider_counts,
    item_rows,
    row_details,
)
from citejudge.run.report_page import build_page, render_page
from citejudge.run.report_why import breakdowns

__all__ = [
    "DEFAULT_ROWS_PER_VERDICT",
    "ERROR_LABEL",
    "Computed",
    "Gold",
    "ReportError",
    "ReportOptions",
    "Row",
    "RunData",
    "View",
    "build_report",
    "cmd_report",
    "companion_path",
    "load_gold",
    "load_run",
    "parse_gold_map",
    "split_inline",
    "views_for",
    "views_from_rows",
]

log = logging.getLogger(__name__)

NO_CATEGORY = "(none)"
_MAX_EXAMPLES = 30


class ReportError(CitejudgeError):
    """The run directory or the gold labels cannot be read."""

    exit_code = 2


# ------------------------------------------------------------------------------ loading


@dataclass
class RunData:
    """The parsed content of a run directory."""

    path: Path
    task: str
    lines: list[dict[str, Any]]
    manifest: dict[str, Any] | None
    dropped_tail: bool = False
    line_numbers: list[int] = field(default_factory=list)
    """The ``results.jsonl`` line of each of ``lines`` (blank lines are skipped)."""

    def __post_init__(self) -> None:
        if not self.line_numbers:
            self.line_numbers = list(range(1, len(self.lines) + 1))


def load_run(run_dir: Path) -> RunData:
    """Read ``results.jsonl`` (a corrupted last line is dropped, as ``--resume`` does) and the manifest."""
    run_dir = Path(run_dir)
    results = run_dir / "results.jsonl"
    if not results.is_file():
        raise ReportError(
            f"{results} not found", hint="pass a run directory written by `citejudge run`"
        )
    lines: list[dict[str, Any]] = []
    numbers: list[int] = []
    raw = results.read_bytes().splitlines()
    dropped = False
    for n, chunk in enumerate(raw, start=1):
        if not chunk.strip():
            continue
        try:
            obj = orjson.loads(chunk)
        except orjson.JSONDecodeError as exc:
            if n == len(raw):
                log.warning("%s: dropping a corrupted last line", results)
                dropped = True
                break
            raise ReportError(
                f"{results}:{n}: not JSON ({exc})", hint="the run directory is damaged"
            ) from exc
        if not isinstance(obj, dict) or "id" not in obj:
            raise ReportError(
                f"{results}:{n}: not a result line", hint="the run directory is damaged"
            )
        lines.append(obj)
        numbers.append(n)
    manifest: dict[str, Any] | None = None
    mpath = run_dir / "manifest.json"
    if mpath.is_file():
        try:
            manifest = orjson.loads(mpath.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ReportError(
                f"{mpath}: not JSON ({exc})", hint="the run directory is damaged"
            ) from exc
    task = (manifest or {}).get("task") or ((manifest or {}).get("config") or {}).get("task")
    if not task:
        task = next((str(x["task"]) for x in lines if x.get("task")), "references")
    return RunData(run_dir, str(task), lines, manifest, dropped, numbers)


# ------------------------------------------------------------------------------ views


@dataclass
class Row:
    """One labelled unit of a view: an item, or one citation of an item."""

    key: str
    item_id: str
    pred: str
    explanation: str
    extra: dict[str, Any]
    ref: int = -1
    """Index of the :class:`~citejudge.run.report_items.ItemRow` the label comes from."""


@dataclass
class View:
    """A labeling of the run's items (or citations) read from one result field."""

    name: str
    title: str
    unit: str
    labels: list[str]
    rows: list[Row] = field(default_factory=list)
    gold: bool = False


def _check_task(run: RunData) -> None:
    if run.task not in VIEW_SPECS:
        raise ReportError(
            f"unknown task {run.task!r} in {run.path}",
            hint="expected references, rag-audit or citation-eval",
        )


def views_from_rows(task: str, rows: Sequence[ItemRow]) -> list[View]:
    """The views of a task read from its item rows: a citation view has a row per citation, an item view one per item."""
    views = [View(s.name, s.title, s.unit, list(s.labels), gold=s.gold) for s in VIEW_SPECS[task]]
    for v in views:
        seen: set[str] = set()
        for r in rows:
            if v.name not in r.labels:
                continue
            if v.unit == "item":
                if r.item_id in seen:
                    continue
                seen.add(r.item_id)
                key = r.item_id
            else:
                key = r.key
            v.rows.append(
                Row(
                    key,
                    r.item_id,
                    r.labels[v.name],
                    r.explanations.get(v.name, ""),
                    r.extra,
                    r.index,
                )
            )
    return views


def views_for(run: RunData) -> list[View]:
    """The views of a run's task, each with one row per item (or per citation)."""
    _check_task(run)
    return views_from_rows(run.task, item_rows(run.task, run.lines, run.line_numbers))


# ------------------------------------------------------------------------------ gold


def parse_gold_map(text: str | None) -> dict[str, str]:
    """``"VALID=Yes,HALLUCINATED=No"`` → ``{"VALID": "Yes", "HALLUCINATED": "No"}``."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        src, sep, dst = part.partition("=")
        if not sep or not src.strip() or not dst.strip():
            raise ReportError(
                f"bad gold mapping entry {part!r}",
                hint="write it as GOLD=PRED,GOLD=PRED, e.g. VALID=Yes,HALLUCINATED=No",
            )
        out[src.strip()] = dst.strip()
    return out


@dataclass
class Gold:
    """Gold labels: where they come from and how a row finds its label and category."""

    source: str
    mode: str
    mapping: dict[str, str]
    category_field: str | None
    lookup: Callable[[Row], tuple[str, str | None] | None]


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.lower().endswith((".jsonl", ".csv", ".json", ".tsv"))


def _read_gold_file(path: Path) -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}

    def put(rec: dict[str, Any], where: str) -> None:
        gid = rec.get("id")
        lab = rec.get("label", rec.get("gold"))
        if gid is None or lab is None or lab == "":
            raise ReportError(
                f"{where}: a gold record needs 'id' and 'label'",
                hint="gold files have columns id,label[,category]",
            )
        cat = rec.get("category")
        out[str(gid)] = (str(lab), None if cat in (None, "") else str(cat))

    suffix = path.suffix.lower()
    text = path.read_text(encoding="utf-8-sig")
    if suffix in (".csv", ".tsv"):
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        for n, rec in enumerate(reader, start=2):
            put(dict(rec), f"{path}:{n}")
    elif suffix == ".json":
        data = json.loads(text)
        if isinstance(data, dict):
            for k, v in data.items():
                put(
                    {"id": k, **v} if isinstance(v, dict) else {"id": k, "label": v}, f"{path}[{k}]"
                )
        else:
            for n, rec in enumerate(data):
                put(rec, f"{path}[{n}]")
    else:
        for n, ln in enumerate(text.splitlines(), start=1):
            if ln.strip():
                try:
                    put(json.loads(ln), f"{path}:{n}")
                except json.JSONDecodeError as exc:
                    raise ReportError(
                        f"{path}:{n}: not JSON ({exc})", hint="gold JSONL: one object a line"
                    ) from exc
    return out


def _category_of(extra: dict[str, Any], fieldname: str | None) -> str | None:
    if not fieldname:
        return None
    v = extra.get(fieldname)
    return None if v in (None, "") else str(v)


def load_gold(
    gold: str | Path,
    views: Sequence[View],
    *,
    gold_map: str | None = None,
    category: str | None = None,
) -> Gold:
    """Resolve ``gold`` (a file of ``id,label[,category]`` or an input field name) into a lookup.

    A file is keyed by item id (``ID#CITATION_ID`` for citation rows). A field name is looked up in
    each row's ``details.input_extra``; for citation rows only a file can give labels. The mapping
    renames gold labels; ``category`` names the ``input_extra`` field for per-category tables
    (default ``hallucination_type`` when any item has it).
    """
    mapping = parse_gold_map(gold_map)
    has_field = any("hallucination_type" in r.extra for v in views for r in v.rows)
    cat_field = category or ("hallucination_type" if has_field else None)
    text = str(gold)
    path = Path(text)
    if path.is_file():
        table = _read_gold_file(path)

        def from_file(row: Row) -> tuple[str, str | None] | None:
            hit = table.get(row.key)
            if hit is None:
                return None
            lab, cat = hit
            return mapping.get(lab, lab), cat if cat is not None else _category_of(
                row.extra, cat_field
            )

        if any(cat is not None for _, cat in table.values()):
            cat_field = "category column of the gold file" + (
                f" (else {cat_field})" if cat_field else ""
            )
        return Gold(str(path), "file", mapping, cat_field, from_file)
    if _looks_like_path(text):
        raise ReportError(
            f"gold file {text} not found", hint="give an existing file, or an input field name"
        )
    if not any(text in r.extra for v in views for r in v.rows):
        raise ReportError(
            f"no item has the field {text!r} in details.input_extra",
            hint="give a gold file, or the name of a field the input items carry (e.g. label)",
        )

    def from_field(row: Row) -> tuple[str, str | None] | None:
        if row.key != row.item_id or row.extra.get(text) in (None, ""):
            return None
        lab = str(row.extra[text])
        return mapping.get(lab, lab), _category_of(row.extra, cat_field)

    return Gold(f"field {text}", "field", mapping, cat_field, from_field)


# ------------------------------------------------------------------------------ numbers


def _distribution(view: View) -> dict[str, int]:
    counts = Counter(r.pred for r in view.rows)
    order = label_order(list(counts), preferred=[x for x in view.labels if x in counts])
    return {str(k): counts[str(k)] for k in order}


def _rounded(obj: Any) -> Any:
    if isinstance(obj, float):
        return round(obj, 6)
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rounded(v) for v in obj]
    return obj


def _gold_metrics(view: View, gold: Gold) -> dict[str, Any] | None:
    pairs: list[tuple[Row, str, str | None]] = []
    for r in view.rows:
        hit = gold.lookup(r)
        if hit is not None:
            pairs.append((r, hit[0], hit[1]))
    if not pairs:
        return None
    golds = [g for _, g, _ in pairs]
    preds = [r.pred for r, _, _ in pairs]
    preferred = list(view.labels) + ([ERROR_LABEL] if ERROR_LABEL in preds else [])
    labels = label_order(golds, preds, preferred=preferred)
    summary = classification_summary(golds, preds, labels, macro_exclude=[ERROR_LABEL])
    warnings: list[str] = []
    unknown = sorted(set(golds) - set(view.labels))
    if unknown:
        warnings.append(
            f"gold labels {unknown} are never predicted by this view (labels {view.labels}); "
            "map them with --gold-map, e.g. VALID=Yes,HALLUCINATED=No"
        )
    per_cat: dict[str, dict[str, Any]] = {}
    if gold.category_field or any(c is not None for _, _, c in pairs):
        groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for r, g, c in pairs:
            groups[c if c is not None else NO_CATEGORY].append((g, r.pred))
        for cat in sorted(groups, key=lambda c: (c == NO_CATEGORY, c)):
            gp = groups[cat]
            correct = sum(1 for g, p in gp if g == p)
            per_cat[cat] = {
                "n": len(gp),
                "correct": correct,
                "accuracy": correct / len(gp),
                "gold": dict(sorted(Counter(g for g, _ in gp).items())),
                "predicted": dict(sorted(Counter(p for _, p in gp).items())),
            }
    wrong = [
        {"key": r.key, "gold": g, "pred": r.pred, "category": c, "explanation": r.explanation}
        for r, g, c in pairs
        if g != r.pred
    ]
    return {
        **summary,
        "unlabelled": len(view.rows) - len(pairs),
        "per_category": per_cat,
        "misclassified": len(wrong),
        "misclassified_examples": wrong[:_MAX_EXAMPLES],
        "warnings": warnings,
    }


def _manifest_facts(m: dict[str, Any] | None) -> dict[str, Any]:
    if not m:
        return {}
    judge = m.get("judge") or None
    card = (judge or {}).get("card") or {}
    idx = m.get("index") or {}
    meta = idx.get("meta") or {}
    code = m.get("code") or {}
    return {
        "run_id": m.get("run_id"),
        "status": m.get("status"),
        "task": m.get("task"),
        "started_utc": m.get("started_utc"),
        "finished_utc": m.get("finished_utc"),
        "code_commit": code.get("commit"),
        "code_dirty": code.get("dirty"),
        "model": (card.get("name") or (judge or {}).get("name"))
        if judge
        else "none (deterministic stage only)",
        "model_revision": (judge or {}).get("revision") or card.get("revision"),
        "backend": (judge or {}).get("backend") or card.get("backend"),
        "sampling": (judge or {}).get("sampling"),
        "index_path": idx.get("path"),
        "index_meta_sha256": idx.get("meta_sha256"),
        "index_works": meta.get("works"),
        "index_schema_version": meta.get("schema_version"),
        "config_sha256": m.get("config_sha256"),
        "schema_sha256": m.get("schema_sha256"),
        "input_files": [
            {"path": f.get("path"), "sha256": f.get("sha256"), "items": f.get("items")}
            for f in (m.get("input") or {}).get("files", [])
        ],
        "versions": m.get("versions") or {},
        "seeds": m.get("seeds"),
        "counts": m.get("counts") or {},
        "timings": m.get("timings") or {},
        "tokens": m.get("tokens"),
        "judge_stats": (judge or {}).get("stats"),
        "support_scorer": (judge or {}).get("support_scorer"),
    }


def _document_rows(manifest: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Per-document summaries of a ``document`` run (the manifest's ``documents``), one row each.

    A row: file, format, error, references, their verdicts (Yes / No / Not found), citing
    sentences, how many a model judged, content verdicts of the (sentence, entry) pairs,
    uncited entries and markers that point to no entry. Runs over items have none.
    """
    rows: list[dict[str, Any]] = []
    for d in (manifest or {}).get("documents") or []:
        rows.append(
            {
                "file": d.get("file"),
                "format": d.get("format"),
                "error": d.get("error"),
                "references": d.get("references", 0),
                "reference_grounding": d.get("reference_grounding") or {},
                "citing_sentences": d.get("citing_sentences", 0),
                "citing_sentences_judged": d.get("citing_sentences_judged", 0),
                "content_grounding": d.get("content_grounding") or {},
                "uncited": d.get("uncited", 0),
                "markers_pointing_nowhere": len(d.get("unresolved") or []),
            }
        )
    return rows


def _attach_gold(views: Sequence[View], gold: Gold, rows: Sequence[ItemRow]) -> None:
    """Give each item row its gold label (and a mismatch mark) as facets, so confusion cells link to rows."""
    by_item: dict[str, list[ItemRow]] = defaultdict(list)
    for r in rows:
        by_item[r.item_id].append(r)
    for v in views:
        if not v.gold:
            continue
        for vr in v.rows:
            hit = gold.lookup(vr)
            if hit is None:
                continue
            targets = by_item[vr.item_id] if v.unit == "item" else [rows[vr.ref]]
            for t in targets:
                t.add(f"Gold: {v.title}", hit[0])
                if hit[0] != vr.pred:
                    t.add("Gold mismatch", v.title)


_TONE_ORDER = {"err": 0, "bad": 0, "na": 1, "ok": 2}


def _sort_key(task: str, row: ItemRow) -> tuple[int, int, int]:
    """Errors, then failures, then the rest; within an outcome a failing primary verdict first; then input order."""
    spec = next(s for s in VIEW_SPECS[task] if s.name == PRIMARY_VIEW[task])
    label = row.labels.get(spec.name, "")
    tone = _TONE_ORDER.get(spec.tone(label), 1)
    return OUTCOMES.index(row.outcome), tone, row.index


def split_inline(
    task: str, rows: Sequence[ItemRow], per_verdict: int | None
) -> tuple[list[ItemRow], list[ItemRow]]:
    """Rows in table order, split into those the page shows and the rest.

    The page shows the first ``per_verdict`` rows of each label of the task's primary verdict
    (reference grounding, the rag-audit verdict, citation support; ``ERROR`` included), so it
    holds at most ``per_verdict`` × (labels + 1) rows; within a label failures come first. None
    shows every row.
    """
    ordered = sorted(rows, key=lambda r: _sort_key(task, r))
    if per_verdict is None:
        return ordered, []
    seen: Counter[str] = Counter()
    inline: list[ItemRow] = []
    rest: list[ItemRow] = []
    for r in ordered:
        g = r.labels.get(PRIMARY_VIEW[task], "")
        seen[g] += 1
        (inline if seen[g] <= per_verdict else rest).append(r)
    return inline, rest


def _companion_record(task: str, row: ItemRow) -> dict[str, Any]:
    facets: dict[str, list[str]] = defaultdict(list)
    for g, v in row.facets:
        facets[g].append(v)
    return {
        "key": row.key,
        "id": row.item_id,
        "citation": row.citation,
        "line": row.line,
        "outcome": row.outcome,
        "verdicts": {s.title: row.labels[s.name] for s in VIEW_SPECS[task] if s.name in row.labels},
        "reason": row.reason,
        "more": row.more,
        "facets": dict(facets),
    }


@dataclass
class Computed:
    """The report's numbers (``report.json``), its views and its item rows."""

    report: dict[str, Any]
    views: list[View]
    rows: list[ItemRow]


def _compute(
    run: RunData, gold_spec: str | Path | None, gold_map: str | None, category: str | None
) -> Computed:
    _check_task(run)
    rows = item_rows(run.task, run.lines, run.line_numbers)
    views = views_from_rows(run.task, rows)
    gold = load_gold(gold_spec, views, gold_map=gold_map, category=category) if gold_spec else None
    if gold is not None:
        _attach_gold(views, gold, rows)
    errors = [x for x in run.lines if x.get("error") is not None]
    kinds = Counter(
        str((e.get("error") or {}).get("kind", "error"))
        if isinstance(e.get("error"), dict)
        else "error"
        for e in errors
    )
    facts = _manifest_facts(run.manifest)
    seconds = (facts.get("counts") or {}).get("seconds")
    vout: dict[str, Any] = {}
    for v in views:
        entry: dict[str, Any] = {
            "title": v.title,
            "unit": v.unit,
            "n": len(v.rows),
            "distribution": _distribution(v),
        }
        if gold is not None and v.gold:
            entry["gold"] = _gold_metrics(v, gold)
        vout[v.name] = entry
    report: dict[str, Any] = {
        "run_dir": str(run.path),
        "task": run.task,
        "generated_utc": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "items": len(run.lines),
        "errors": {
            "total": len(errors),
            "by_kind": dict(sorted(kinds.items())),
            "examples": [{"id": e["id"], "error": e.get("error")} for e in errors[:_MAX_EXAMPLES]],
        },
        "dropped_corrupted_tail": run.dropped_tail,
        "throughput_items_per_s": round(len(run.lines) / seconds, 2) if seconds else None,
        "manifest": facts,
        "gold": None
        if gold is None
        else {
            "source": gold.source,
            "mode": gold.mode,
            "map": gold.mapping,
            "category_field": gold.category_field,
        },
        "views": vout,
        "breakdowns": breakdowns(run.task, rows),
        "deciders": [
            {"question": d.question, "decider": d.decider, "n": d.n}
            for d in decider_counts(run.task, run.lines)
        ],
        "outcomes": {
            k: n
            for k, n in sorted(
                Counter(r.outcome for r in rows).items(), key=lambda kv: OUTCOMES.index(kv[0])
            )
        },
        "documents": _document_rows(run.manifest),
    }
    return Computed(_rounded(report), views, rows)


# ------------------------------------------------------------------------------ entry points

#: Rows of each primary verdict label the page shows by default; the rest go to the companion
#: JSONL. 10,000 items measured: see scripts/bench_report.py.
DEFAULT_ROWS_PER_VERDICT = 200


def companion_path(out_html: Path) -> Path:
    """The companion JSONL of a report page: the rows the page does not show."""
    return out_html.with_name(out_html.stem + "-items.jsonl")


def build_report(
    run_dir: Path,
    gold: str | Path | None = None,
    out_html: Path | None = None,
    *,
    gold_map: str | None = None,
    category: str | None = None,
    plots: bool = True,
    rows_per_verdict: int | None = DEFAULT_ROWS_PER_VERDICT,
) -> dict[str, Any]:
    """Compute the report of ``run_dir``, write the HTML page and ``report.json`` beside it, return the numbers.

    ``gold``: None, a gold file (``id,label[,category]``) or an input field name; ``gold_map``:
    label renaming such as ``VALID=Yes,HALLUCINATED=No``; ``category``: the input field for
    per-category tables (default ``hallucination_type`` when present); ``plots=False`` leaves the
    charts out (the tables carry the same numbers); ``rows_per_verdict``: rows of each label of
    the primary verdict the item table shows (None: all); the other rows are written to
    ``<page>-items.jsonl`` beside the page, which the page names.
    """
    if rows_per_verdict is not None and rows_per_verdict < 0:
        raise ReportError(
            f"rows per verdict must be 0 or more, got {rows_per_verdict}",
            hint="give a count such as 200, or leave it out",
        )
    run = load_run(Path(run_dir))
    comp = _compute(run, gold, gold_map, category)
    rep = comp.report
    out = Path(out_html) if out_html is not None else run.path / "report.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    inline, rest = split_inline(run.task, comp.rows, rows_per_verdict)
    side = companion_path(out)
    if rest:
        with side.open("wb") as fh:
            for r in rest:
                fh.write(orjson.dumps(_companion_record(run.task, r)) + b"\n")
    elif side.is_file():
        side.unlink()  # a stale file of an earlier report would name rows this page shows
    rep["item_table"] = {
        "rows": len(comp.rows),
        "unit": "citation" if run.task == "citation-eval" else "item",
        "shown": len(inline),
        "rows_per_verdict": rows_per_verdict,
        "companion": str(side) if rest else None,
        "in_companion": len(rest),
    }
    shown = [(r, row_details(run.task, r)) for r in inline]
    page = build_page(rep, plots=plots, error_label=ERROR_LABEL, rows=comp.rows, shown=shown)
    out.write_text(render_page(page), encoding="utf-8")
    rep_path = out.with_name("report.json") if out.suffix == ".html" else out.with_suffix(".json")
    rep["html"], rep["json"] = str(out), str(rep_path)
    rep_path.write_bytes(
        orjson.dumps(rep, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    )
    return rep


def _short(rep: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "html": rep["html"],
        "json": rep["json"],
        "task": rep["task"],
        "items": rep["items"],
        "errors": rep["errors"]["total"],
        "item_rows_shown": rep["item_table"]["shown"],
        "item_rows_file": rep["item_table"]["companion"],
    }
    for name, v in rep["views"].items():
        m = v.get("gold")
        if m:
            out[name] = {
                k: m[k] for k in ("n", "accuracy", "balanced_accuracy", "macro_f1", "kappa")
            }
        elif "gold" not in v and name in (
            "reference_grounding",
            "verdict",
            "citation_support",
            "alignment",
        ):
            out[name] = v["distribution"]
    return out


@dataclass(frozen=True)
class ReportOptions:
    """Options of one ``citejudge report`` (mirrors the CLI flags)."""

    run_dir: Path
    """The run directory (``results.jsonl``, ``manifest.json``)."""
    gold: str | None = None
    """A gold file (``id,label[,category]``) or the name of an input field."""
    gold_map: str | None = None
    """Gold label renaming, e.g. ``VALID=Yes,HALLUCINATED=No``."""
    category: str | None = None
    """The input field for per-category tables (default ``hallucination_type`` when present)."""
    html: Path | None = None
    """The HTML page to write (default ``RUN_DIR/report.html``); ``report.json`` goes beside it."""
    plots: bool = True
    """False: tables only."""
    rows_per_verdict: int | None = DEFAULT_ROWS_PER_VERDICT
    """Rows of each primary verdict label the item table shows; None: all."""


def cmd_report(opts: ReportOptions) -> int:
    """``citejudge report RUN_DIR [--gold FILE|FIELD] [--gold-map MAP] [--category FIELD] [--html OUT] [--rows-per-verdict N]``."""
    rep = build_report(
        opts.run_dir,
        opts.gold,
        opts.html,
        gold_map=opts.gold_map,
        category=opts.category,
        plots=opts.plots,
        rows_per_verdict=opts.rows_per_verdict,
    )
    print(json.dumps(_short(rep), ensure_ascii=False))
    return 0
