"""Documents as ``references`` items, and what a batch of documents came to.

One item per (entry, citing sentence) pair: ``claim`` is the sentence without its markers,
``full_citation`` the entry as found (a work a Word citation manager's field carries: its
CSL-JSON object), and ``document`` (kept by the task in
``details.input_extra``) says where they came from: file, entry number and label, the marker,
the sentence as found, its page and line. An entry no sentence cites is an item without a
claim (reference grounding only); a marker target that points to no entry is an error record
naming the file, the line and the field ``marker``; a document that cannot be read is one error
record naming the file. Nothing is dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from citejudge.documents._build import DocumentError
from citejudge.documents._model import Document, document_items
from citejudge.documents._summary import DocumentSummary, UnresolvedMarker
from citejudge.io import Item, ItemError

__all__ = [
    "DocumentSummary",
    "UnresolvedMarker",
    "document_items",
    "load_documents",
    "summarize_documents",
]


def _unresolved_error(doc: Document, item: dict[str, Any], n: int) -> ItemError:
    d = item["document"]
    return ItemError(
        item["id"],
        d.get("source") or doc.path,
        d.get("line") or n,
        f"marker {d['marker']} names {d['target']!r}, which is no entry of the reference list",
        field="marker",
        kind="document",
    )


def load_documents(
    paths: Sequence[Path], *, fmt: str | None = None
) -> tuple[list[Item | ItemError], list[Document | DocumentError]]:
    """Items of every document in order, and each document (or the error that stopped it).

    A folder stands for the documents under it (:func:`~citejudge.documents._read.document_files`),
    an archive (``.tar.gz``, ``.zip``…) for the documents it holds, each named
    ``ARCHIVE/path/inside`` (:mod:`~citejudge.documents._archive`).

    A marker that points nowhere is an :class:`ItemError` (field ``marker``); a document that
    cannot be read is one :class:`ItemError` naming the file, and the batch goes on.
    """
    from citejudge.documents._archive import is_archive, unpacked
    from citejudge.documents._read import document_files, read_document

    items: list[Item | ItemError] = []
    docs: list[Document | DocumentError] = []

    def add(doc: Document | DocumentError, name: str) -> None:
        docs.append(doc)
        if isinstance(doc, DocumentError):
            items.append(ItemError(name, name, 0, doc.one_line(), field=None, kind="document"))
            return
        for n, it in enumerate(document_items(doc), start=1):
            if it["document"].get("entry") is None:
                items.append(_unresolved_error(doc, it, n))
            else:
                items.append(Item(it["id"], it, doc.path, it["document"].get("line") or n))

    def read(p: Path) -> Document | DocumentError:
        try:
            return read_document(p, fmt=fmt)
        except DocumentError as exc:
            return exc

    for p in document_files(paths):
        if not is_archive(p):
            add(read(p), str(p))
            continue
        try:
            with unpacked(p) as folder:
                inside = document_files([folder], source_only=True)
                if not inside:
                    raise DocumentError(f"{p}: the archive holds no document")
                for f in inside:
                    name = f"{p}/{f.relative_to(folder).as_posix()}"
                    add(_renamed(read(f), str(folder), str(p)), name)
        except DocumentError as exc:
            add(exc, str(p))
    return items, docs


def _renamed(doc: Document | DocumentError, old: str, new: str) -> Document | DocumentError:
    """``doc`` with the folder ``old`` (an unpacked archive) named ``new`` wherever it shows."""
    if isinstance(doc, DocumentError):
        return DocumentError(doc.message.replace(old, new), hint=doc.hint)

    def name(path: str | None) -> str | None:
        return path.replace(old, new, 1) if path and path.startswith(old) else path

    return doc.model_copy(
        update={
            "path": name(doc.path),
            "sentences": [s.model_copy(update={"source": name(s.source)}) for s in doc.sentences],
            "references": [r.model_copy(update={"source": name(r.source)}) for r in doc.references],
        }
    )


def _entry_verdict(line: dict[str, Any]) -> str:
    res = line.get("result")
    if res is None:
        return "error"
    rg = str(res.get("reference_grounding", ""))
    if rg.startswith("Yes"):
        return "Yes"
    if (line.get("details") or {}).get("match", {}).get("status") == "not_found":
        return "Not found"
    return rg.split(".", 1)[0] or "error"


def summarize_documents(
    docs: Sequence[Document | DocumentError], lines: Iterable[dict[str, Any]]
) -> list[DocumentSummary]:
    """One summary per document from its result lines (matched by ``details.input_extra.document``)."""
    per_doc: dict[str, list[dict[str, Any]]] = {}
    for ln in lines:
        d = ((ln.get("details") or {}).get("input_extra") or {}).get("document")
        if isinstance(d, dict) and isinstance(d.get("file"), str):
            per_doc.setdefault(d["file"], []).append(ln)
    out: list[DocumentSummary] = []
    for doc in docs:
        if isinstance(doc, DocumentError):
            path = doc.message.split(":", 1)[0]
            out.append(DocumentSummary(file=path, error=doc.one_line()))
            continue
        entry_verdicts: dict[int, str] = {}
        content: Counter[str] = Counter()
        judged: set[int] = set()
        for ln in per_doc.get(doc.path, []):
            d = ln["details"]["input_extra"]["document"]
            entry = d.get("entry")
            v = _entry_verdict(ln)
            if isinstance(entry, int) and entry_verdicts.get(entry) in (None, "error"):
                entry_verdicts[entry] = v
            if "sentence_number" in d:
                res = ln.get("result") or {}
                cg = str(res.get("content_grounding", "error")).split(".", 1)[0]
                content[cg] += 1
                if cg in ("Yes", "No") and (ln.get("details") or {}).get("content", {}).get(
                    "subclaims"
                ):
                    judged.add(int(d["sentence_number"]))
        out.append(
            DocumentSummary(
                file=doc.path,
                format=doc.format,
                references=len(doc.references),
                uncited=len(doc.uncited),
                citing_sentences=len(doc.sentences),
                unresolved=[
                    UnresolvedMarker(
                        marker=m.text, target=t, sentence=s.number, line=s.line, page=s.page
                    )
                    for s, m, t in doc.unresolved
                ],
                reference_grounding=dict(sorted(Counter(entry_verdicts.values()).items())),
                content_grounding=dict(sorted(content.items())),
                citing_sentences_judged=len(judged),
                warnings=doc.warnings,
            )
        )
    return out
