"""Documents in: a paper or a generated answer, read into references and citing sentences.

:func:`read_document` reads a PDF, LaTeX (with its ``.bib`` or ``.bbl``), JATS XML, HTML, Word
``.docx``, OpenDocument ``.odt``, Markdown or plain-text file into a :class:`Document`: the reference list (found by
the reference finder in text formats, :mod:`citejudge.documents._finder`), each entry parsed,
and every sentence that cites an entry with its markers resolved. :func:`document_items` turns
a document into ``references`` items (claim = citing sentence, ``full_citation`` = the entry as
found), and :func:`load_documents` does so for a batch, each unreadable document becoming one
error record.

Readers, one module each: ``_pdf`` (pypdfium2), ``_latex``, ``_jats``, ``_html`` (the standard
library's parser), ``_docx`` (the standard library's zip and XML; ``_fields`` reads Zotero's,
Mendeley's and EndNote's citation fields), ``_odt`` (OpenDocument text, with the Word reader's
assembly), ``_plain`` (Markdown and plain text, and the
line-based path the PDF, HTML and Word readers share).
"""

from typing import TYPE_CHECKING

from citejudge.lazy import lazy_exports

if TYPE_CHECKING:
    from citejudge.documents._build import DocumentError
    from citejudge.documents._finder import Line, load_finder, reference_blocks, split_entries
    from citejudge.documents._items import document_items, load_documents, summarize_documents
    from citejudge.documents._markers import find_markers
    from citejudge.documents._model import (
        DOCUMENT_FORMATS,
        CitingSentence,
        Document,
        Marker,
        Reference,
    )
    from citejudge.documents._read import (
        SUFFIXES,
        detect_format,
        document_files,
        read_along,
        read_document,
    )
    from citejudge.documents._summary import DocumentSummary

#: exported name -> its module, imported on first access: the run manifest needs only the
#: models (``_model``), and a run over item files never loads the readers, the reference
#: finder or the marker rules
_LAZY = {
    "DocumentError": "._build",
    "Line": "._finder",
    "load_finder": "._finder",
    "reference_blocks": "._finder",
    "split_entries": "._finder",
    "document_items": "._items",
    "load_documents": "._items",
    "summarize_documents": "._items",
    "find_markers": "._markers",
    "DOCUMENT_FORMATS": "._model",
    "CitingSentence": "._model",
    "Document": "._model",
    "DocumentSummary": "._summary",
    "Marker": "._model",
    "Reference": "._model",
    "SUFFIXES": "._read",
    "detect_format": "._read",
    "document_files": "._read",
    "read_along": "._read",
    "read_document": "._read",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "DOCUMENT_FORMATS",
    "SUFFIXES",
    "CitingSentence",
    "Document",
    "DocumentError",
    "DocumentSummary",
    "Line",
    "Marker",
    "Reference",
    "detect_format",
    "document_files",
    "document_items",
    "find_markers",
    "load_documents",
    "load_finder",
    "read_along",
    "read_document",
    "reference_blocks",
    "split_entries",
    "summarize_documents",
]
