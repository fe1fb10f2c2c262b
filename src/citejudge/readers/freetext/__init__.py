"""Free-text citation strings in any common style -> :class:`~citejudge.records.CitedWork`.

A linear-chain CRF (``_crf``, the shipped model in ``model/``) labels the tokens of the string
and ``_parser`` turns the labelled spans into fields; the hand-written, punctuation-driven
parser that came before it (``_rules``) reads the string too where the CRF's reading shows a
slip it measured better on (``_parser._rules_win``). A string that starts with ``@type{`` is
read as BibTeX, a Markdown link ``[Title](url)`` by its rule. The parser is total: any input
yields a :class:`~citejudge.records.CitedWork` (possibly with few fields) and parse problems
are listed in ``warnings``; nothing raises. Identifiers are scanned in the whole string with
the linear extractors of :mod:`citejudge.ids`; the structure (authors, year, title, venue) is
read from the first :data:`MAX_STRUCTURE_CHARS` characters only, so a 1 MB string costs little.

Modules: ``_crf`` (tokens, features, the model), ``_parser`` (the entry point, spans to fields,
where the rules win), ``_rules`` (the hand-written parser's entry and clean-up passes),
``_authors`` (author lists and name shapes), ``_fields`` (year, sentences, venue, volume,
pages), ``_ids`` (identifiers), ``_structure`` (Markdown, quoted titles, the authors / year /
title / venue layout), ``_vocab`` (word lists and patterns).
"""

from citejudge.readers.freetext._authors import split_author_string
from citejudge.readers.freetext._parser import MAX_STRUCTURE_CHARS, parse_citation_string


def names_a_venue(text: str) -> bool:
    """Tell whether every word of ``text`` is a venue's or a publisher's word.

    The words of the parser's lexicon ("Nature", "Nature Communications", "Springer"), none a
    family name of it: such a text is no person's name.
    """
    from citejudge.readers.freetext._crf import load_model

    lexicon = load_model().featurizer.lexicon
    words = [w.strip(".,;:").lower() for w in text.split()]
    return bool(words) and all(
        w and (w in lexicon.venue or w in lexicon.publisher) and w not in lexicon.family
        for w in words
    )


def names_a_person(text: str) -> bool:
    """Tell whether a word of ``text`` is a given or a family name of the parser's lexicon."""
    from citejudge.readers.freetext._crf import load_model

    lexicon = load_model().featurizer.lexicon
    return any(
        (w := t.strip(".,;:").lower()) in lexicon.family or w in lexicon.given for t in text.split()
    )


__all__ = [
    "MAX_STRUCTURE_CHARS",
    "names_a_person",
    "names_a_venue",
    "parse_citation_string",
    "split_author_string",
]
