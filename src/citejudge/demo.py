"""Readable summary of a ``references`` results file (used by ``make demo``).

``python -m citejudge.demo RESULTS.jsonl`` prints one row per item: id, reference grounding,
content grounding, hallucination, abstention and the explanation.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

__all__ = ["main", "summarise"]


def summarise(path: Path) -> None:
    """Print a table of the results in ``path`` on stdout."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"citejudge references — {path}", show_lines=True, expand=True)
    for col, style in [
        ("id", "bold"),
        ("reference", ""),
        ("content", ""),
        ("halluc.", ""),
        ("abst.", ""),
        ("explanation", "dim"),
    ]:
        table.add_column(col, style=style, overflow="fold")
    counts: dict[str, int] = {}
    content: dict[str, int] = {}
    for raw in path.read_bytes().splitlines():
        line = orjson.loads(raw)
        res = line.get("result")
        if res is None:
            table.add_row(str(line["id"]), "[red]error[/red]", "", "", "", line["error"]["message"])
            counts["error"] = counts.get("error", 0) + 1
            continue
        ref = res["reference_grounding"].split(".", 1)[0]
        con = res["content_grounding"].split(".", 1)[0]
        counts[ref] = counts.get(ref, 0) + 1
        content[con] = content.get(con, 0) + 1
        colour = {"Yes": "green", "No": "red"}.get(ref, "yellow")
        why = res["reference_grounding"].split(". ", 1)[-1][:300]
        if ref == "Yes":  # the content verdict is the news when the reference holds
            why += (
                "\n[italic]content:[/italic] " + res["content_grounding"].split(". ", 1)[-1][:300]
            )
        table.add_row(
            str(line["id"]),
            f"[{colour}]{ref}[/{colour}]",
            con,
            res["hallucination"],
            res["abstention"],
            why,
        )
    console = Console(width=160)
    console.print(table)
    console.print(
        "reference grounding: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    console.print("content grounding: " + ", ".join(f"{k} {v}" for k, v in sorted(content.items())))


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m citejudge.demo RESULTS.jsonl``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m citejudge.demo RESULTS.jsonl\n")
        return 2
    summarise(Path(args[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
