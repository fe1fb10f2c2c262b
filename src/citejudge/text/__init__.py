"""Plain-text functions every layer may use: LaTeX decoding, folding, sentences, language.

Exports the normalisers, sentence splitting, language detection and venue-name tokens; the
package imports nothing else of citejudge, so any layer may import it.
"""

from citejudge.text.language import Lang, detect_language
from citejudge.text.normalize import delatex, fold, strip_markup
from citejudge.text.sentences import (
    evidence_units,
    evidence_windows,
    is_boilerplate,
    split_sentences,
    split_units,
)
from citejudge.text.venue_names import is_book_series, venue_tokens

__all__ = [
    "Lang",
    "delatex",
    "detect_language",
    "evidence_units",
    "evidence_windows",
    "fold",
    "is_boilerplate",
    "is_book_series",
    "split_sentences",
    "split_units",
    "strip_markup",
    "venue_tokens",
]
