"""Generic text handling: LaTeX decoding, markup stripping and folding."""

from citejudge.text.normalize import delatex, fold, strip_markup

__all__ = ["delatex", "fold", "strip_markup"]
