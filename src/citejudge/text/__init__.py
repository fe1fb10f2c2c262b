"""Plain-text functions every layer may use: LaTeX decoding, folding, sentences, language."""

from citejudge.text.language import Lang, detect_language
from citejudge.text.normalize import delatex, fold, strip_markup
from citejudge.text.sentences import evidence_windows, split_sentences

__all__ = [
    "Lang",
    "delatex",
    "detect_language",
    "evidence_windows",
    "fold",
    "split_sentences",
    "strip_markup",
]
