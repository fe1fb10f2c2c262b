"""Find the parts of a world source and read them.

Accepted sources:

* OpenAlex snapshot, legacy layout: ``<root>/data/works/updated_date=YYYY-MM-DD/part_NNN.gz``,
  ``<root>/data/works/manifest`` and ``<root>/data/merged_ids/works/*.csv.gz``
  (``merge_date,id,merge_into_id``).
* OpenAlex snapshot, 2026 layout: ``<root>/data/jsonl/works/updated_date=*/part_NNNN.gz`` with
  ``manifest.json`` and ``deleted_ids.csv`` (anywhere under the root or the works dir).
* For both, SOURCE may be the snapshot root, its ``data`` dir or the ``works`` dir itself.
* Plain files: ``.jsonl`` / ``.jsonl.gz`` / ``.json`` (JSON array or API page ``{"results": [...]}``)
  of OpenAlex Works or CSL items, ``.bib``; or a directory holding such files.

Parts are ordered by (updated_date, name) so that later partitions come later: the index upserts
by id, so the newest copy of a work wins.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec

from citejudge.errors import InputError
from citejudge.ids import norm_openalex
from citejudge.readers.openalex import (
    OpenAlexAbstractError,
    OpenAlexRecordError,
    convert_openalex,
    decode_openalex_line,
)
from citejudge.records import ReadIssue, Redirect, Work
from citejudge.snapshot.bibworld import read_bibtex, read_csl

try:  # isal's igzip is a drop-in, several times faster gzip
    from isal import igzip as _gzip
except ImportError:  # pragma: no cover - isal is a dependency; fallback kept for safety
    import gzip as _gzip  # type: ignore[no-redef]

__all__ = [
    "FORMATS",
    "Part",
    "SourcePlan",
    "check_counts",
    "open_maybe_gzip",
    "plan_source",
    "read_part",
    "read_redirects",
    "read_venue_names",
]

log = logging.getLogger(__name__)

FORMATS = ("auto", "openalex", "bibtex", "csl")
_DATE_DIR = re.compile(r"^updated_date=(\d{4}-\d{2}-\d{2})$")
_OTHER_ENTITIES = {
    "authors",
    "sources",
    "institutions",
    "concepts",
    "publishers",
    "funders",
    "topics",
    "fields",
    "subfields",
    "domains",
    "keywords",
    "awards",
    "locations",
}
_WORLD_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".bib", ".gz")


@dataclass(frozen=True, slots=True)
class Part:
    """One unit of reading: a file, or one gzip partition of a snapshot."""

    path: Path
    format: str  # "openalex" | "bibtex" | "csl"
    updated_date: str | None = None
    expected_records: int | None = None  # what the manifest says, when there is one


@dataclass(frozen=True, slots=True)
class SourcePlan:
    """What a source holds and how to read it; built by :func:`plan_source` without reading records."""

    source: Path
    format: str
    layout: str  # "openalex-legacy" | "openalex-2026" | "files"
    parts: list[Part]
    snapshot_dates: list[str] = field(default_factory=list)
    manifest: Path | None = None
    manifest_sha256: str | None = None
    manifest_records: int | None = None  # the manifest's total record count
    redirect_files: list[Path] = field(default_factory=list)  # merged_ids CSVs
    deleted_files: list[Path] = field(default_factory=list)  # deleted_ids CSVs
    issues: list[ReadIssue] = field(default_factory=list)  # plan-level problems (manifest vs disk)
    venue_files: list[Path] = field(
        default_factory=list
    )  # the Sources entity's partitions (venue names)

    @property
    def expected_records(self) -> int | None:
        """Sum of the manifest's per-part counts, or None when some part has no count."""
        counts = [p.expected_records for p in self.parts]
        if not counts or any(c is None for c in counts):
            return self.manifest_records
        return sum(c for c in counts if c is not None)


def open_maybe_gzip(path: Path) -> IO[bytes]:
    """Open ``path`` for binary reading, decompressing gzip (by magic bytes) with isal when present."""
    with path.open("rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        gz: IO[bytes] = _gzip.open(path, "rb")  # type: ignore[no-untyped-call]  # noqa: SIM115
        return gz
    return path.open("rb")


def _sniff_json_format(path: Path) -> str:
    """'openalex' or 'csl' from the first bytes of a JSON/JSONL file."""
    try:
        with open_maybe_gzip(path) as fh:
            head = fh.read(65536)
    except (OSError, EOFError, zlib.error):
        return "openalex"
    text = head.decode("utf-8", errors="replace")
    if "openalex.org/W" in text or '"authorships"' in text or '"results"' in text:
        return "openalex"
    if '"issued"' in text or '"container-title"' in text or '"family"' in text:
        return "csl"
    return "openalex"


def _file_part(path: Path, fmt: str) -> Part:
    name = path.name.lower()
    if fmt == "auto":
        if name.endswith(".bib"):
            fmt = "bibtex"
        elif name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz", ".gz")):
            fmt = _sniff_json_format(path)
        else:
            raise InputError(
                f"cannot tell the format of {path}",
                hint="use .jsonl/.jsonl.gz/.json for OpenAlex or CSL-JSON, .bib for BibTeX, or pass --format",
            )
    m = _DATE_DIR.match(path.parent.name)
    return Part(path=path, format=fmt, updated_date=m.group(1) if m else None)


def _find_works_dir(path: Path) -> tuple[Path, str] | None:
    """The works dir of a snapshot given its root, data dir or works dir, with the layout name."""
    candidates = [
        (path / "data" / "jsonl" / "works", "openalex-2026"),
        (path / "jsonl" / "works", "openalex-2026"),
        (path / "data" / "works", "openalex-legacy"),
        (path / "works", "openalex-legacy"),
        (path, "openalex-legacy"),
    ]
    for cand, layout in candidates:
        if cand.is_dir() and any(_DATE_DIR.match(p.name) for p in cand.iterdir() if p.is_dir()):
            in_jsonl = cand == path and path.parent.name == "jsonl"
            if in_jsonl or ((cand / "manifest.json").exists() and not (cand / "manifest").exists()):
                layout = "openalex-2026"
            return cand, layout
    return None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _manifest_key(url: str) -> str:
    """``updated_date=X/part_000.gz`` from a manifest url (s3://, https://, or relative)."""
    bits = url.rstrip("/").split("/")
    return "/".join(bits[-2:])


def _read_manifest(path: Path) -> tuple[dict[str, int | None], int | None, list[ReadIssue]]:
    try:
        obj: Any = msgspec.json.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError) as exc:
        return {}, None, [ReadIssue(file=str(path), message=f"unreadable manifest: {exc}")]
    counts: dict[str, int | None] = {}
    entries = obj.get("entries") if isinstance(obj, dict) else obj
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict) or not isinstance(e.get("url"), str):
            continue
        meta = e.get("meta") if isinstance(e.get("meta"), dict) else e
        rc = meta.get("record_count") if isinstance(meta, dict) else None
        counts[_manifest_key(e["url"])] = rc if isinstance(rc, int) else None
    total = None
    if isinstance(obj, dict) and isinstance(obj.get("meta"), dict):
        t = obj["meta"].get("record_count")
        total = t if isinstance(t, int) else None
    return counts, total, []


def _aux_files(roots: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    merged: set[Path] = set()
    deleted: set[Path] = set()
    for root in roots:
        if not root.is_dir():
            continue
        for p in root.rglob("*.csv*"):
            if not p.is_file() or not p.name.endswith((".csv", ".csv.gz")):
                continue
            rel = {part.lower() for part in p.relative_to(root).parts[:-1]}
            if rel & _OTHER_ENTITIES:
                continue
            if "merged_ids" in rel:
                merged.add(p)
            elif p.name.startswith("deleted_ids"):
                deleted.add(p)
    return sorted(merged), sorted(deleted)


def _plan_snapshot(src: Path, works: Path, layout: str, fmt: str) -> SourcePlan:
    files = []
    for d in works.iterdir():
        m = _DATE_DIR.match(d.name)
        if not (m and d.is_dir()):
            continue
        for f in d.iterdir():
            if f.is_file() and f.name.endswith(_WORLD_SUFFIXES) and not f.name.startswith("."):
                files.append((m.group(1), f.name, f))
    files.sort(key=lambda t: (t[0], t[1]))
    manifest = next((m for m in (works / "manifest.json", works / "manifest") if m.is_file()), None)
    counts: dict[str, int | None] = {}
    total: int | None = None
    issues: list[ReadIssue] = []
    if manifest is not None:
        counts, total, issues = _read_manifest(manifest)
    parts = []
    on_disk = set()
    for date, name, f in files:
        key = f"updated_date={date}/{name}"
        on_disk.add(key)
        parts.append(
            Part(
                path=f,
                format="openalex" if fmt == "auto" else fmt,
                updated_date=date,
                expected_records=counts.get(key),
            )
        )
    if manifest is not None:
        for key in sorted(set(counts) - on_disk):
            issues.append(
                ReadIssue(
                    file=str(manifest),
                    kind="warning",
                    message=f"manifest lists {key} but the file is missing",
                )
            )
        for key in sorted(on_disk - set(counts)):
            issues.append(
                ReadIssue(
                    file=str(manifest), kind="warning", message=f"{key} is not in the manifest"
                )
            )
    # aux files: under the given source and under the snapshot root the layout implies
    roots = {src, works}
    up = works.parent  # data (legacy) or jsonl (2026)
    if up.name == "jsonl":
        roots.add(up)
        up = up.parent
    if up.name == "data":
        roots.add(up)
        roots.add(up.parent)
    merged, deleted = _aux_files(sorted(roots))
    dates = sorted({p.updated_date for p in parts if p.updated_date})
    sources_dir = works.parent / "sources"
    venue_files = sorted(
        f
        for d in (sources_dir.iterdir() if sources_dir.is_dir() else [])
        if d.is_dir() and _DATE_DIR.match(d.name)
        for f in d.iterdir()
        if f.is_file() and f.name.endswith(_WORLD_SUFFIXES) and not f.name.startswith(".")
    )
    return SourcePlan(
        source=src,
        format=parts[0].format if parts else "openalex",
        layout=layout,
        parts=parts,
        snapshot_dates=dates,
        manifest=manifest,
        manifest_sha256=_sha256(manifest) if manifest is not None else None,
        manifest_records=total,
        redirect_files=merged,
        deleted_files=deleted,
        issues=issues,
        venue_files=venue_files,
    )


def plan_source(path: Path, fmt: str = "auto") -> SourcePlan:
    """Discover what ``path`` holds (snapshot layout, plain files) without reading records.

    Raises :class:`~citejudge.errors.InputError` for a missing path, an unknown format or a
    directory with nothing to read.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}", hint=f"use one of {', '.join(FORMATS)}")
    path = Path(path)
    if not path.exists():
        raise InputError(
            f"world source {path} does not exist",
            hint="give an OpenAlex snapshot dir, a .jsonl(.gz)/.json file or a .bib file",
        )
    if path.is_file():
        part = _file_part(path, fmt)
        return SourcePlan(
            source=path,
            format=part.format,
            layout="files",
            parts=[part],
            snapshot_dates=[part.updated_date] if part.updated_date else [],
        )
    found = _find_works_dir(path)
    if found is not None:
        works, layout = found
        plan = _plan_snapshot(path, works, layout, fmt)
        if plan.parts:
            return plan
    files = sorted(
        p
        for p in path.rglob("*")
        if p.is_file()
        and p.name.lower().endswith(_WORLD_SUFFIXES)
        and not p.name.lower().endswith(".csv.gz")
        and not p.name.startswith((".", "manifest"))
        and "merged_ids" not in p.parts
    )
    parts = [_file_part(p, fmt) for p in files]
    if not parts:
        raise InputError(
            f"no world files in {path}",
            hint="expected an OpenAlex snapshot (data/works/updated_date=*/part_*.gz or "
            "data/jsonl/works/...), .jsonl(.gz)/.json files of works, or .bib files",
        )
    parts.sort(key=lambda p: (p.updated_date or "", str(p.path)))
    formats = {p.format for p in parts}
    return SourcePlan(
        source=path,
        format=parts[0].format if len(formats) == 1 else "mixed",
        layout="files",
        parts=parts,
        snapshot_dates=sorted({p.updated_date for p in parts if p.updated_date}),
    )


def check_counts(plan: SourcePlan, read: dict[Path, int]) -> list[ReadIssue]:
    """Warnings for parts whose record count differs from the manifest's ("manifest says N, read M")."""
    out = []
    for p in plan.parts:
        if p.expected_records is not None and p.path in read and read[p.path] != p.expected_records:
            out.append(
                ReadIssue(
                    file=str(p.path),
                    kind="warning",
                    message=f"manifest says {p.expected_records} records, read {read[p.path]}",
                )
            )
    return out


# --- reading ---------------------------------------------------------------------------------


def _read_openalex_jsonl(part: Part, abstract: bool = True) -> Iterator[Work | ReadIssue]:
    src = str(part.path)
    n = 0
    try:
        with open_maybe_gzip(part.path) as fh:
            for raw in fh:
                n += 1
                line = raw.strip()
                if not line:
                    continue
                try:
                    yield decode_openalex_line(line, src, abstract=abstract)
                except OpenAlexAbstractError as exc:
                    yield ReadIssue(file=src, line=n, message=str(exc), kind="warning")
                    yield exc.work
                except OpenAlexRecordError as exc:
                    yield ReadIssue(file=src, line=n, message=str(exc))
    except (EOFError, OSError, zlib.error) as exc:
        yield ReadIssue(
            file=src,
            line=n or None,
            message=f"truncated or corrupt file after line {n}: {type(exc).__name__}: {exc}",
        )


def _read_openalex_json(part: Part) -> Iterator[Work | ReadIssue]:
    src = str(part.path)
    try:
        with open_maybe_gzip(part.path) as fh:
            data = fh.read()
        obj: Any = msgspec.json.decode(data)
    except (EOFError, OSError, zlib.error) as exc:
        yield ReadIssue(file=src, message=f"truncated or corrupt file: {exc}")
        return
    except msgspec.DecodeError:
        # maybe JSON Lines saved as .json
        yield from _read_openalex_jsonl(part)
        return
    if isinstance(obj, dict) and isinstance(obj.get("results"), list):
        items = obj["results"]
    elif isinstance(obj, list):
        items = obj
    else:
        items = [obj]
    for i, item in enumerate(items):
        try:
            yield convert_openalex(item, src)
        except OpenAlexAbstractError as exc:
            yield ReadIssue(file=src, message=f"item {i}: {exc}", kind="warning")
            yield exc.work
        except OpenAlexRecordError as exc:
            yield ReadIssue(file=src, message=f"item {i}: {exc}")


def read_part(part: Part, *, abstract: bool = True) -> Iterator[Work | ReadIssue]:
    """Yield the Works of one part in file order; problems become ReadIssues and reading goes on.

    ``abstract=False`` lets an OpenAlex JSONL reader skip the abstracts (for an index without).
    """
    if not part.path.is_file():
        yield ReadIssue(file=str(part.path), message="file is missing")
        return
    if part.format == "bibtex":
        yield from read_bibtex(part.path)
    elif part.format == "csl":
        yield from read_csl(part.path)
    elif part.path.name.lower().endswith((".json", ".json.gz")):
        yield from _read_openalex_json(part)
    else:
        yield from _read_openalex_jsonl(part, abstract)


def _csv_rows(path: Path) -> Iterator[tuple[int, list[str]] | ReadIssue]:
    """The non-blank rows of a CSV file with their 1-based row numbers; a read error ends them."""
    try:
        with open_maybe_gzip(path) as fh:
            lines = (raw.decode("utf-8", errors="replace") for raw in fh)
            for n, row in enumerate(csv.reader(lines), 1):
                if row and any(c.strip() for c in row):
                    yield n, row
    except (EOFError, OSError, zlib.error, csv.Error) as exc:
        yield ReadIssue(file=str(path), message=f"truncated or corrupt file: {exc}")


def _read_merged(path: Path) -> Iterator[Redirect | ReadIssue]:
    src = str(path)
    id_col, target_col = 1, 2
    for item in _csv_rows(path):
        if isinstance(item, ReadIssue):
            yield item
            continue
        n, row = item
        low = [c.strip().lower() for c in row]
        if n == 1 and "id" in low:
            id_col = low.index("id")
            target_col = next(
                (i for i, c in enumerate(low) if "into" in c or "target" in c), len(row) - 1
            )
            continue
        if n == 1 and len(row) == 2:
            id_col, target_col = 0, 1
        wid = norm_openalex(row[id_col]) if id_col < len(row) else None
        target = norm_openalex(row[target_col]) if target_col < len(row) else None
        if wid is None or target is None:
            yield ReadIssue(file=src, line=n, message=f"bad merged-id row: {row!r}")
            continue
        yield Redirect(id=wid, target=target, source=src)


def _read_deleted(path: Path) -> Iterator[Redirect | ReadIssue]:
    src = str(path)
    for item in _csv_rows(path):
        if isinstance(item, ReadIssue):
            yield item
            continue
        n, row = item
        wid = next((w for w in (norm_openalex(c) for c in row) if w), None)
        if wid is None:
            if n == 1:
                continue  # header
            yield ReadIssue(file=src, line=n, message=f"bad deleted-id row: {row!r}")
            continue
        yield Redirect(id=wid, target=None, source=src)


def read_redirects(plan: SourcePlan) -> Iterator[Redirect | ReadIssue]:
    """Merged ids (``target`` = surviving work) then deleted ids (``target`` None) of a snapshot."""
    for p in plan.redirect_files:
        yield from _read_merged(p)
    for p in plan.deleted_files:
        yield from _read_deleted(p)


class _SourceRecord(msgspec.Struct):
    """The fields of an OpenAlex Source that name it."""

    id: str | None = None
    display_name: str | None = None
    abbreviated_title: str | None = None
    alternate_titles: list[str] | None = None
    issn_l: str | None = None


def read_venue_names(plan: SourcePlan) -> Iterator[list[str] | ReadIssue]:
    """Every name of every Source of a snapshot's ``sources`` entity, one list per Source.

    Display name first, then the abbreviated title and the alternate titles; a Source with one
    name only is skipped (it adds no alias).
    """
    dec = msgspec.json.Decoder(_SourceRecord)
    for path in plan.venue_files:
        try:
            with open_maybe_gzip(path) as fh:
                for n, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    try:
                        rec = dec.decode(line)
                    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                        yield ReadIssue(file=str(path), line=n, message=f"source record: {exc}")
                        continue
                    names = [
                        x.strip()
                        for x in [
                            rec.display_name,
                            rec.abbreviated_title,
                            *(rec.alternate_titles or []),
                        ]
                        if isinstance(x, str) and x.strip()
                    ]
                    if len(names) > 1:
                        yield list(dict.fromkeys(names))
        except OSError as exc:
            yield ReadIssue(file=str(path), message=f"cannot read: {exc}")
