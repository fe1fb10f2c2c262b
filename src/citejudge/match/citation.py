"""What a citation states: :class:`CitedWork`, defined in :mod:`citejudge.records` (re-exported here).

Every field is what the *citation* says (never filled in from a record). ``None`` means the
citation does not state it, which the validator treats as "nothing to check".
"""

from __future__ import annotations

from citejudge.records import CitedWork

__all__ = ["CitedWork"]
