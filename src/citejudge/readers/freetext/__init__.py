"""Free-text citation strings in any common style -> :class:`~citejudge.records.CitedWork`.

Styles: APA, MLA, Chicago, Harvard, IEEE, Vancouver, ACS, AIP, Elsevier, plain and Markdown; a
string that starts with ``@type{`` is read as BibTeX. The parser is a heuristic,
punctuation-driven parser, not a learned model. It is total: any input yields a
:class:`~citejudge.records.CitedWork` (possibly with few fields) and parse problems are listed
in ``warnings``; nothing raises. Identifiers are scanned in the whole string with the linear
extractors of :mod:`citejudge.ids`; the structure (authors, year, title, venue) is read from the
first :data:`MAX_STRUCTURE_CHARS` characters only, so a 1 MB string costs little.

Modules: ``_authors`` (author lists and name shapes), ``_fields`` (year, sentences, venue,
volume, pages), ``_ids`` (identifiers), ``_structure`` (Markdown, quoted titles, the
authors / year / title / venue layout), ``_parser`` (the entry point and clean-up passes),
``_vocab`` (word lists and patterns).
"""

from citejudge.readers.freetext._authors import split_author_string
from citejudge.readers.freetext._parser import MAX_STRUCTURE_CHARS, parse_citation_string

__all__ = ["MAX_STRUCTURE_CHARS", "parse_citation_string", "split_author_string"]
