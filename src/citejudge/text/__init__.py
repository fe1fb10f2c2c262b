"""Plain-text functions every layer may use: sentences and language (imports nothing from citejudge)."""

from citejudge.text.language import Lang, detect_language
from citejudge.text.sentences import evidence_windows, split_sentences

__all__ = ["Lang", "detect_language", "evidence_windows", "split_sentences"]
