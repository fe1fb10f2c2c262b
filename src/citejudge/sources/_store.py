"""The local source store: a folder of saved pages and texts, keyed by URL (layout in the package docstring)."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from citejudge.ids import strip_tracking
from citejudge.readers import find_fulltext
from citejudge.records import Work
from citejudge.text.normalize import strip_markup

__all__ = ["TEXT_SUFFIXES", "SourceStore", "SourceText", "StoredFile", "normalize_url", "url_key"]

log = logging.getLogger(__name__)

#: File suffixes read as texts (HTML is reduced to text).
TEXT_SUFFIXES = (".txt", ".md", ".html", ".htm")


def _clean_rel(rel: str) -> str:
    """``rel`` as a POSIX path without ``./`` parts (how a file of ``index.jsonl`` is keyed)."""
    return "/".join(p for p in rel.replace("\\", "/").split("/") if p not in ("", "."))


def normalize_url(url: str) -> str:
    """Canonical form of a URL for store lookups (see the module docstring)."""
    s = strip_tracking(url.strip())
    m = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://([^/?#]*)(.*)$", s)
    if not m:
        return s.split("#", 1)[0].rstrip("/")
    scheme, host, rest = m.group(1).lower(), m.group(2).lower(), m.group(3)
    if scheme == "http":
        scheme = "https"
    if host.startswith("www."):
        host = host[4:]
    rest = rest.split("#", 1)[0]
    if rest.endswith("/") and "?" not in rest:
        rest = rest.rstrip("/")
    return f"{scheme}://{host}{rest}"


def url_key(url: str) -> str:
    """The sha256 (hex) of the normalised URL: the file name of a page saved in the store."""
    return hashlib.sha256(normalize_url(url).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SourceText:
    """A text to look for quoted content in, and where it came from."""

    text: str
    origin: str  # "abstract of W1" | "store:pages/a.html" | "fulltext:W1.txt"


@dataclass(frozen=True)
class StoredFile:
    """One text of the store: its path relative to the store, where it is, the URL it was saved from."""

    rel: str
    path: Path
    url: str | None = None


def _read_text(path: Path) -> str | None:
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        log.warning("cannot read source store file %s: %s", path, exc)
        return None
    if path.suffix.lower() in {".html", ".htm", ".xml"}:
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        raw = strip_markup(raw)
    return raw if raw.strip() else None


@dataclass
class SourceStore:
    """A folder of saved pages and texts, keyed by URL (see the module docstring for the layout)."""

    root: Path
    urls: dict[str, str] = field(default_factory=dict)  # normalised URL → file relative to root
    issues: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # file relative to root → its first URL

    @classmethod
    def open(cls, root: Path) -> SourceStore:
        """Open a store folder; a bad ``index.jsonl`` line is skipped and listed in ``issues``."""
        store = cls(Path(root))
        idx = store.root / "index.jsonl"
        if idx.is_file():
            for n, line in enumerate(
                idx.read_text(encoding="utf-8", errors="replace").splitlines(), start=1
            ):
                if not line.strip():
                    continue
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError:
                    store.issues.append(f"index.jsonl line {n}: not valid JSON")
                    continue
                if not (
                    isinstance(row, dict)
                    and isinstance(row.get("url"), str)
                    and isinstance(row.get("file"), str)
                ):
                    store.issues.append(
                        f"index.jsonl line {n}: needs string fields 'url' and 'file'"
                    )
                    continue
                store.urls.setdefault(normalize_url(row["url"]), _clean_rel(row["file"]))
                store.names.setdefault(_clean_rel(row["file"]), row["url"])
        for msg in store.issues:
            log.warning("source store %s: %s", store.root, msg)
        return store

    def _file(self, rel: str) -> Path | None:
        p = (self.root / rel).resolve()
        try:
            p.relative_to(self.root.resolve())
        except ValueError:
            return None  # a path escaping the store is ignored
        return p if p.is_file() else None

    def files(self) -> list[StoredFile]:
        """The store's texts: its top-level text files and the files ``index.jsonl`` names, by path.

        Each file once (a file several URLs name is listed under its first URL); a file
        ``index.jsonl`` names that does not exist or escapes the store is left out.
        """
        found: dict[str, StoredFile] = {}
        if self.root.is_dir():
            for p in self.root.iterdir():
                if p.suffix.lower() in TEXT_SUFFIXES and p.is_file():
                    found[p.name] = StoredFile(p.name, p, self.names.get(p.name))
        for rel, url in self.names.items():
            if rel not in found:
                path = self._file(rel)
                if path is not None:
                    found[rel] = StoredFile(rel, path, url)
        return [found[k] for k in sorted(found)]

    def read(self, rel: str) -> str | None:
        """The text of the store's file ``rel`` (HTML reduced to text), or None."""
        p = self._file(rel)
        return _read_text(p) if p is not None else None

    def text_for_url(self, url: str) -> SourceText | None:
        """The saved text of ``url`` (via ``index.jsonl``, then the sha256-named file), or None."""
        norm = normalize_url(url)
        rel = self.urls.get(norm)
        if rel is not None:
            p = self._file(rel)
            text = _read_text(p) if p else None
            if text:
                return SourceText(text, f"store:{rel}")
        key = url_key(url)
        for ext in TEXT_SUFFIXES:
            p = self.root / f"{key}{ext}"
            if p.is_file():
                text = _read_text(p)
                if text:
                    return SourceText(text, f"store:{p.name}")
        return None

    def text_for_work(self, work: Work) -> SourceText | None:
        """The stored full text of an index record (by id or DOI file name, then its URLs)."""
        found = find_fulltext(self.root, work)
        if found is not None:
            return SourceText(found[0], f"fulltext:{found[1]}")
        urls = (
            list(work.urls)
            + ([f"https://doi.org/{work.doi}"] if work.doi else [])
            + ([f"https://openalex.org/{work.id}"] if work.id.startswith("W") else [])
        )
        for u in urls:
            st = self.text_for_url(u)
            if st is not None:
                return st
        return None
