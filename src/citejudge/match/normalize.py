"""Title keys for exact lookup and matching; the generic text normalisers live in :mod:`citejudge.text.normalize`.

``delatex``, ``fold`` and ``strip_markup`` are re-exported here for existing imports.
"""

from __future__ import annotations

from citejudge.text.normalize import delatex, fold, strip_markup

__all__ = ["delatex", "fold", "strip_markup", "title_key", "title_tokens"]


def title_tokens(title: str) -> list[str]:
    """Folded title words."""
    return fold(title).split()


def title_key(title: str | None) -> str | None:
    """Exact-lookup key of a title: folded, words joined without spaces; None if nothing is left.

    Two titles with the same key are equal modulo case, punctuation, whitespace, markup and
    diacritics (the spec's "minor differences"); a changed word changes the key.
    """
    if not title:
        return None
    key = fold(title).replace(" ", "")
    return key or None
