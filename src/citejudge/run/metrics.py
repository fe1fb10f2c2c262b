"""Classification metrics for reports and run comparisons (pure functions, numpy only).

Conventions follow scikit-learn's so numbers can be checked against it: rows of a confusion
matrix are gold labels, columns are predictions, in the order of ``labels``; a precision or
recall whose denominator is zero is 0.0; balanced accuracy is the mean recall over the labels
that occur in the gold labels; Cohen's kappa is NaN when chance agreement is 1 (both labelings
use one and the same single label), where it is undefined.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "accuracy",
    "balanced_accuracy",
    "binary_stats",
    "classification_summary",
    "cohen_kappa",
    "confusion_matrix",
    "label_order",
    "macro_f1",
    "per_class",
]

IntMatrix = npt.NDArray[np.int64]


def label_order(
    *labelings: Sequence[Hashable], preferred: Sequence[Hashable] = ()
) -> list[Hashable]:
    """A fixed label order: ``preferred`` labels first, then every other label seen, sorted by ``str``."""
    seen: set[Hashable] = set()
    for labeling in labelings:
        seen.update(labeling)
    rest = sorted((x for x in seen if x not in preferred), key=str)
    return [*preferred, *rest]


def _check(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"gold and predictions differ in length ({len(gold)} vs {len(pred)})")


def confusion_matrix(
    gold: Sequence[Hashable], pred: Sequence[Hashable], labels: Sequence[Hashable] | None = None
) -> IntMatrix:
    """Counts ``m[i, j]`` of items with gold ``labels[i]`` predicted as ``labels[j]``.

    ``labels`` fixes the order (default: :func:`label_order` of both labelings); a label
    outside ``labels`` raises ``ValueError`` rather than being silently dropped.
    """
    _check(gold, pred)
    order = list(labels) if labels is not None else label_order(gold, pred)
    pos = {lab: i for i, lab in enumerate(order)}
    if len(pos) != len(order):
        raise ValueError("labels contain duplicates")
    m = np.zeros((len(order), len(order)), dtype=np.int64)
    for g, p in zip(gold, pred, strict=True):
        if g not in pos or p not in pos:
            raise ValueError(f"label {g if g not in pos else p!r} is not in labels {order!r}")
        m[pos[g], pos[p]] += 1
    return m


def accuracy(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> float:
    """Share of items whose prediction equals the gold label (0.0 for no items)."""
    _check(gold, pred)
    if not gold:
        return 0.0
    return sum(1 for g, p in zip(gold, pred, strict=True) if g == p) / len(gold)


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def per_class(cm: IntMatrix, labels: Sequence[Hashable]) -> dict[Hashable, dict[str, float]]:
    """Precision, recall, F1 and support (gold count) of every label of a confusion matrix."""
    out: dict[Hashable, dict[str, float]] = {}
    for i, lab in enumerate(labels):
        tp = float(cm[i, i])
        predicted = float(cm[:, i].sum())
        support = float(cm[i, :].sum())
        prec, rec = _div(tp, predicted), _div(tp, support)
        out[lab] = {
            "precision": prec,
            "recall": rec,
            "f1": _div(2 * prec * rec, prec + rec),
            "support": support,
            "predicted": predicted,
        }
    return out


def macro_f1(cm: IntMatrix, labels: Sequence[Hashable], exclude: Sequence[Hashable] = ()) -> float:
    """Unweighted mean F1 over the labels that occur in gold or predictions, except ``exclude``.

    ``exclude`` names pseudo-labels such as ``ERROR`` that count against recall of the gold
    label but are no class of their own.
    """
    stats = per_class(cm, labels)
    used = [
        s["f1"]
        for lab, s in stats.items()
        if (s["support"] or s["predicted"]) and lab not in exclude
    ]
    return float(np.mean(used)) if used else 0.0


def balanced_accuracy(cm: IntMatrix) -> float:
    """Mean recall over the labels present in the gold labels (rows with a non-zero sum)."""
    support = cm.sum(axis=1)
    present = support > 0
    if not present.any():
        return 0.0
    recalls = np.diag(cm)[present] / support[present]
    return float(recalls.mean())


def cohen_kappa(cm: IntMatrix) -> float:
    """Cohen's kappa of the two labelings a confusion matrix cross-tabulates.

    ``(p_o - p_e) / (1 - p_e)`` with observed agreement ``p_o`` and chance agreement ``p_e``
    from the marginals; NaN when ``p_e == 1`` (undefined) or the matrix is empty.
    """
    n = float(cm.sum())
    if n == 0:
        return float("nan")
    po = float(np.trace(cm)) / n
    pe = float((cm.sum(axis=0).astype(np.float64) * cm.sum(axis=1)).sum()) / (n * n)
    if pe >= 1.0:
        return float("nan")
    return (po - pe) / (1.0 - pe)


def binary_stats(
    gold: Sequence[Hashable], pred: Sequence[Hashable], positive: Hashable
) -> dict[str, float]:
    """TP/FP/FN/TN, precision, recall, F1 and false-positive rate for detecting ``positive``."""
    _check(gold, pred)
    tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == positive and p == positive)
    fp = sum(1 for g, p in zip(gold, pred, strict=True) if g != positive and p == positive)
    fn = sum(1 for g, p in zip(gold, pred, strict=True) if g == positive and p != positive)
    tn = len(gold) - tp - fp - fn
    prec, rec = _div(tp, tp + fp), _div(tp, tp + fn)
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": prec,
        "recall": rec,
        "f1": _div(2 * prec * rec, prec + rec),
        "fpr": _div(fp, fp + tn),
    }


def classification_summary(
    gold: Sequence[Hashable],
    pred: Sequence[Hashable],
    labels: Sequence[Hashable] | None = None,
    macro_exclude: Sequence[Hashable] = (),
) -> dict[str, Any]:
    """Every metric above for one labeling, as plain JSON-ready values (NaN becomes None)."""
    order = list(labels) if labels is not None else label_order(gold, pred)
    cm = confusion_matrix(gold, pred, order)
    kappa = cohen_kappa(cm)
    return {
        "n": len(gold),
        "labels": [str(x) for x in order],
        "accuracy": accuracy(gold, pred),
        "balanced_accuracy": balanced_accuracy(cm),
        "macro_f1": macro_f1(cm, order, macro_exclude),
        "kappa": None if np.isnan(kappa) else kappa,
        "confusion": cm.tolist(),
        "per_class": {str(k): v for k, v in per_class(cm, order).items()},
    }
