"""Citation parsing, normalisation, resolution against the index and field validation.

Exports ``check_citation`` / ``resolve`` / ``validate`` (a cited work against a world index), the
field comparisons (title, year, authors, venue) and the parsers and normalisers it re-exports.
"""

from citejudge.match.citation import CitedWork
from citejudge.match.fields import FieldCheck, compare_title, compare_year
from citejudge.match.names import (
    AuthorCheck,
    compare_authors,
    family_key,
    parse_person,
    same_person,
)
from citejudge.match.normalize import delatex, fold, strip_markup, title_key, title_tokens
from citejudge.match.parse import (
    parse_bibtex_entry,
    parse_citation_string,
    parse_csl_item,
    parse_item_citation,
    parse_metadata,
)
from citejudge.match.resolve import Resolution, Verdict, check_citation, resolve, validate
from citejudge.match.venues import VenueCheck, compare_venue

__all__ = [
    "AuthorCheck",
    "CitedWork",
    "FieldCheck",
    "Resolution",
    "VenueCheck",
    "Verdict",
    "check_citation",
    "compare_authors",
    "compare_title",
    "compare_venue",
    "compare_year",
    "delatex",
    "family_key",
    "fold",
    "parse_bibtex_entry",
    "parse_citation_string",
    "parse_csl_item",
    "parse_item_citation",
    "parse_metadata",
    "parse_person",
    "resolve",
    "same_person",
    "strip_markup",
    "title_key",
    "title_tokens",
    "validate",
]
