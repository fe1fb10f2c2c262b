"""``citejudge models list|verify``: the model cards in ``models/`` and their weight checks.

Both commands print JSON on stdout. ``verify`` exits 1 when any file is missing or hashes to
something other than its card says (a null sha256 — user-provided weights — only needs the
file to exist; the hash found is printed so it can be written into the card).
"""

from __future__ import annotations

import argparse
import json
import os
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
    return {
        "name": card.name,
        "backend": card.backend,
        "description": card.description,
        "licence": card.licence,
        "gpu": card.gpu,
        "revision": card.revision,
        "files": len(card.files),
        "installed": not missing,
        "pinned": pinned,
        "missing": missing,
        "install": card.install,
    }


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


def cmd_serve(args: argparse.Namespace) -> int:
    """``citejudge serve --model CARD``: vLLM's OpenAI-compatible server for a card, on loopback.

    Prints one JSON line (``url``, ``pid``, ``log``) once the server is healthy and keeps it
    running until interrupted (Ctrl-C or SIGTERM stop it cleanly). A ``vllm-server`` card is
    served on the port of its ``base_url``; any ``vllm`` card on ``--port`` (default 8000).
    """
    import signal
    import tempfile
    from urllib.parse import urlparse

    from citejudge.judge.backends.vllm_server import start_server, stop_server

    card = load_card(args.model, _models_dir(args))
    if card.backend not in ("vllm", "vllm-server"):
        raise ConfigError(
            f"card {card.name!r} has backend {card.backend!r}; serve needs a vllm or vllm-server card"
        )
    port = args.port
    if port is None:
        url = card.options.get("base_url") if card.backend == "vllm-server" else None
        port = (urlparse(str(url)).port if url else None) or 8000
    if args.log:
        log = Path(args.log)
    else:
        fd, name = tempfile.mkstemp(prefix="citejudge-serve-", suffix=".log")
        os.close(fd)
        log = Path(name)
    if not 0 < int(port) < 65536:
        raise ConfigError(f"port {port} is out of range 1-65535")

    def _stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)  # before the start: a stop during start-up cleans up too
    try:
        proc = start_server(
            card, int(port), _models_dir(args), timeout=float(args.timeout), log_path=log
        )
    except KeyboardInterrupt:
        return 1
    try:
        sys.stdout.write(
            json.dumps(
                {
                    "url": f"http://127.0.0.1:{port}/v1",
                    "pid": proc.pid,
                    "card": card.name,
                    "log": str(log),
                }
            )
            + "\n"
        )
        sys.stdout.flush()
        code = int(proc.wait())
    except KeyboardInterrupt:
        # stopping: a second signal (the server's own shutdown may signal its process group)
        # must not cut the clean stop short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stop_server(proc)
        return 0
    sys.stderr.write(f"citejudge: the vLLM server exited with code {code} (log: {log})\n")
    return 1
