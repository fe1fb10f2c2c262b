"""Citation parsing, normalisation, resolution against the index and field validation."""

from citejudge.match.normalize import delatex, fold, strip_markup, title_key, title_tokens

__all__ = ["delatex", "fold", "strip_markup", "title_key", "title_tokens"]
