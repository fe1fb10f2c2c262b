"""World readers: OpenAlex snapshots and API records, BibTeX and CSL-JSON libraries, and the pull.

``plan_source`` finds the parts of a source without reading records; ``read_part`` yields
:class:`~citejudge.records.Work` and :class:`~citejudge.records.ReadIssue` objects in file order;
``read_redirects`` yields merged and deleted ids. ``pull_snapshot`` is the only networked code.
"""

from citejudge.readers.openalex import (
    OpenAlexAbstractError,
    OpenAlexRecordError,
    abstract_from_inverted_index,
    convert_openalex,
    decode_openalex_line,
)
from citejudge.snapshot.bibworld import (
    bibtex_entry_to_work,
    csl_item_to_work,
    read_bibtex,
    read_bibtex_string,
    read_csl,
    split_bibtex_names,
)
from citejudge.snapshot.layout import (
    FORMATS,
    Part,
    SourcePlan,
    check_counts,
    open_maybe_gzip,
    plan_source,
    read_part,
    read_redirects,
    read_venue_names,
)
from citejudge.snapshot.pull import PullReport, parse_filter_expr, pull_snapshot

__all__ = [
    "FORMATS",
    "OpenAlexAbstractError",
    "OpenAlexRecordError",
    "Part",
    "PullReport",
    "SourcePlan",
    "abstract_from_inverted_index",
    "bibtex_entry_to_work",
    "check_counts",
    "convert_openalex",
    "csl_item_to_work",
    "decode_openalex_line",
    "open_maybe_gzip",
    "parse_filter_expr",
    "plan_source",
    "pull_snapshot",
    "read_bibtex",
    "read_bibtex_string",
    "read_csl",
    "read_part",
    "read_redirects",
    "read_venue_names",
    "split_bibtex_names",
]
