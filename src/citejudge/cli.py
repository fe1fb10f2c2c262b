"""The ``citejudge`` command line: a thin layer over the library.

Library errors become one line on stderr and exit code 2; item failures become error records
in the results; progress goes to stderr, machine-readable output to stdout or files.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citejudge.errors import CitejudgeError

__all__ = ["build_parser", "main"]

log = logging.getLogger("citejudge")

EXIT_OK, EXIT_ITEMS, EXIT_USAGE = 0, 1, 2


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


# ------------------------------------------------------------------------------ index


def cmd_index_build(args: argparse.Namespace) -> int:
    """``citejudge index build SOURCE... --index PATH``."""
    from citejudge.index import build_index

    console = _stderr_console()
    sources = [Path(s) for s in args.sources]

    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("indexing: {task.completed:,} works read"),
        TimeElapsedColumn(),
        console=console,
        disable=args.quiet,
        transient=True,
    ) as bar:
        task = bar.add_task("index", total=None)
        report = build_index(
            sources,
            Path(args.index),
            fmt=args.format,
            workers=args.workers,
            update=args.update,
            progress=lambda n: bar.update(task, completed=n),
            fields=args.fields,
            since=args.since,
        )
    out = report.to_dict()
    print(json.dumps(out, ensure_ascii=False, indent=1))
    for issue in out.get("issues", [])[:20]:
        where = f"{issue.get('file')}" + (f":{issue['line']}" if issue.get("line") else "")
        console.print(
            f"[yellow]{issue.get('kind', 'error')}[/yellow] {where}: {issue.get('message')}"
        )
    n_issues = len(out.get("issues", []))
    if n_issues > 20:
        console.print(f"... and {n_issues - 20} more issues (all listed in the JSON on stdout)")
    console.print(f"indexed {out.get('works')} works into {args.index} ({n_issues} issues)")
    return report.exit_code


def cmd_index_info(args: argparse.Namespace) -> int:
    """``citejudge index info --index PATH``."""
    from citejudge.index import WorldIndex

    with WorldIndex.open(Path(args.index)) as idx:
        print(json.dumps(idx.info(), ensure_ascii=False, indent=1))
    return EXIT_OK


# ------------------------------------------------------------------------------ snapshot


def cmd_snapshot_pull(args: argparse.Namespace) -> int:
    """``citejudge snapshot pull`` — the only command that uses the network."""
    from citejudge.snapshot import pull_snapshot

    dois = None
    if args.doi_file:
        dois = [ln.strip() for ln in Path(args.doi_file).read_text().splitlines() if ln.strip()]
    report = pull_snapshot(
        Path(args.out),
        dois=dois,
        filter_expr=args.filter,
        api_key=os.environ.get("OPENALEX_API_KEY"),
        max_records=args.max_records,
        sources=not args.no_sources,
    )
    print(
        json.dumps(
            report.to_dict() if hasattr(report, "to_dict") else report.__dict__,
            default=str,
            indent=1,
        )
    )
    return EXIT_OK


# ------------------------------------------------------------------------------ check


def _check_options(args: argparse.Namespace, flags: Sequence[str]) -> dict[str, Any]:
    return {
        "index": args.index,
        "model": "none" if args.no_llm else args.model,
        "workers": args.workers,
        "fail_on_error": args.fail_on_error,
        "fulltext_dir": args.fulltext,
        "batch_size": args.batch_size,
        "cache_dir": args.cache_dir,
        **{name: getattr(args, name) for name in flags},
    }


def cmd_check(args: argparse.Namespace) -> int:
    """``citejudge check TASK INPUT --out OUT``."""
    from citejudge import api
    from citejudge.tasks.protocol import TASKS

    options = _check_options(args, TASKS[args.task].flags)
    summary = api.check_file(args.task, args.input, args.out, quiet=args.quiet, **options)
    return EXIT_ITEMS if summary.over_budget else EXIT_OK


def cmd_check_document(args: argparse.Namespace) -> int:
    """``citejudge check document FILE... --index PATH --out OUT``."""
    from citejudge import api
    from citejudge.tasks.protocol import TASKS

    options = _check_options(args, TASKS["references"].flags)
    summary = api.check_file(
        "references", None, args.out, documents=args.files, quiet=args.quiet, **options
    )
    return EXIT_ITEMS if summary.over_budget else EXIT_OK


# ------------------------------------------------------------------------------ schema


def cmd_schema(args: argparse.Namespace) -> int:
    """``citejudge schema TASK``."""
    from citejudge.schema import load_schema

    print(json.dumps(load_schema(args.task), indent=2))
    return EXIT_OK


# ------------------------------------------------------------------------------ run / report / compare


def cmd_run(args: argparse.Namespace) -> int:
    """``citejudge run --config FILE [--resume]``."""
    from citejudge import api

    cfg = api.load_run_config(
        args.config, model=args.model, out=args.out, ray_address=args.ray_address
    )
    summary = api.run_config(
        cfg, resume=args.resume, quiet=args.quiet, config_path=Path(args.config)
    )
    print(
        json.dumps({"out": str(cfg.out), **summary.to_dict(), "over_budget": summary.over_budget})
    )
    return EXIT_ITEMS if summary.over_budget else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    """``citejudge report RUN_DIR [--gold FILE|FIELD]``."""
    from citejudge.run.report import DEFAULT_ROWS_PER_VERDICT, ReportOptions
    from citejudge.run.report import cmd_report as run_report

    return run_report(
        ReportOptions(
            run_dir=Path(args.run_dir),
            gold=args.gold,
            gold_map=args.gold_map,
            category=args.category,
            html=Path(args.html) if args.html else None,
            plots=not args.no_plots,
            rows_per_verdict=DEFAULT_ROWS_PER_VERDICT
            if args.rows_per_verdict is None
            else args.rows_per_verdict or None,
        )
    )


def cmd_compare(args: argparse.Namespace) -> int:
    """``citejudge compare RUN_A RUN_B``."""
    from citejudge.run.compare import CompareOptions
    from citejudge.run.compare import cmd_compare as run_compare

    return run_compare(
        CompareOptions(
            run_a=Path(args.run_a),
            run_b=Path(args.run_b),
            as_json=args.json,
            html=Path(args.html) if args.html else None,
        )
    )


# ------------------------------------------------------------------------------ models


def cmd_models_list(args: argparse.Namespace) -> int:
    """``citejudge models list``."""
    from citejudge.judge.models_cli import cmd_models_list as run

    return run(args)


def cmd_models_verify(args: argparse.Namespace) -> int:
    """``citejudge models verify [NAME...]``."""
    from citejudge.judge.models_cli import cmd_models_verify as run

    return run(args)


def cmd_serve(args: argparse.Namespace) -> int:
    """``citejudge serve --model CARD``."""
    from citejudge.judge.models_cli import cmd_serve as run

    return run(args)


# ------------------------------------------------------------------------------ parser


def _fraction_or_bool(value: str) -> float | bool:
    low = value.lower()
    if low in {"true", "yes"}:
        return True
    if low in {"false", "no"}:
        return False
    try:
        f = float(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError("expected true, false or a fraction such as 0.05") from exc
    if not 0 <= f <= 1:
        raise argparse.ArgumentTypeError("a fraction must be between 0 and 1")
    return f


def _non_negative_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError("expected a whole number such as 200") from exc
    if n < 0:
        raise argparse.ArgumentTypeError("expected 0 or more")
    return n


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line and exit 2, as the CLI contract says
        self.print_usage(sys.stderr)
        sys.stderr.write(f"citejudge: error: {message} (hint: see --help)\n")
        raise SystemExit(EXIT_USAGE)


#: Help of the task-specific ``check`` flags (``TaskSpec.flags`` name them).
_TASK_FLAG_HELP = {
    "strict_identifiers": "a stated arXiv id, PMID or PMCID that the matched work's records lack is a mismatch "
    "(default: reported as unverified when no other work has it)",
    "strict_venues": "a cited venue that the matched work's records cannot confirm (they are all "
    "repository or preprint-server copies), and the published version's year cited with it, is a "
    "mismatch (default: reported as unverified)",
    "no_gold": "items have no gold answer: skip correctness",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command (tests check each has help)."""
    from citejudge.tasks.protocol import TASKS

    p = _Parser(prog="citejudge", description="Offline, reproducible evaluator of citations.")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    idx = sub.add_parser("index", help="build or inspect a world index")
    isub = idx.add_subparsers(dest="index_command", required=True, parser_class=_Parser)
    b = isub.add_parser(
        "build",
        help="build (or update) an index from snapshot dirs, JSONL, BibTeX or CSL-JSON",
        description="Build an embedded index. SOURCE: an OpenAlex snapshot directory (legacy or "
        "2026 layout), .jsonl/.jsonl.gz of Work objects, .bib, or CSL-JSON .json. "
        "Exit 0 when something was indexed, 1 when nothing could be.",
    )
    b.add_argument("sources", nargs="+", metavar="SOURCE")
    b.add_argument(
        "--index", required=True, metavar="PATH", help="index directory to create or update"
    )
    b.add_argument(
        "--format",
        default="auto",
        choices=["auto", "openalex", "bibtex", "csl"],
        help="source format",
    )
    b.add_argument("--workers", type=int, default=2, help="parsing processes (default 2)")
    b.add_argument(
        "--update",
        action="store_true",
        help="upsert into an existing index instead of replacing it",
    )
    b.add_argument(
        "--since",
        metavar="DATE",
        default=None,
        help="with --update: read only snapshot partitions and id files dated after DATE "
        "(default: the newest snapshot date the index holds)",
    )
    b.add_argument(
        "--fields",
        default="all",
        choices=["all", "matching"],
        help="records to keep: all (default) or matching (no abstracts: reference grounding only, "
        "about half the size; content grounding then reports that the index has no text)",
    )
    b.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    b.set_defaults(func=cmd_index_build)
    i = isub.add_parser("info", help="print index metadata as JSON")
    i.add_argument("--index", required=True, metavar="PATH")
    i.set_defaults(func=cmd_index_info)

    snap = sub.add_parser("snapshot", help="prepare a world on a connected machine")
    ssub = snap.add_subparsers(dest="snapshot_command", required=True, parser_class=_Parser)
    pull = ssub.add_parser(
        "pull",
        help="download a snapshot subset from the OpenAlex API (the only networked command)",
        description="Writes the OpenAlex 2026 JSONL layout under --out. API key from OPENALEX_API_KEY.",
    )
    g = pull.add_mutually_exclusive_group(required=True)
    g.add_argument("--doi-file", help="file with one DOI per line")
    g.add_argument(
        "--filter", help="OpenAlex filter expression, e.g. 'publication_year:2020,type:article'"
    )
    pull.add_argument("--out", required=True, help="output directory")
    pull.add_argument("--max-records", type=int, default=None, help="stop after this many works")
    pull.add_argument(
        "--no-sources",
        action="store_true",
        help="do not pull the Source records of the works' venues (their alternate titles are "
        "the index's venue aliases)",
    )
    pull.set_defaults(func=cmd_snapshot_pull)

    chk = sub.add_parser("check", help="evaluate items of one task; writes one JSON line per item")
    csub = chk.add_subparsers(dest="task", required=True, parser_class=_Parser)
    checks: list[tuple[_Parser, tuple[str, ...]]] = []
    for task, spec in TASKS.items():
        c = csub.add_parser(task, help=spec.help, description=spec.help)
        c.add_argument(
            "input",
            metavar="INPUT",
            help="items: .jsonl, .json, .csv (and .bib, .ris for references)",
        )
        c.add_argument("--index", metavar="PATH", help="world index from 'citejudge index build'")
        c.set_defaults(func=cmd_check, task=task)
        checks.append((c, spec.flags))
    doc = csub.add_parser(
        "document",
        help="check whole documents: every reference, every citing sentence",
        description="Read each document (PDF, .tex with its parts and its .bib/.bbl, JATS .xml, .html, "
        ".docx, .odt, .md, .txt, or a .bib alone: a reference list with no text; an archive such as "
        "an arXiv source .tar.gz stands for the documents in it), find "
        "its reference list and the sentences that cite it, and run the references task on "
        "every (entry, citing sentence) pair and on every uncited entry. Writes the results to "
        "OUT, the extracted items to OUT.items.jsonl (re-runnable with 'check references') and "
        "a summary per document to OUT.manifest.json and stderr. A document that cannot be "
        "read, and a marker that points to no entry, are error lines naming the file.",
    )
    doc.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="documents to check; a folder or an archive (.tar.gz, .zip…) stands for the "
        "documents in it (a LaTeX document's parts, figures and .bib are its own, not documents)",
    )
    doc.add_argument(
        "--index", required=True, metavar="PATH", help="world index from 'citejudge index build'"
    )
    doc.set_defaults(func=cmd_check_document, task="references")
    checks.append((doc, TASKS["references"].flags))
    for cp, flags in checks:
        c = cp
        c.add_argument("--out", required=True, metavar="OUT", help="results JSONL ('-' for stdout)")
        c.add_argument(
            "--model", metavar="NAME", help="model card in models/ (default: cpu-default)"
        )
        c.add_argument(
            "--no-llm", action="store_true", help="deterministic stages only; nothing is judged"
        )
        c.add_argument(
            "--workers", type=int, default=2, help="processes for the deterministic stage"
        )
        c.add_argument(
            "--fail-on-error",
            type=_fraction_or_bool,
            default=False,
            metavar="BOOL|FRACTION",
            help="exit 1 if any (true) or more than this fraction of items fail (default: false)",
        )
        c.add_argument(
            "--fulltext",
            metavar="DIR",
            help="folder of local full texts (<doi or W-id>.txt/.md/.html/.pdf) and saved web pages (a "
            "source store: index.jsonl of url/file lines); a web page cited by its address alone "
            "is judged against its saved text",
        )
        c.add_argument(
            "--batch-size", type=int, default=64, help="items per judge batch (default 64)"
        )
        c.add_argument(
            "--cache-dir",
            metavar="DIR",
            help="judge request cache folder (default: beside OUT); citation-eval keeps the "
            "quote index of its source store in DIR/source-index (default: "
            "~/.cache/citejudge/source-index)",
        )
        c.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        for name in flags:
            c.add_argument(
                "--" + name.replace("_", "-"),
                dest=name,
                action="store_true",
                help=_TASK_FLAG_HELP[name],
            )

    r = sub.add_parser(
        "run",
        help="resumable, reproducible batch run from a config file",
        description="Run a task over input shards into a run directory (results.jsonl, "
        "errors.jsonl, manifest.json, report.html). See configs/ for examples.",
    )
    r.add_argument("--config", required=True, metavar="FILE", help="run config YAML")
    r.add_argument(
        "--resume", action="store_true", help="continue an interrupted run in the same directory"
    )
    r.add_argument(
        "--model", metavar="NAME", help="override the config's model card ('none': no model)"
    )
    r.add_argument("--out", metavar="DIR", help="override the config's run directory")
    r.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="executor ray: join this cluster ('auto' or HOST:PORT; default: start a local Ray)",
    )
    r.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    r.set_defaults(func=cmd_run)

    rep = sub.add_parser(
        "report",
        help="metrics and plots of a run directory (self-contained HTML)",
        description="Summarise a run; with --gold, accuracy/F1/kappa, confusion matrices and "
        "per-category tables.",
    )
    rep.add_argument("run_dir", metavar="RUN_DIR")
    rep.add_argument(
        "--gold",
        metavar="FILE|FIELD",
        help="gold labels: a JSONL/CSV file (id,label[,category]) "
        "or an input field name such as 'label'",
    )
    rep.add_argument(
        "--gold-map", metavar="MAP", help="label mapping, e.g. VALID=Yes,HALLUCINATED=No"
    )
    rep.add_argument(
        "--category",
        metavar="FIELD",
        help="field for per-category tables (e.g. hallucination_type)",
    )
    rep.add_argument("--html", metavar="OUT", help="output HTML (default RUN_DIR/report.html)")
    rep.add_argument("--no-plots", action="store_true", help="tables only (no charts)")
    rep.add_argument(
        "--rows-per-verdict",
        metavar="N",
        type=_non_negative_int,
        default=None,
        help="item table: show the first N rows of each verdict label (failures and errors "
        "first); the rest go to PAGE-items.jsonl beside the page (default 200; 0: every row)",
    )
    rep.set_defaults(func=cmd_report)

    cmpp = sub.add_parser(
        "compare", help="agreement, kappa and flipped items between two run directories"
    )
    cmpp.add_argument("run_a", metavar="RUN_A")
    cmpp.add_argument("run_b", metavar="RUN_B")
    cmpp.add_argument("--json", action="store_true", help="machine-readable output")
    cmpp.add_argument(
        "--html",
        metavar="OUT",
        help="also write an HTML page: agreement per field, each flip count linked to its "
        "items, each flipped item with both runs' reasons and details",
    )
    cmpp.set_defaults(func=cmd_compare)

    mod = sub.add_parser("models", help="model cards in models/: list them, verify weight sha256s")
    msub = mod.add_subparsers(dest="models_command", required=True, parser_class=_Parser)
    ml = msub.add_parser(
        "list", help="list model cards as JSON (name, backend, licence, whether files resolve)"
    )
    ml.set_defaults(func=cmd_models_list)
    mv = msub.add_parser(
        "verify", help="check the sha256 of every weight file of the cards (exit 1 on mismatch)"
    )
    mv.add_argument("names", nargs="*", metavar="NAME", help="cards to verify (default: all)")
    for m in (ml, mv):
        m.add_argument(
            "--models-dir",
            metavar="DIR",
            help="folder of model cards (default: models/ or $CITEJUDGE_MODELS)",
        )
    mv.set_defaults(func=cmd_models_verify)

    srv = sub.add_parser(
        "serve",
        help="run vLLM's OpenAI-compatible server for a model card on 127.0.0.1",
        description="Start vLLM's OpenAI-compatible server for a vllm or vllm-server card on "
        "loopback, print its URL as JSON once healthy, stop on Ctrl-C/SIGTERM. "
        "Point a vllm-server card (base_url) at it for `check`/`run`.",
    )
    srv.add_argument(
        "--model", required=True, metavar="CARD", help="card to serve (backend vllm or vllm-server)"
    )
    srv.add_argument(
        "--port", type=int, default=None, help="port (default: the card's base_url port, else 8000)"
    )
    srv.add_argument(
        "--timeout", type=float, default=600.0, help="seconds to wait for the server to be healthy"
    )
    srv.add_argument(
        "--log", metavar="FILE", help="server log file (default: a temporary file, printed)"
    )
    srv.add_argument(
        "--models-dir",
        metavar="DIR",
        help="folder of model cards (default: models/ or $CITEJUDGE_MODELS)",
    )
    srv.set_defaults(func=cmd_serve)

    sch = sub.add_parser("schema", help="print the JSON Schema of a task's result")
    sch.add_argument("task", choices=[*TASKS, "output_line"])
    sch.set_defaults(func=cmd_schema)
    return p


def _silence_libraries() -> None:
    """``-q``: the model libraries' own progress bars and notices stay off stderr too."""
    for var, value in (
        ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
        ("TRANSFORMERS_VERBOSITY", "error"),
        ("TQDM_DISABLE", "1"),
        ("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1"),
    ):
        os.environ.setdefault(var, value)
    for name in ("transformers", "sentence_transformers", "huggingface_hub", "accelerate", "vllm"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if "transformers" in sys.modules:  # already imported: switch its bars off directly
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``citejudge`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # bibtexparser logs every block it rejects; citejudge reports those itself, with file and line.
    logging.getLogger("bibtexparser").setLevel(logging.DEBUG if args.verbose else logging.CRITICAL)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if getattr(args, "quiet", False):
        _silence_libraries()
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except CitejudgeError as exc:
        sys.stderr.write(f"citejudge: {exc.one_line()}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("citejudge: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
