"""``citejudge compare``: agreement between two run directories, flipped items, and what differs in their setup.

Use it to check reproducibility (same setup → every field should agree) or to compare two
models (setups that differ only in the judge). Each result field is read as a label:

* ``references``: the ``Yes``/``No``/``N/A`` prefix of each of the six keys (``reference_name``
  is compared as a whole string);
* ``rag-audit``: ``verdict`` and each dimension's ``status``;
* ``citation-eval``: per citation (key ``ID#CITATION_ID``) the support and source-verification
  judgements, per item the answer alignment.

An item whose ``result`` is null has the label ``ERROR`` in every item field. The manifests are
compared key by key (volatile keys such as run id, times, counts and output paths are ignored):
a difference only in the judge (card, revision, backend, sampling, the config's model) makes a
*model comparison*; any other difference (code revision, config, index identity, input sha256,
package versions, schema) is reported as a WARNING with the differing keys.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citejudge.run.metrics import accuracy, cohen_kappa, confusion_matrix, label_order
from citejudge.run.report import ERROR_LABEL, RunData, load_run

__all__ = [
    "MODEL_KEYS",
    "CompareOptions",
    "cmd_compare",
    "compare_loaded",
    "compare_runs",
    "format_text",
    "item_labels",
    "manifest_diff",
]

_REF_KEYS = (
    "reference_name",
    "reference_grounding",
    "content_grounding",
    "hallucination",
    "abstention",
    "verification_error",
)
_DIMS = ("exists", "accurate", "complete", "formatted")

#: Manifest keys (dotted prefixes) that describe the model; a difference only here is a model comparison.
MODEL_KEYS = ("judge", "config.model", "config.sampling", "config.no_llm", "seeds.sampling")

# Keys that never change results: identity of the run itself, times, counts, paths of outputs.
_IGNORED = (
    "run_id",
    "started_utc",
    "finished_utc",
    "status",
    "counts",
    "timings",
    "tokens",
    "resumes",
    "repaired_tail",
    "config_file",
    "config_sha256",
    "judge.stats",
    "config.out",
    "config.cache_dir",
    "config.gold",
    "config.gold_map",
    "config.workers",
    "config.batch_size",
    "config.executor",
    "config.ray_address",
    "config.input",
    "config.index",
    "executor",
    "index.path",
    "index.meta_sha256",
    "index.meta.built_at",
    "index.meta.build_seconds",
    "input.files.*.path",
    "report",
    "ray",
)


def _prefix(value: Any) -> str:
    text = str(value if value is not None else "").strip()
    head = text.split(".", 1)[0].strip()
    return head if head in ("Yes", "No", "N/A") else text


def _err(line: dict[str, Any]) -> str:
    e = line.get("error")
    return f"{e.get('kind', 'error')}: {e.get('message', '')}" if isinstance(e, dict) else str(e)


def item_labels(task: str, line: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Field → (label, explanation) of one result line; citation fields are keyed ``field[citation_id]``."""
    res = line.get("result")
    out: dict[str, tuple[str, str]] = {}
    if not isinstance(res, dict):
        msg = _err(line)
        fields = (
            list(_REF_KEYS)
            if task == "references"
            else ["verdict", *(f"dimensions.{d}" for d in _DIMS)]
            if task == "rag-audit"
            else ["alignment"]
        )
        return {f: (ERROR_LABEL, msg) for f in fields}
    if task == "references":
        for k in _REF_KEYS:
            v = res.get(k)
            expl = str(v)
            if k in ("hallucination", "abstention", "verification_error"):
                expl = f"{v} — {res.get('reference_grounding', '')}"
            out[k] = (_prefix(v), expl)
    elif task == "rag-audit":
        out["verdict"] = (str(res.get("verdict")), str(res.get("summary", "")))
        dims = res.get("dimensions") or {}
        for d in _DIMS:
            dd = dims.get(d) or {}
            out[f"dimensions.{d}"] = (
                str(dd.get("status")),
                "; ".join(str(x) for x in dd.get("issues") or []),
            )
    else:
        for c in res.get("citation_evaluations") or []:
            cid = c.get("citation_id")
            sup, ver = c.get("citation_support") or {}, c.get("source_verification") or {}
            out[f"citation_support[{cid}]"] = (
                str(sup.get("judgement")),
                str(sup.get("reasoning", "")),
            )
            out[f"source_verification[{cid}]"] = (
                str(ver.get("judgement")),
                str(ver.get("reasoning", "")),
            )
        ans = res.get("answer_evaluation") or {}
        out["alignment"] = (str(ans.get("alignment_judgement")), str(ans.get("correctness", "")))
    return out


def _field_group(name: str) -> str:
    return name.split("[", 1)[0]


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(obj, dict) and obj:
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        for i, v in enumerate(obj):
            out.update(_flatten(v, f"{prefix}.{i}"))
    else:
        out[prefix] = obj
    return out


def _matches(key: str, pattern: str) -> bool:
    kp, pp = key.split("."), pattern.split(".")
    if len(kp) < len(pp):
        return False
    return all(p in ("*", k) for k, p in zip(kp, pp, strict=False))


def manifest_diff(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any]:
    """Differing manifest keys split into model keys and other keys, and the kind of comparison.

    ``kind`` is ``"reproducibility"`` (no relevant difference), ``"model comparison"`` (only the
    judge differs) or ``"setup differs"`` (anything else differs; ``warning`` lists the keys).
    """
    if a is None or b is None:
        return {
            "kind": "unknown",
            "model_keys": [],
            "other_keys": [],
            "values": {},
            "warning": "a run directory has no manifest.json: cannot tell what differs in the setup",
        }
    fa, fb = _flatten(a), _flatten(b)
    differing = sorted(
        k
        for k in set(fa) | set(fb)
        if fa.get(k) != fb.get(k) and not any(_matches(k, p) for p in _IGNORED)
    )
    model = [k for k in differing if any(_matches(k, p) for p in MODEL_KEYS)]
    # Prompt and schema hashes belong to the code, unless one run has no judge at all.
    both_judged = bool(a.get("judge")) and bool(b.get("judge"))
    if both_judged:
        model = [k for k in model if not k.startswith(("judge.prompts", "judge.schemas"))]
    other = [k for k in differing if k not in model]
    kind = "setup differs" if other else "model comparison" if model else "reproducibility"
    warning = f"the runs differ in more than the model: {', '.join(other)}" if other else None
    values = {k: [fa.get(k), fb.get(k)] for k in differing}
    return {
        "kind": kind,
        "model_keys": model,
        "other_keys": other,
        "values": values,
        "warning": warning,
    }


def _labels_by_id(
    run: RunData,
) -> tuple[list[str], dict[str, dict[str, tuple[str, str]]], dict[str, int]]:
    order: list[str] = []
    out: dict[str, dict[str, tuple[str, str]]] = {}
    where: dict[str, int] = {}
    for line, n in zip(run.lines, run.line_numbers, strict=True):
        i = str(line["id"])
        if i not in out:
            order.append(i)
        out[i] = item_labels(run.task, line)
        where[i] = n
    return order, out, where


def compare_runs(a: Path, b: Path) -> dict[str, Any]:
    """Agreement and Cohen's kappa per field, flipped items with both explanations, and the manifest diff."""
    return compare_loaded(load_run(Path(a)), load_run(Path(b)))


def compare_loaded(ra: RunData, rb: RunData) -> dict[str, Any]:
    """:func:`compare_runs` of two loaded run directories."""
    order_a, la, line_a = _labels_by_id(ra)
    order_b, lb, line_b = _labels_by_id(rb)
    common = [i for i in order_a if i in lb]
    only_a = [i for i in order_a if i not in lb]
    only_b = [i for i in order_b if i not in la]
    pairs: dict[str, list[tuple[str, str]]] = {}
    flipped: list[dict[str, Any]] = []
    for i in common:
        fields_a, fields_b = la[i], lb[i]
        changes: dict[str, Any] = {}
        for f in sorted(set(fields_a) | set(fields_b)):
            va = fields_a.get(f, ("(absent)", ""))
            vb = fields_b.get(f, ("(absent)", ""))
            pairs.setdefault(_field_group(f), []).append((va[0], vb[0]))
            if va[0] != vb[0]:
                changes[f] = {
                    "a": va[0],
                    "b": vb[0],
                    "explanation_a": va[1],
                    "explanation_b": vb[1],
                }
        if changes:
            flipped.append({"id": i, "line_a": line_a[i], "line_b": line_b[i], "fields": changes})
    fields: dict[str, Any] = {}
    for f, pl in pairs.items():
        ga, gb = [x for x, _ in pl], [y for _, y in pl]
        labels = label_order(ga, gb)
        cm = confusion_matrix(ga, gb, labels)
        kappa = cohen_kappa(cm)
        transitions = Counter(f"{x} → {y}" for x, y in pl if x != y)
        fields[f] = {
            "n": len(pl),
            "agree": sum(1 for x, y in pl if x == y),
            "agreement": round(accuracy(ga, gb), 6),
            "kappa": None if kappa != kappa else round(kappa, 6),
            "labels": [str(x) for x in labels],
            "flips": dict(sorted(transitions.items())),
        }
    if ra.task != rb.task:
        diff = manifest_diff(ra.manifest, rb.manifest)
        diff["warning"] = f"the runs are of different tasks ({ra.task} vs {rb.task})"
        diff["kind"] = "setup differs"
    else:
        diff = manifest_diff(ra.manifest, rb.manifest)
    return {
        "run_a": str(ra.path),
        "run_b": str(rb.path),
        "task": ra.task,
        "items": {"a": len(order_a), "b": len(order_b), "common": len(common)},
        "fields": fields,
        "flipped": flipped,
        "only_in_a": only_a,
        "only_in_b": only_b,
        "manifest": diff,
    }


def _short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def format_text(cmp: dict[str, Any], max_flipped: int = 50) -> str:
    """Human-readable rendering of :func:`compare_runs`'s result."""
    d = cmp["manifest"]
    lines = [
        f"compare {cmp['run_a']}  vs  {cmp['run_b']}  ({cmp['task']})",
        f"items: A {cmp['items']['a']}, B {cmp['items']['b']}, in both {cmp['items']['common']}",
    ]
    if d["kind"] == "model comparison":
        lines.append(
            "setup: model comparison (the manifests differ only in the judge: "
            + ", ".join(d["model_keys"])
            + ")"
        )
    elif d["kind"] == "reproducibility":
        lines.append("setup: identical (reproducibility check)")
    if d.get("warning"):
        lines.append(f"WARNING: {d['warning']}")
        for k in d.get("other_keys", [])[:30]:
            va, vb = d["values"].get(k, [None, None])
            lines.append(
                f"  {k}: {_short(json.dumps(va, default=str), 70)} → {_short(json.dumps(vb, default=str), 70)}"
            )
    lines.append("")
    width = max([len(f) for f in cmp["fields"]] + [5])
    lines.append(f"{'field':<{width}}  {'n':>6}  {'agree':>6}  {'agreement':>9}  {'kappa':>7}")
    for f, s in cmp["fields"].items():
        kappa = "–" if s["kappa"] is None else f"{s['kappa']:.3f}"
        lines.append(
            f"{f:<{width}}  {s['n']:>6}  {s['agree']:>6}  {s['agreement']:>9.3f}  {kappa:>7}"
        )
    if any(s["kappa"] is None for s in cmp["fields"].values()):
        lines.append("(kappa –: undefined, both runs give one and the same label throughout)")
    flipped = cmp["flipped"]
    lines.append("")
    lines.append(
        f"flipped items: {len(flipped)}"
        + (f" (first {max_flipped} shown)" if len(flipped) > max_flipped else "")
    )
    for x in flipped[:max_flipped]:
        lines.append(f"- {x['id']} (results.jsonl line {x['line_a']} in A, {x['line_b']} in B)")
        for f, c in x["fields"].items():
            lines.append(f"    {f}: {c['a']} → {c['b']}")
            lines.append(f"      A: {_short(c['explanation_a'])}")
            lines.append(f"      B: {_short(c['explanation_b'])}")
    for side in ("a", "b"):
        only = cmp[f"only_in_{side}"]
        if only:
            lines.append(
                f"only in {side.upper()} ({len(only)}): "
                + ", ".join(only[:50])
                + (" …" if len(only) > 50 else "")
            )
    if cmp.get("html"):
        lines.append(f"page: {cmp['html']}")
    return "\n".join(lines)


@dataclass(frozen=True)
class CompareOptions:
    """Options of one ``citejudge compare`` (mirrors the CLI flags)."""

    run_a: Path
    """The first run directory."""
    run_b: Path
    """The second run directory."""
    as_json: bool = False
    """Print :func:`compare_runs`'s result as one JSON object instead of the text of :func:`format_text`."""
    html: Path | None = None
    """Also write an HTML page: agreement per field, each flip count linked to its items, every flipped item with both sides' reasons and details."""


def cmd_compare(opts: CompareOptions) -> int:
    """``citejudge compare RUN_A RUN_B [--json] [--html OUT]``."""
    ra, rb = load_run(Path(opts.run_a)), load_run(Path(opts.run_b))
    cmp = compare_loaded(ra, rb)
    if opts.html is not None:
        from citejudge.run.compare_page import write_compare_page

        write_compare_page(cmp, ra, rb, Path(opts.html))
        cmp["html"] = str(opts.html)
    if opts.as_json:
        print(json.dumps(cmp, ensure_ascii=False, default=str))
    else:
        print(format_text(cmp))
    return 0
