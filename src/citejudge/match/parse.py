"""Citation parsing: the readers live in :mod:`citejudge.readers` (re-exported here for existing imports).

Four input shapes are handled: a free-text citation string in any common style
(:func:`parse_citation_string`), a BibTeX entry (:func:`parse_bibtex_entry`), a CSL-JSON item
(:func:`parse_csl_item`) and the ``metadata`` fields of a ``references`` item
(:func:`parse_metadata`); :func:`parse_item_citation` reads both of an item's forms.
"""

from citejudge.readers.bibtex import parse_bibtex_entry, strip_dblp_suffix
from citejudge.readers.csl import parse_csl_item
from citejudge.readers.freetext import (
    MAX_STRUCTURE_CHARS,
    parse_citation_string,
    split_author_string,
)
from citejudge.readers.metadata import parse_item_citation, parse_metadata

__all__ = [
    "MAX_STRUCTURE_CHARS",
    "parse_bibtex_entry",
    "parse_citation_string",
    "parse_csl_item",
    "parse_item_citation",
    "parse_metadata",
    "split_author_string",
    "strip_dblp_suffix",
]
