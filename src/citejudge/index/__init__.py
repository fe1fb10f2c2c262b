"""The embedded index of a world: build it once, open it read-only from every worker.

Exports the builder (full build, ``--fields matching``, incremental update from a newer
snapshot) and :class:`WorldIndex` (identifier and title-key lookups, title blocks, ranked
title retrieval). Records are zstd-compressed with a dictionary the index carries.
"""

from citejudge.index.build import (
    SCHEMA_VERSION,
    BuildReport,
    build_index,
    build_index_from_works,
    work_keys,
)
from citejudge.index.store import EXACT_TITLE_SCORE, WorldIndex, query_terms

__all__ = [
    "EXACT_TITLE_SCORE",
    "SCHEMA_VERSION",
    "BuildReport",
    "WorldIndex",
    "build_index",
    "build_index_from_works",
    "query_terms",
    "work_keys",
]
