r"""Reference grounding on real OpenAlex records: Yes/No per real-world failure cause.

Builds an index from ``../shared/data/openalex/works.jsonl`` (492 real records, several schema
generations, with real preprint/published twins and duplicate works) and checks citations that
are *correct* but shaped the way real citations are, plus their wrong counterparts, one group
per cause:

* ``family_member``: every record of a real version family (same title and authors: a bioRxiv
  preprint and its journal copy, SSRN and journal copies, duplicate works, an editorial printed in
  several journals), cited faithfully (metadata and APA string) — expected Yes;
* ``family_cross_ids``: a family member's identifier with another member's venue and year —
  expected Yes (an identifier may come from any copy);
* ``family_mixed_fields``: one member's venue with another member's different year — expected No;
* ``landing_page_doi``: the DOI given as a publisher landing-page / PDF URL — expected Yes;
* ``pmcid_absent`` / ``pmid_absent``: a correct-looking PMCID/PMID that the record lacks and no
  work in the index has — expected Yes (unverified) by default, No with ``--strict-identifiers``;
* ``pmcid_of_other_work``: another indexed work's PMCID — expected No;
* ``malformed_doi``: the record's DOI with its slash lost — expected No;
* ``latex_authors``: author names written in LaTeX (``Sch{\"o}lkopf``) — expected Yes;
* ``transliterated_authors``: umlauts spelt out (``Schoelkopf``) — expected Yes;
* ``venue_long_form``: venue with a bracketed acronym / descriptive subtitle — expected Yes;
* ``wrong_venue``: another record's venue — expected No (for a work whose every copy is in a
  repository or on a preprint server, another repository: the only venue such records contradict);
* ``repository_only_venue``: a journal or conference (another record's) cited for a work whose
  every copy is in a repository or on a preprint server — expected Yes (unverified) by default,
  No with ``--strict-venues``;
* ``repository_only_published_year`` / ``repository_only_late_year``: the same with the year one
  after the repository copy's (the published version's may be: expected Yes, unverified) or three
  after it (expected No);
* ``preprint_year_from_arxiv_id``: a published record holding an arXiv copy whose id dates it
  another year (OpenAlex gives locations no year), cited as the arXiv preprint with that year —
  expected Yes; ``published_venue_preprint_year``: its published venue with that year — expected No;
* ``curated_readme``: the 12 real README citations (what the matcher says about each).

Every correct citation judged No is listed with its cause under ``false_no`` (``--show N``).

    python scripts/bench_real_world.py [--works PATH] [--shared DIR] [--show N]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from citejudge.ids import arxiv_year  # noqa: E402
from citejudge.index import WorldIndex, build_index  # noqa: E402
from citejudge.io import Item  # noqa: E402
from citejudge.match.resolve import same_family, venue_side  # noqa: E402
from citejudge.match.venues import is_book_series, is_repository_name  # noqa: E402
from citejudge.records import Work  # noqa: E402
from citejudge.tasks.references import ReferencesTask  # noqa: E402
from render_citations import cite_of, load_works, render  # noqa: E402

__all__ = ["main", "run_bench"]

DEFAULT_SHARED = HERE.parent.parent / "shared" / "data"
_LATEX = {
    "ö": '{\\"o}',
    "ü": '{\\"u}',
    "ä": '{\\"a}',
    "é": "{\\'e}",
    "è": "{\\`e}",
    "á": "{\\'a}",
    "í": "{\\'i}",
    "ó": "{\\'o}",
    "ú": "{\\'u}",
    "ç": "{\\c{c}}",
    "ñ": "{\\~n}",
    "č": "{\\v{c}}",
    "š": "{\\v{s}}",
    "ž": "{\\v{z}}",
    "ř": "{\\v{r}}",
    "ł": "{\\l}",
    "Ł": "{\\L}",
    "ø": "{\\o}",
    "å": "{\\aa}",
    "ß": "{\\ss}",
    "É": "{\\'E}",
    "Ö": '{\\"O}',
    "Ü": '{\\"U}',
    "ã": "{\\~a}",
    "ê": "{\\^e}",
    "ô": "{\\^o}",
}
_TRANSLIT = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}
_URL_FORMS: tuple[Callable[[str], str], ...] = (
    lambda d: f"https://www.frontiersin.org/articles/{d}/full",
    lambda d: f"https://onlinelibrary.wiley.com/doi/epdf/{d}",
    lambda d: f"https://link.springer.com/content/pdf/{d}.pdf",
    lambda d: f"https://doi.org/{d}?utm_source=readme#abstract",
    lambda d: f"https://www.tandfonline.com/doi/abs/{d}",
)


def _families(works: list[Work]) -> list[list[Work]]:
    by_title: dict[str, list[Work]] = defaultdict(list)
    for w in works:
        if w.title:
            by_title[" ".join(w.title.lower().split())].append(w)
    fams = []
    for group in by_title.values():
        for w in group:
            fam = [x for x in group if same_family(w, x)]
            if len(fam) > 1 and w is fam[0]:
                fams.append(sorted(fam, key=lambda x: x.id))
    return fams


def _meta(w: Work, **over: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"title": w.title, "authors": [a.name for a in w.authors], "year": w.year}
    if w.venue and not is_book_series(w.venue):
        m["venue"] = w.venue
    m.update(over)
    return {k: v for k, v in m.items() if v not in (None, [], "")}


def _cases(works: list[Work], seed: int) -> list[tuple[str, bool, dict[str, Any], str]]:
    """(cause, expected Yes, item data, work id)."""
    rng = random.Random(seed)
    out: list[tuple[str, bool, dict[str, Any], str]] = []
    fams = _families(works)
    for fam in fams:
        for w in fam:
            out.append(("family_member", True, {"metadata": _meta(w)}, w.id))
            out.append(
                ("family_member", True, {"full_citation": str(render(cite_of(w), "apa"))}, w.id)
            )
        for a in fam:
            for b in fam:
                if a.id != b.id and a.doi and b.venue and a.doi != b.doi:
                    out.append(("family_cross_ids", True, {"metadata": _meta(b, doi=a.doi)}, b.id))
                if a.id != b.id and a.venue and b.year and a.year != b.year and a.venue != b.venue:
                    out.append(
                        ("family_mixed_fields", False, {"metadata": _meta(a, year=b.year)}, a.id)
                    )
    titled = [w for w in works if w.title and w.authors and w.year]
    in_family = {w.id for fam in fams for w in fam}
    pmcids = sorted({w.pmcid for w in works if w.pmcid})
    for w in titled:
        if w.doi:
            form = rng.choice(_URL_FORMS)
            out.append(
                (
                    "landing_page_doi",
                    True,
                    {"metadata": {"title": w.title, "url": form(w.doi)}},
                    w.id,
                )
            )
            bad = w.doi.replace("/", "", 1)
            out.append(("malformed_doi", False, {"metadata": _meta(w, doi=bad)}, w.id))
        if not w.pmcid and w.id not in in_family:  # a twin's PMCID would contradict it
            out.append(
                (
                    "pmcid_absent",
                    True,
                    {"metadata": _meta(w, pmcid=f"PMC{9000000 + rng.randrange(99999)}")},
                    w.id,
                )
            )
            other = [p for p in pmcids if p != w.pmcid]
            if other:
                out.append(
                    (
                        "pmcid_of_other_work",
                        False,
                        {"metadata": _meta(w, pmcid=rng.choice(other))},
                        w.id,
                    )
                )
        if not w.pmid and w.id not in in_family:
            out.append(
                (
                    "pmid_absent",
                    True,
                    {"metadata": _meta(w, pmid=str(39000000 + rng.randrange(99999)))},
                    w.id,
                )
            )
        names = [a.name for a in w.authors]
        if any(c in n for n in names for c in _LATEX):
            lat = [n.translate(str.maketrans(_LATEX)) for n in names]  # type: ignore[arg-type]
            out.append(
                ("latex_authors", True, {"metadata": _meta(w, authors=" and ".join(lat))}, w.id)
            )
        if any(c in n for n in names for c in _TRANSLIT):
            tr = [n.translate(str.maketrans(_TRANSLIT)) for n in names]  # type: ignore[arg-type]
            out.append(("transliterated_authors", True, {"metadata": _meta(w, authors=tr)}, w.id))
        if (
            w.venue
            and not is_book_series(w.venue)
            and (w.type or "") in ("article", "journal-article", "review")
        ):
            acronym = "".join(x[0] for x in w.venue.split() if x[:1].isupper())
            if 2 <= len(acronym) <= 6:
                out.append(
                    (
                        "venue_long_form",
                        True,
                        {"metadata": _meta(w, venue=f"{w.venue} ({acronym})")},
                        w.id,
                    )
                )
            out.append(
                (
                    "venue_long_form",
                    True,
                    {"metadata": _meta(w, venue=f"{w.venue}: an international journal")},
                    w.id,
                )
            )
    for w in titled:
        # a published record holding an arXiv copy whose id dates it another year: the preprint
        # cited as a preprint with that year is right; the published venue with it is not
        ay = arxiv_year(w.arxiv)
        if (
            ay is not None
            and w.year is not None
            and ay != w.year
            and w.id not in in_family
            and w.venue
            and venue_side(w) is True
        ):
            out.append(
                (
                    "preprint_year_from_arxiv_id",
                    True,
                    {"metadata": _meta(w, venue="arXiv", arxiv=w.arxiv, year=ay)},
                    w.id,
                )
            )
            out.append(
                ("published_venue_preprint_year", False, {"metadata": _meta(w, year=ay)}, w.id)
            )
    venues = sorted({w.venue for w in works if w.venue})
    family_of = {w.id: fam for fam in fams for w in fam}
    for w in titled:
        if w.venue:
            names = {x.lower() for x in [w.venue, *w.venue_alt] if x}
            other = [v for v in venues if v.lower() not in names and "arxiv" not in v.lower()]
            pick = rng.choice(other)
            sides = [venue_side(m) for m in family_of.get(w.id, [w])]
            if False in sides and True not in sides:
                # every copy is a repository's: a journal is unverified, another repository wrong
                # (both picked without another draw: the other cases stay as they were)
                repositories = [v for v in other if is_repository_name(v)]
                journals = [v for v in other if not is_repository_name(v)]
                at = other.index(pick)
                journal = journals[at % len(journals)]
                out.append(
                    ("repository_only_venue", True, {"metadata": _meta(w, venue=journal)}, w.id)
                )
                if w.year is not None:
                    # the published version's year, a year after the repository copy's; three
                    # years after it is no published version's year
                    for cause, shift in (
                        ("repository_only_published_year", 1),
                        ("repository_only_late_year", 3),
                    ):
                        out.append(
                            (
                                cause,
                                shift == 1,
                                {"metadata": _meta(w, venue=journal, year=w.year + shift)},
                                w.id,
                            )
                        )
                pick = repositories[at % len(repositories)]
            out.append(("wrong_venue", False, {"metadata": _meta(w, venue=pick)}, w.id))
    return out


def run_bench(
    works_path: Path, shared: Path | None, *, seed: int = 0, show: int = 10
) -> dict[str, Any]:
    """Build the index, check every case in default, strict-identifier and strict-venue mode; return the report."""
    works = load_works(works_path)
    cases = _cases(works, seed)
    with tempfile.TemporaryDirectory() as tmp:
        idx = Path(tmp) / "world.index"
        build_index([works_path], idx, workers=1)
        world = WorldIndex.open(idx)
        out: dict[str, Any] = {
            "dataset": str(works_path),
            "works": len(works),
            "families": len(_families(works)),
        }
        for mode, strict, strict_venues in (
            ("default", False, False),
            ("strict_identifiers", True, False),
            ("strict_venues", False, True),
        ):
            task = ReferencesTask(
                world, today_year=2026, strict_identifiers=strict, strict_venues=strict_venues
            )
            per: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
            false_no: list[dict[str, Any]] = []
            t0 = time.perf_counter()
            for n, (cause, expect, data, wid) in enumerate(cases):
                line = task.check(Item(f"{cause}-{n}", data, "bench", n + 1))
                got = bool(line.result) and line.result["reference_grounding"].startswith("Yes")
                per[cause].append((expect, got))
                if expect and not got and len(false_no) < show:
                    false_no.append(
                        {
                            "cause": cause,
                            "work": wid,
                            "item": data,
                            "verdict": line.result["reference_grounding"]
                            if line.result
                            else line.error,
                        }
                    )
            secs = time.perf_counter() - t0
            rows = {
                c: {
                    "n": len(v),
                    "expected": "Yes" if v[0][0] else "No",
                    "judged_yes": round(sum(g for _, g in v) / len(v), 4),
                    "right": round(sum(e == g for e, g in v) / len(v), 4),
                }
                for c, v in sorted(per.items())
            }
            correct = [g for v in per.values() for e, g in v if e]
            wrong = [g for v in per.values() for e, g in v if not e]
            out[mode] = {
                "per_cause": rows,
                "correct_citations_judged_yes": round(sum(correct) / len(correct), 4),
                "wrong_citations_judged_yes": round(sum(wrong) / len(wrong), 4),
                "items": len(cases),
                "refs_per_s": round(len(cases) / secs, 1),
                "false_no": false_no,
            }
        if (
            shared is not None
            and (shared / "citations" / "curated_readme_citations.jsonl").is_file()
        ):
            task = ReferencesTask(world, today_year=2026)
            rows_c = []
            for x in (
                (shared / "citations" / "curated_readme_citations.jsonl").read_text().splitlines()
            ):
                if x.strip():
                    c = json.loads(x)
                    line = task.check(Item(c["id"], {"full_citation": c["raw"]}, "curated", 0))
                    target = (c.get("target_openalex_id") or "").rsplit("/", 1)[-1] or None
                    rows_c.append(
                        {
                            "id": c["id"],
                            "target": target,
                            "matched": line.details.get("match", {}).get("work_id"),
                            "verdict": (line.result or {}).get(
                                "reference_grounding", str(line.error)
                            )[:200],
                            "relation": c.get("relation"),
                        }
                    )
            out["curated_readme"] = rows_c
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print the report as JSON."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--works", type=Path, default=DEFAULT_SHARED / "openalex" / "works.jsonl")
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=20, help="list up to N correct citations judged No")
    args = ap.parse_args(argv)
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    if not args.works.is_file():
        sys.stderr.write(f"works file not found at {args.works}\n")
        return 2
    print(
        json.dumps(
            run_bench(
                args.works,
                args.shared if args.shared.is_dir() else None,
                seed=args.seed,
                show=args.show,
            ),
            indent=1,
            ensure_ascii=False,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
