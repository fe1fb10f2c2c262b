"""The citation parser on real reference strings (Crossref deposits); skipped without ../shared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citejudge.ids import fold_confusables
from citejudge.match.normalize import fold
from citejudge.match.parse import parse_citation_string

pytestmark = pytest.mark.shared

_PARTICLES = {"van", "von", "der", "den", "de", "del", "da", "das", "dos", "du", "di", "la", "le"}


def _family(name: str) -> str | None:
    name = re.sub(r",?\s+(?:Jr|Sr|II|III)\.?$", "", name.strip())
    if "," in name:
        fam = name.split(",")[0]
    else:
        ws = [
            w
            for w in name.split()
            if not re.fullmatch(r"(?:[A-Z][a-z]?\.-?)+|[A-Z]{1,3}\.?|[A-Z]\.?-[A-Z]\.?", w)
        ]
        ws = [w for w in ws if w.lower() not in _PARTICLES] or ws
        fam = ws[-1] if ws else ""
    toks = [t for t in fold(fam).split() if t not in _PARTICLES]
    return toks[-1] if toks else None


def test_real_unstructured_dois(shared_data: Path) -> None:
    path = shared_data / "citations/crossref/real_unstructured_2k.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    written = found = extracted = verbatim = 0
    for r in rows:
        text = r["ref_string"]
        w = parse_citation_string(text)
        flat = fold_confusables(text).lower().replace(" ", "")
        gold = [g for g in r["gold_dois"] if g in flat]
        if gold:
            written += 1
            found += gold[0] in w.doi
        extracted += len(w.doi)
        verbatim += sum(1 for d in w.doi if d in flat)
    assert written >= 60
    assert found / written >= 0.97
    assert verbatim == extracted  # every extracted DOI is written in its string


def test_real_mixed_fields(shared_data: Path) -> None:
    years = authors = n_year = n_author = 0
    path = shared_data / "citations/crossref/real_mixed_2k_with_source_doi.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        ref = json.loads(line)["reference"]
        if not ref.get("unstructured"):
            continue
        w = parse_citation_string(ref["unstructured"])
        if re.fullmatch(r"\d{4}", str(ref.get("year", "")).strip()):
            n_year += 1
            years += w.year == int(ref["year"])
        if ref.get("author"):
            n_author += 1
            authors += bool(w.authors) and _family(w.authors[0]) == _family(ref["author"])
    assert n_year > 300 and years / n_year >= 0.97
    assert n_author > 300 and authors / n_author >= 0.9
