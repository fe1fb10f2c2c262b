"""Pull works from the OpenAlex API into a local snapshot (the only networked code of citejudge).

Writes the 2026 snapshot layout, so the result is read like any snapshot::

    OUT/data/jsonl/works/updated_date=<today UTC>/part_NNNN.gz   # raw Work JSON, one a line
    OUT/data/jsonl/works/manifest.json                            # entries with record counts
    OUT/data/jsonl/sources/updated_date=<today UTC>/part_NNNN.gz # the Sources the works name

The raw Work JSON is written (pyalex's ``Work`` is a ``dict`` subclass; ``dict(work)`` holds the
API's ``abstract_inverted_index`` untouched). A second pull into the same directory adds a new
part file and manifest entry; it never overwrites one.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from citejudge.errors import InputError, MissingDependencyError
from citejudge.ids import norm_doi

try:
    from isal import igzip as _gzip
except ImportError:  # pragma: no cover
    import gzip as _gzip  # type: ignore[no-redef]

__all__ = ["DOI_CHUNK", "PullReport", "parse_filter_expr", "pull_snapshot"]

log = logging.getLogger(__name__)

DOI_CHUNK = 50  # OpenAlex accepts up to 50 OR-ed values in one filter


@dataclass(frozen=True, slots=True)
class PullReport:
    """What a pull wrote."""

    out_dir: Path
    part: Path | None
    manifest: Path
    updated_date: str
    records: int
    pages: int
    requested_dois: int = 0
    missing_dois: list[str] = field(default_factory=list)
    sources: int = 0  # Source records written (venue names and aliases)
    sources_part: Path | None = None


def parse_filter_expr(expr: str) -> dict[str, Any]:
    """Turn an OpenAlex filter string into pyalex ``filter(**kwargs)`` arguments.

    ``publication_year:2020,primary_location.source.id:S1`` -> dotted keys become nested dicts.
    """
    out: dict[str, Any] = {}
    for item in (s.strip() for s in expr.split(",")):
        if not item:
            continue
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            raise InputError(
                f"bad filter clause {item!r}", hint="write key:value pairs separated by commas"
            )
        node = out
        bits = key.strip().split(".")
        for b in bits[:-1]:
            node = node.setdefault(b, {})
            if not isinstance(node, dict):
                raise InputError(f"conflicting filter keys in {expr!r}")
        node[bits[-1]] = value.strip()
    if not out:
        raise InputError(
            "empty filter expression", hint="e.g. --filter 'publication_year:2020,type:article'"
        )
    return out


def _next_part(works: Path, date: str) -> Path:
    d = works / f"updated_date={date}"
    d.mkdir(parents=True, exist_ok=True)
    n = 0
    while (d / f"part_{n:04d}.gz").exists():
        n += 1
    return d / f"part_{n:04d}.gz"


def _update_manifest(manifest: Path, part: Path, works: Path, records: int) -> None:
    entries: list[dict[str, Any]] = []
    if manifest.exists():
        try:
            old = msgspec.json.decode(manifest.read_bytes())
            if isinstance(old, dict) and isinstance(old.get("entries"), list):
                entries = [e for e in old["entries"] if isinstance(e, dict)]
        except msgspec.DecodeError:
            log.warning("replacing unreadable manifest %s", manifest)
    rel = part.relative_to(works).as_posix()
    entries = [e for e in entries if e.get("url") != rel]
    entries.append(
        {"url": rel, "meta": {"content_length": part.stat().st_size, "record_count": records}}
    )
    meta = {
        "content_length": sum(
            int(e.get("meta", {}).get("content_length", 0) or 0) for e in entries
        ),
        "record_count": sum(int(e.get("meta", {}).get("record_count", 0) or 0) for e in entries),
    }
    tmp = manifest.with_suffix(".json.tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode({"entries": entries, "meta": meta})))
    tmp.replace(manifest)


@contextlib.contextmanager
def _api_config(pyalex: Any, api_key: str | None) -> Iterator[None]:
    """Pyalex's global config set for one pull (key, retries) and restored afterwards."""
    cfg = pyalex.config
    saved = {k: cfg.get(k) for k in ("api_key", "max_retries")}
    cfg.api_key = api_key or os.environ.get("OPENALEX_API_KEY") or cfg.get("api_key")
    cfg.max_retries = max(int(cfg.get("max_retries") or 0), 3)
    try:
        yield
    finally:
        for k, v in saved.items():
            cfg[k] = v


@contextlib.contextmanager
def _atomic_part(part: Path) -> Iterator[Any]:
    """A gzip writer whose file appears at ``part`` only when the block completes."""
    tmp = part.with_name(part.name + ".tmp")
    try:
        with _gzip.open(tmp, "wb") as fh:  # type: ignore[no-untyped-call]
            yield fh
        tmp.replace(part)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _pages(query: Any, per_page: int, n_max: int | None, session: Any) -> Iterator[list[Any]]:
    pager = query.paginate(method="cursor", per_page=per_page, n_max=n_max)
    if session is not None:
        pager._session = session  # pyalex builds its own requests session; tests inject a fake
    yield from pager


def pull_snapshot(
    out_dir: Path,
    *,
    dois: list[str] | None = None,
    filter_expr: str | None = None,
    api_key: str | None = None,
    per_page: int = 200,
    max_records: int | None = None,
    session: Any = None,
    sources: bool = True,
) -> PullReport:
    """Fetch works by DOI list (chunks of 50) or by an OpenAlex filter (cursor paging) into ``out_dir``.

    ``api_key`` defaults to ``$OPENALEX_API_KEY``. ``session`` replaces pyalex's requests session
    (anything with ``get(url, auth=...)``), for tests and for custom retry/proxy set-ups. With
    ``sources`` the Source records of the venues the works name are pulled too (chunks of 50 ids):
    their alternate titles and abbreviations become the index's venue aliases.
    """
    try:
        import pyalex
    except ImportError as exc:  # pragma: no cover
        raise MissingDependencyError(
            "pyalex is not installed", hint="pip install pyalex==0.21"
        ) from exc
    if (dois is None) == (filter_expr is None):
        raise InputError(
            "give either a DOI list or a filter expression", hint="--doi-file F or --filter EXPR"
        )
    if not 1 <= per_page <= 200:
        raise InputError(f"per_page must be 1..200, got {per_page}")

    out_dir = Path(out_dir)
    works = out_dir / "data" / "jsonl" / "works"
    today = dt.datetime.now(dt.UTC).date().isoformat()
    part = _next_part(works, today)
    manifest = works / "manifest.json"

    seen: set[str] = set()
    source_ids: dict[str, None] = {}
    found_dois: set[str] = set()
    wanted: list[str] = []
    pages = 0
    records = 0
    encoder = msgspec.json.Encoder()
    with _api_config(pyalex, api_key), _atomic_part(part) as fh:

        def write(results: list[Any]) -> bool:
            nonlocal records
            for w in results:
                raw = dict(w)
                wid = raw.get("id")
                if not isinstance(wid, str) or wid in seen:
                    continue
                seen.add(wid)
                d = norm_doi(raw.get("doi"))
                if d:
                    found_dois.add(d)
                for loc in [raw.get("primary_location"), *(raw.get("locations") or [])]:
                    src = loc.get("source") if isinstance(loc, dict) else None
                    sid = src.get("id") if isinstance(src, dict) else None
                    if isinstance(sid, str) and sid:
                        source_ids.setdefault(sid.rsplit("/", 1)[-1])
                fh.write(encoder.encode(raw) + b"\n")
                records += 1
                if max_records is not None and records >= max_records:
                    return False
            return True

        if dois is not None:
            for d in dois:
                nd = norm_doi(d)
                if nd is None:
                    log.warning("not a DOI, skipped: %r", d)
                elif nd not in wanted:
                    wanted.append(nd)
            for i in range(0, len(wanted), DOI_CHUNK):
                chunk = wanted[i : i + DOI_CHUNK]
                q = pyalex.Works().filter(doi="|".join(chunk))
                go_on = True
                for page in _pages(q, min(per_page, 200), None, session):
                    pages += 1
                    go_on = write(page)
                    if not go_on:
                        break
                if not go_on:
                    break
        else:
            q = pyalex.Works().filter(**parse_filter_expr(filter_expr or ""))
            for page in _pages(q, per_page, max_records, session):
                pages += 1
                if not write(page):
                    break

    _update_manifest(manifest, part, works, records)
    nsources, spart = 0, None
    if sources and source_ids:
        nsources, spart, _ = _pull_sources(
            pyalex, list(source_ids), out_dir, today, session, api_key
        )
    missing = [d for d in wanted if d not in found_dois]
    log.info("pulled %d works in %d pages into %s", records, pages, part)
    return PullReport(
        out_dir=out_dir,
        part=part,
        manifest=manifest,
        updated_date=today,
        records=records,
        pages=pages,
        requested_dois=len(wanted),
        missing_dois=missing,
        sources=nsources,
        sources_part=spart,
    )


def _pull_sources(
    pyalex: Any, ids: list[str], out_dir: Path, today: str, session: Any, api_key: str | None
) -> tuple[int, Path, int]:
    """Fetch the Source records ``ids`` (chunks of 50) into the snapshot's ``sources`` entity."""
    root = out_dir / "data" / "jsonl" / "sources"
    part = _next_part(root, today)
    encoder = msgspec.json.Encoder()
    n = pages = 0
    with _api_config(pyalex, api_key), _atomic_part(part) as fh:
        for i in range(0, len(ids), DOI_CHUNK):
            q = pyalex.Sources().filter(openalex_id="|".join(ids[i : i + DOI_CHUNK]))
            for page in _pages(q, 200, None, session):
                pages += 1
                for rec in page:
                    fh.write(encoder.encode(dict(rec)) + b"\n")
                    n += 1
    _update_manifest(root / "manifest.json", part, root, n)
    log.info("pulled %d sources into %s", n, part)
    return n, part, pages
