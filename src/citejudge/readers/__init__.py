"""One reader per input format, shared by the world builder and the citation reader.

* BibTeX (:mod:`~citejudge.readers.bibtex`) and CSL-JSON (:mod:`~citejudge.readers.csl`): an
  entry is decoded once into :class:`EntryFields`, then turned into a world ``Work`` or into
  the ``CitedWork`` a citation states;
* OpenAlex Work records (:mod:`~citejudge.readers.openalex`) -> ``Work``;
* free-text citation strings (:mod:`~citejudge.readers.freetext`) and a ``references`` item's
  ``metadata`` / ``full_citation`` (:mod:`~citejudge.readers.metadata`) -> ``CitedWork``;
* local full texts of works (:mod:`~citejudge.readers.fulltext`).
"""

from typing import TYPE_CHECKING

from citejudge.lazy import lazy_exports

if TYPE_CHECKING:
    from citejudge.readers._entry import EntryFields
    from citejudge.readers.bibtex import (
        bibtex_entry_to_work,
        parse_bibtex_entry,
        read_bibtex_string,
        split_bibtex_names,
        strip_dblp_suffix,
    )
    from citejudge.readers.csl import csl_item_to_work, parse_csl_item
    from citejudge.readers.freetext import (
        MAX_STRUCTURE_CHARS,
        parse_citation_string,
        split_author_string,
    )
    from citejudge.readers.fulltext import find_fulltext, fulltext_names
    from citejudge.readers.metadata import parse_item_citation, parse_metadata
    from citejudge.readers.openalex import (
        OpenAlexRecordError,
        abstract_from_inverted_index,
        convert_openalex,
        decode_openalex_line,
    )

#: exported name -> its module, imported on first access: a reference check loads the
#: citation readers it uses, not the OpenAlex record reader or the full-text finder
_LAZY = {
    "EntryFields": "._entry",
    "bibtex_entry_to_work": ".bibtex",
    "parse_bibtex_entry": ".bibtex",
    "read_bibtex_string": ".bibtex",
    "split_bibtex_names": ".bibtex",
    "strip_dblp_suffix": ".bibtex",
    "csl_item_to_work": ".csl",
    "parse_csl_item": ".csl",
    "MAX_STRUCTURE_CHARS": ".freetext",
    "parse_citation_string": ".freetext",
    "split_author_string": ".freetext",
    "find_fulltext": ".fulltext",
    "fulltext_names": ".fulltext",
    "parse_item_citation": ".metadata",
    "parse_metadata": ".metadata",
    "OpenAlexRecordError": ".openalex",
    "abstract_from_inverted_index": ".openalex",
    "convert_openalex": ".openalex",
    "decode_openalex_line": ".openalex",
}

__getattr__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "MAX_STRUCTURE_CHARS",
    "EntryFields",
    "OpenAlexRecordError",
    "abstract_from_inverted_index",
    "bibtex_entry_to_work",
    "convert_openalex",
    "csl_item_to_work",
    "decode_openalex_line",
    "find_fulltext",
    "fulltext_names",
    "parse_bibtex_entry",
    "parse_citation_string",
    "parse_csl_item",
    "parse_item_citation",
    "parse_metadata",
    "read_bibtex_string",
    "split_author_string",
    "split_bibtex_names",
    "strip_dblp_suffix",
]
