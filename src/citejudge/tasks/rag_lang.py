"""Language of the feedback (Czech or English) and the message templates of ``rag-audit``.

An item's ``language`` field wins when it names cs/en; otherwise the language of the query and the
answer is detected (:func:`citejudge.text.detect_language`).

Every text a user reads (issues, summary, recommendations) comes from the templates below, in
the detected language; model-written fragments are only quoted inside them.
"""

from __future__ import annotations

from citejudge.text import Lang, detect_language

__all__ = ["msg", "resolve_language"]


def resolve_language(declared: object, query: str, answer: str) -> tuple[Lang, str]:
    """Language for the feedback and how it was decided (``"declared"`` or ``"detected"``)."""
    if isinstance(declared, str):
        d = declared.strip().lower().replace("_", "-").split("-")[0]
        if d in ("cs", "cz", "ces", "cze", "czech", "čeština", "cestina"):
            return "cs", "declared"
        if d in ("en", "eng", "english", "angličtina"):
            return "en", "declared"
    return detect_language(f"{query}\n{answer}"), "detected"


#: Message templates: key → (English, Czech). Placeholders are filled with ``str.format``.
_MESSAGES: dict[str, tuple[str, str]] = {
    # EXISTS
    "exists.missing": (
        'Sentence "{sentence}" cites {cite}, but "{chunk}" is not among the retrieved chunks{avail}.',
        "Věta „{sentence}“ cituje {cite}, ale „{chunk}“ mezi vyhledanými úryvky není{avail}.",
    ),
    "exists.avail": ("; available: {ids}", "; k dispozici jsou: {ids}"),
    "exists.none_available": ("; no chunks were retrieved", "; nebyl vyhledán žádný úryvek"),
    # FORMATTED
    "fmt.wrong": (
        'Sentence "{sentence}" cites {chunk} as {raw} ({form}) instead of {fix}.',
        "Věta „{sentence}“ cituje {chunk} zápisem {raw} ({form}) místo {fix}.",
    ),
    "fmt.malformed": (
        'Sentence "{sentence}" has a malformed citation {raw}: {why}.',
        "Věta „{sentence}“ obsahuje chybně zapsanou citaci {raw}: {why}.",
    ),
    "fmt.mixed": (
        "Citation styles are inconsistent: the answer mixes {forms}.",
        "Citace nejsou zapsány jednotně: odpověď kombinuje {forms}.",
    ),
    "why.empty": ("the braces are empty", "závorky jsou prázdné"),
    "why.empty_key": ("one of the keys is empty", "jeden z klíčů je prázdný"),
    "why.unclosed": ("the brace is never closed", "složená závorka není uzavřena"),
    "why.nobrace": ("\\cite is not followed by {…}", "za \\cite nenásleduje {…}"),
    "why.option": (
        "an optional argument […] is not allowed",
        "volitelný argument […] není povolen",
    ),
    "form.variant": ("a \\cite variant", "varianta \\cite"),
    "form.bracket": ("square brackets", "hranaté závorky"),
    "form.numeric": ("a numeric reference", "číselný odkaz"),
    "form.paren": ("parentheses", "kulaté závorky"),
    "form.fullwidth": ("full-width brackets", "plnošířkové závorky"),
    "form.footnote": ("a footnote marker", "značka poznámky pod čarou"),
    "form.bare": ("a bare chunk id", "samotný identifikátor úryvku"),
    "form.cite": ("\\cite{{}}", "\\cite{{}}"),
    "form.malformed": ("malformed \\cite", "chybný \\cite"),
    # ACCURATE
    "acc.unsupported": (
        'Sentence "{sentence}" is not supported by {chunks}{gap}.',
        "Věta „{sentence}“ není podložena úryvkem {chunks}{gap}.",
    ),
    "acc.contradicted": (
        'Sentence "{sentence}" contradicts {chunks}{gap}.',
        "Věta „{sentence}“ je v rozporu s úryvkem {chunks}{gap}.",
    ),
    "acc.gap": (" (not stated there: {missing})", " (chybí tam: {missing})"),
    "acc.nonexistent": (
        'Cannot verify sentence "{sentence}": cited chunk {chunk} does not exist.',
        "Větu „{sentence}“ nelze ověřit: citovaný úryvek {chunk} neexistuje.",
    ),
    "acc.notext": (
        'Cannot verify sentence "{sentence}": chunk {chunk} has no text.',
        "Větu „{sentence}“ nelze ověřit: úryvek {chunk} nemá žádný text.",
    ),
    "acc.unverified": (
        'Could not verify whether {chunks} supports sentence "{sentence}" (no valid judge answer).',
        "Nepodařilo se ověřit, zda úryvek {chunks} podporuje větu „{sentence}“ (hodnotitel nedal platnou odpověď).",
    ),
    "acc.not_evaluated": (
        "Not evaluated: {n} cited sentence(s) need a model to check against their chunks; run without --no-llm.",
        "Nevyhodnoceno: citované věty (počet: {n}) lze ověřit proti úryvkům jen s modelem; spusťte bez --no-llm.",
    ),
    "acc.too_long": (
        "Only the first {k} of {n} cited sentences were checked; the rest were not verified.",
        "Ověřena byla jen část citovaných vět ({k} z {n}); zbytek ověřen nebyl.",
    ),
    # COMPLETE
    "cmp.missing": (
        'Sentence "{sentence}" states a fact but cites no chunk.',
        "Věta „{sentence}“ uvádí fakt, ale necituje žádný úryvek.",
    ),
    "cmp.unverified": (
        'Could not decide whether sentence "{sentence}" needs a citation (no valid judge answer).',
        "Nepodařilo se rozhodnout, zda věta „{sentence}“ potřebuje citaci (hodnotitel nedal platnou odpověď).",
    ),
    "cmp.not_evaluated": (
        "Not evaluated: {n} uncited sentence(s) need a model to decide whether they are factual claims; "
        "run without --no-llm.",
        "Nevyhodnoceno: u necitovaných vět (počet: {n}) musí model rozhodnout, zda jde o faktická tvrzení; "
        "spusťte bez --no-llm.",
    ),
    "cmp.too_long": (
        "Only the first {k} of {n} uncited sentences were checked; the rest were not verified.",
        "Zkontrolována byla jen část necitovaných vět ({k} z {n}); zbytek ověřen nebyl.",
    ),
    # summary
    "sum.pass": (
        "All {n} citation(s) exist, use \\cite{{}}, support their sentences, and every factual claim is cited.",
        "Všechny citace ({n}) existují, používají \\cite{{}}, podkládají své věty a každé faktické tvrzení "
        "je citováno.",
    ),
    "sum.pass_none": (
        "The answer makes no factual claim that needs a citation and cites nothing.",
        "Odpověď neobsahuje žádné faktické tvrzení, které by potřebovalo citaci, a nic necituje.",
    ),
    "sum.fail": ("Citation audit failed on: {dims}.", "Audit citací neprošel v oblastech: {dims}."),
    "sum.counts": (
        "{issues} issue(s) found across {sentences} sentence(s) and {cites} citation(s).",
        "Nalezeno problémů: {issues} (vět: {sentences}, citací: {cites}).",
    ),
    "sum.not_evaluated": (
        "Accuracy and completeness were not fully judged because no model was used.",
        "Přesnost a úplnost nebyly plně posouzeny, protože nebyl použit model.",
    ),
    "dim.exists": ("existence", "existence"),
    "dim.accurate": ("accuracy", "přesnost"),
    "dim.complete": ("completeness", "úplnost"),
    "dim.formatted": ("format", "formát"),
    # recommendations
    "rec.change": ("Change {raw} to {fix}", "Změňte {raw} na {fix}"),
    "rec.fix_malformed": (
        "Rewrite {raw} as \\cite{{chunk_id}} with an existing chunk id",
        "Přepište {raw} jako \\cite{{id_úryvku}} s existujícím identifikátorem úryvku",
    ),
    "rec.replace": (
        "Replace {chunk} with a chunk from the retrieved set ({ids})",
        "Nahraďte {chunk} úryvkem z vyhledané sady ({ids})",
    ),
    "rec.remove": (
        "Remove the citation of {chunk}: no chunks were retrieved",
        "Odstraňte citaci {chunk}: nebyl vyhledán žádný úryvek",
    ),
    "rec.support": (
        'Cite a chunk that states "{sentence}", or rewrite the sentence to match {chunks}',
        "Citujte úryvek, který uvádí „{sentence}“, nebo větu upravte podle úryvku {chunks}",
    ),
    "rec.add": (
        'Add a \\cite{{}} of a supporting chunk to "{sentence}", or remove the claim',
        "Doplňte k větě „{sentence}“ \\cite{{}} s podkládajícím úryvkem, nebo tvrzení odstraňte",
    ),
    "rec.consistent": (
        "Use \\cite{{chunk_id}} for every citation",
        "Všechny citace zapisujte jako \\cite{{id_úryvku}}",
    ),
    "rec.rerun": (
        "Run the audit with a model to judge accuracy and completeness",
        "Spusťte audit s modelem, aby byla posouzena přesnost a úplnost",
    ),
    "rec.review": ("Check the unverified sentences by hand", "Neověřené věty zkontrolujte ručně"),
    "more": (
        "… and {n} more issue(s) of this kind.",
        "… a další problémy tohoto druhu (počet: {n}).",
    ),
}


def msg(lang: Lang, key: str, **values: object) -> str:
    """The message ``key`` in ``lang`` with ``values`` filled in."""
    en, cs = _MESSAGES[key]
    return (cs if lang == "cs" else en).format(**values)
