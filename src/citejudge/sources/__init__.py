"""Offline source verification: resolve a cited source and look for the quoted content in its text.

A *source* is what a citation names: a DOI, a URL (doi.org, arXiv, PubMed, PMC, OpenAlex, or
any other page) or a free-text reference string. It is resolved offline only
(:func:`resolve_source`):

1. through the world index (:class:`citejudge.index.WorldIndex`): identifiers are read with
   :mod:`citejudge.ids`, free text with :func:`citejudge.readers.parse_citation_string`,
   and the record is found with :func:`citejudge.match.resolve.resolve`; when the source also
   names the work (title) and the identifier resolves to a record with another title, the
   identifier belongs to a *different work* than the one named (when no title can be read from a
   reference string: its authors and year both disagree with the record and the record's title
   does not occur in it, see :data:`TITLE_IN_REFERENCE`);
2. through the local **source store**, a folder of saved pages and texts (the ``--fulltext``
   folder of ``citejudge check``).

Source store layout (every part optional)::

    STORE/
      index.jsonl        one JSON object a line: {"url": "https://...", "file": "pages/a.html",
                         "title": "optional"}; "file" is relative to STORE
      <sha256>.txt|.md|.html
                         a page saved under the sha256 (hex) of its normalised URL
      <W-id>.txt|.md     full text of an index record, by OpenAlex id (or DOI with "/" → "_"),
                         the same convention the references task uses

URLs are normalised before lookup (:func:`normalize_url`): scheme and host lower-cased,
``http`` → ``https``, ``www.`` dropped, tracking parameters (``utm_source=…``) dropped, fragment
and trailing ``/`` removed. ``.html``/``.htm`` files are reduced to text (tags and entities
removed).

Quote search (:func:`check_quote`, module ``_quotes``): a quote is cut into pieces where its
writer cut it (ellipses, sentences, lines) and each piece is looked for in the folded text, exactly
or above :data:`QUOTE_FOUND`. A piece the stated source does not hold is looked for elsewhere
(:class:`SourceSearch`): in the texts of the answer's other sources, then through the
:class:`QuoteIndex` of the store's texts and of the index records' abstracts (word shingles, a
bounded number of candidates aligned), cached per store and per index.
"""

from citejudge.sources._index_cache import source_cache_root
from citejudge.sources._quote_index import CANDIDATES, MAX_DOC_FREQ, IndexedText, QuoteIndex
from citejudge.sources._quotes import (
    MIN_PIECE,
    QUOTE_FOUND,
    Piece,
    PreparedText,
    QuoteCheck,
    QuoteMatch,
    check_quote,
    find_quote,
    quote_pieces,
    search_piece,
)
from citejudge.sources._resolve import (
    MAX_SOURCE_CHARS,
    TITLE_IN_REFERENCE,
    SourceResolution,
    read_source,
    resolve_source,
)
from citejudge.sources._search import (
    ELSEWHERE_TOP_K,
    MIN_ELSEWHERE_CHARS,
    WORLD_TEXTS_MAX,
    Elsewhere,
    SourceSearch,
)
from citejudge.sources._store import SourceStore, SourceText, StoredFile, normalize_url, url_key

__all__ = [
    "CANDIDATES",
    "ELSEWHERE_TOP_K",
    "MAX_DOC_FREQ",
    "MAX_SOURCE_CHARS",
    "MIN_ELSEWHERE_CHARS",
    "MIN_PIECE",
    "QUOTE_FOUND",
    "TITLE_IN_REFERENCE",
    "WORLD_TEXTS_MAX",
    "Elsewhere",
    "IndexedText",
    "Piece",
    "PreparedText",
    "QuoteCheck",
    "QuoteIndex",
    "QuoteMatch",
    "SourceResolution",
    "SourceSearch",
    "SourceStore",
    "SourceText",
    "StoredFile",
    "check_quote",
    "find_quote",
    "normalize_url",
    "quote_pieces",
    "read_source",
    "resolve_source",
    "search_piece",
    "source_cache_root",
    "url_key",
]
