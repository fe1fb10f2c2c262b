"""``citejudge models list|verify``: the model cards in ``models/`` and their weight checks.

Both commands print JSON on stdout. ``verify`` exits 1 when any file is missing or hashes to
something other than its card says (a null sha256 — user-provided weights — only needs the
file to exist; the hash found is printed so it can be written into the card).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from citejudge.errors import ConfigError
from citejudge.judge.cards import ModelCard, list_cards, load_card, resolve_weight

__all__ = ["card_row", "cmd_models_list", "cmd_models_verify"]


def _models_dir(args: argparse.Namespace) -> Path | None:
    d = getattr(args, "models_dir", None)
    return Path(d) if d else None


def card_row(card: ModelCard, models_dir: Path | None = None) -> dict[str, Any]:
    """What ``models list`` shows for one card (no file is hashed)."""
    missing: list[str] = []
    for f in card.files:
        try:
            path = resolve_weight(f, models_dir)
        except ConfigError as exc:
            missing.append(exc.one_line())
            continue
        if not path.is_file():
            missing.append(str(path))
    pinned = all(f.sha256 for f in card.files)
    return {"name": card.name, "backend": card.backend, "description": card.description,
            "licence": card.licence, "gpu": card.gpu, "revision": card.revision,
            "files": len(card.files), "installed": not missing, "pinned": pinned, "missing": missing,
            "install": card.install}


def cmd_models_list(args: argparse.Namespace) -> int:
    """Print every card as a JSON list (``installed``: every file resolves on this machine)."""
    models_dir = _models_dir(args)
    rows = [card_row(c, models_dir) for c in list_cards(models_dir)]
    sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    return 0


def cmd_models_verify(args: argparse.Namespace) -> int:
    """Hash every file of the named cards (all cards when none is named); 1 if any fails."""
    from citejudge.judge.cards import verify_card

    models_dir = _models_dir(args)
    names: list[str] = list(getattr(args, "names", None) or [])
    cards = [load_card(n, models_dir) for n in names] if names else list_cards(models_dir)
    report = []
    ok = True
    for card in cards:
        rows = verify_card(card, models_dir)
        card_ok = all(r["ok"] for r in rows)
        ok = ok and card_ok
        report.append({"name": card.name, "ok": card_ok, "files": rows})
    sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0 if ok else 1
