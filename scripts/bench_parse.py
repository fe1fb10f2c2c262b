"""Benchmark the citation-string parser on Crossref's reference-matching sets; prints JSON.

(a) DOI extraction on ``real_unstructured_2k.jsonl`` and ``artificial_13_styles.jsonl.gz``
    (a gold DOI counts as "written" when its canonical form occurs in the folded string);
(b) field agreement: year, first-author family name and title (rapidfuzz ratio >= 90, explicit
    processor) against the structured fields deposited beside the ``unstructured`` string in
    ``real_mixed_2k_with_source_doi.jsonl``, and against fields recovered from the artificial
    set's ``degraded_*`` renderings of the same record;
(c) throughput (strings/s);
(d) the speed line: the 2,000 real strings of ``real_unstructured_2k.jsonl`` parsed in fresh
    processes (model loaded and 100 other strings parsed first, then every string once: the
    per-token caches start cold for the measured strings), ``--speed-rounds`` rounds; with
    ``--baseline-src DIR`` (another checkout's ``src``) the two parsers run in turns, one
    round each, and the ratio is printed. The bar: >= 1,000 real strings/s on this machine.

Usage: ``python scripts/bench_parse.py [--data DIR] [--limit N] [--speed-rounds N] [--baseline-src DIR]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, utils

from citejudge import ids
from citejudge.match.normalize import fold, title_key
from citejudge.match.parse import parse_citation_string

PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "da",
        "das",
        "dos",
        "du",
        "di",
        "la",
        "le",
        "ter",
        "ten",
    ]
)
NO_TITLE_STYLES = frozenset(
    {
        "american-chemical-society",
        "american-institute-of-physics",
        "american-institute-of-physics-noise",
        "elsevier-without-titles",
        "degraded_title_scrambled",
    }
)
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "citations" / "crossref"


def family(name: str | None) -> str | None:
    """Folded family name of a name as written ("Shea, M. J.", "M.J. Shea", "Orengo CA")."""
    if not name:
        return None
    name = re.sub(r",?\s+(?:Jr|Sr|II|III|IV)\.?$", "", name.strip())
    if "," in name:
        fam = name.split(",")[0]
    else:
        ws = [w for w in re.split(r"\s+", name.strip()) if w]
        ws = [
            w
            for w in ws
            if not re.fullmatch(r"(?:[A-Z][a-z]?\.-?)+|[A-Z]{1,3}\.?|[A-Z]\.?-[A-Z]\.?", w)
        ]
        ws = [w for w in ws if w.lower() not in PARTICLES] or ws
        fam = ws[-1] if ws else ""
    toks = [t for t in fold(fam).split() if t not in PARTICLES]
    return toks[-1] if toks else None


def _doi_written(doi: str, text: str) -> bool:
    return doi in ids.fold_confusables(text).lower().replace(" ", "")


def doi_stats(rows: list[tuple[str, list[str]]]) -> dict[str, Any]:
    written = correct = wrong = missed = extracted_total = verbatim = 0
    for text, gold in rows:
        got = parse_citation_string(text).doi
        extracted_total += len(got)
        gold_written = [g for g in gold if _doi_written(g, text)]
        if gold_written:
            written += 1
            if gold_written[0] in got:
                correct += 1
            else:
                missed += 1
        wrong += sum(1 for d in got if d not in gold)
        verbatim += sum(1 for d in got if _doi_written(d, text))
    return {
        "strings": len(rows),
        "strings_with_gold_doi_written": written,
        "extracted_correctly": correct,
        "missed": missed,
        "extracted_dois": extracted_total,
        "extracted_not_gold": wrong,
        "extracted_written_in_string": verbatim,
        "precision": round((extracted_total - wrong) / extracted_total, 4)
        if extracted_total
        else None,
        "recall_of_written": round(correct / written, 4) if written else None,
    }


class Agree:
    """Per-field agreement counts."""

    def __init__(self) -> None:
        self.n: dict[str, int] = defaultdict(int)
        self.ok: dict[str, int] = defaultdict(int)

    def add(self, field: str, ok: bool) -> None:
        """Count one comparison."""
        self.n[field] += 1
        self.ok[field] += int(ok)

    def out(self) -> dict[str, Any]:
        """Agreement rate per field."""
        return {
            f: {"n": self.n[f], "agree": round(self.ok[f] / self.n[f], 4)} for f in sorted(self.n)
        }


def title_ok(parsed: str | None, gold: str) -> bool:
    if not parsed:
        return False
    return (
        fuzz.ratio(fold(parsed), fold(gold), processor=utils.default_process, score_cutoff=0) >= 90
    )


def bench_mixed(path: Path, agree: Agree, fails: list[dict[str, Any]]) -> int:
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        ref = json.loads(line)["reference"]
        text = ref.get("unstructured")
        if not text:
            continue
        n += 1
        w = parse_citation_string(text)
        if ref.get("year") and re.fullmatch(r"\d{4}", str(ref["year"]).strip()):
            ok = w.year == int(ref["year"])
            agree.add("year", ok)
            if not ok:
                fails.append(
                    {"f": "year", "s": text.strip()[:160], "got": w.year, "gold": ref["year"]}
                )
        if ref.get("author"):
            gf = family(ref["author"])
            pf = family(w.authors[0]) if w.authors else None
            ok = gf is not None and pf == gf
            agree.add("first_author_family", ok)
            if not ok:
                fails.append(
                    {
                        "f": "author",
                        "s": text.strip()[:160],
                        "got": w.authors[:2],
                        "gold": ref["author"],
                    }
                )
        if ref.get("journal-title"):
            ok = w.venue is not None and fold(w.venue) == fold(ref["journal-title"])
            agree.add("venue_exact", ok)
        if ref.get("article-title"):
            ok = title_ok(w.title, ref["article-title"])
            agree.add("title", ok)
            agree.add("title_exact", title_key(w.title) == title_key(ref["article-title"]))
            if not ok:
                fails.append(
                    {
                        "f": "title",
                        "s": text.strip()[:160],
                        "got": w.title,
                        "gold": ref["article-title"],
                    }
                )
    return n


def _degraded_fields(one: str, scrambled: str) -> dict[str, Any] | None:
    """Gold year/first family/title from the degraded_one_author and degraded_title_scrambled strings."""
    m = re.match(r"^(.*?)\. (\d{4})\. [^.]*\. [^.]*\. [^.]*$", one)
    m2 = re.match(r"^(.*?)\. (\d{4})\. ", scrambled)
    if not m or not m2:
        return None
    fam_m = re.match(r"^([^,.]+),", m.group(1))
    if not fam_m:
        return None
    a = m.group(1)
    # title = part of the one-author body that is not the common venue suffix with the scrambled body
    k = 0
    b = m2.group(1)
    while k < min(len(a), len(b)) and a[-1 - k] == b[-1 - k]:
        k += 1
    common = a[len(a) - k :]
    dot = common.find(". ")
    if dot < 0:
        return None
    title_end = len(a) - k + dot
    head = a[:title_end]
    am = re.match(r"^[^,]+, (?:(?:[A-Z][a-z]?\.\s?-?)+)\. ", head) or re.match(
        r"^[^,]+, [^.]+\. ", head
    )
    title = head[am.end() :] if am else None
    return {
        "year": int(m.group(2)),
        "family": fold(fam_m.group(1)).split()[-1:] or None,
        "title": title,
    }


def _title_between(full: str, scrambled: str) -> str | None:
    """The title of a degraded rendering: what differs from the same rendering with its title's words shuffled.

    Both strings share the author list (up to a ". ") and the venue part (from a ". "); the
    shared parts are backed off to those boundaries, so a shuffled title that starts or ends
    with the same word does not eat into the title.
    """
    if full == scrambled:
        return None
    i = 0
    while i < min(len(full), len(scrambled)) and full[i] == scrambled[i]:
        i += 1
    j = 0
    while j < min(len(full), len(scrambled)) - i and full[-1 - j] == scrambled[-1 - j]:
        j += 1
    start = full.rfind(". ", 0, i + 1)
    end = full.find(". ", len(full) - j - 1)
    if start < 0 or end < 0 or end <= start:
        return None
    title = full[start + 2 : end].strip()
    return title.rstrip(".") or None


def _harvard_ieee_fields(harvard: str, ieee: str) -> dict[str, Any] | None:
    """Gold fields from the Harvard and IEEE renderings of one record.

    Family and year from Harvard (``Family, I., YEAR. ...``), title from IEEE's quotes.
    """
    fam = re.match(r"^([^,]+),", harvard)
    year = re.search(r", ((?:1[6-9]|20)\d\d)[a-z]?\. ", harvard)
    title = re.search(r"“(.+?),?”", ieee)
    if not fam or not year or fam.group(1).strip().lower() == "anon":
        return None
    return {
        "year": int(year.group(1)),
        "family": fold(fam.group(1)).split()[-1:] or None,
        "title": title.group(1) if title else None,
    }


def bench_artificial(
    path: Path, limit: int | None, failures: list[dict[str, Any]] | None = None
) -> tuple[dict[str, Any], dict[str, Any], float]:
    # the styles render the same Crossref records; the gold DOI ties the renderings together
    by_doi: dict[str, dict[str, str]] = defaultdict(dict)
    skipped = 0
    rows_by_style: dict[str, list[tuple[str, list[str], str]]] = defaultdict(list)
    with gzip.open(path, "rt") as fh:
        for line in fh:
            r = json.loads(line)
            if not isinstance(r.get("ref_string"), str):
                skipped += 1
                continue
            key = r["gold_dois"][0] if r["gold_dois"] else f"idx{r['idx']}"
            by_doi[key][r["style"]] = r["ref_string"]
            rows_by_style[r["style"]].append((r["ref_string"], r["gold_dois"], key))
    doi_out: dict[str, Any] = {}
    field_out: dict[str, Any] = {}
    n_total = 0
    t_total = 0.0
    for style, rows in sorted(rows_by_style.items()):
        if limit:
            rows = rows[:limit]
        agree = Agree()
        t0 = time.perf_counter()
        parsed = [parse_citation_string(t) for t, _, _ in rows]
        t_total += time.perf_counter() - t0
        n_total += len(rows)
        doi_out[style] = (
            doi_stats([(t, g) for t, g, _ in rows])
            if any(_doi_written(d, t) for t, g, _ in rows for d in g)
            else {
                "strings": len(rows),
                "strings_with_gold_doi_written": 0,
                "extracted_dois": sum(len(w.doi) for w in parsed),
            }
        )
        for (_text, _gold, idx), w in zip(rows, parsed, strict=True):
            src = by_doi[idx]
            if "harvard3" in src and "ieee" in src:
                g = _harvard_ieee_fields(src["harvard3"], src["ieee"])
            elif "degraded_one_author" in src and "degraded_title_scrambled" in src:
                g = _degraded_fields(src["degraded_one_author"], src["degraded_title_scrambled"])
                if g and "degraded_all_authors" in src:
                    g["title"] = _title_between(
                        src["degraded_all_authors"], src["degraded_title_scrambled"]
                    )
            else:
                g = None
            if not g:
                continue
            bad: list[str] = []
            if w.year != g["year"]:
                bad.append("year")
            agree.add("year", w.year == g["year"])
            if g["family"]:
                pf = family(w.authors[0]) if w.authors else None
                agree.add("first_author_family", pf == g["family"][0])
                if pf != g["family"][0]:
                    bad.append("author")
            if g["title"] and style not in NO_TITLE_STYLES:
                ok = title_ok(w.title, g["title"])
                agree.add("title", ok)
                exact = title_key(w.title) == title_key(g["title"])
                agree.add("title_exact", exact)
                if not exact:
                    bad.append("title")
            if bad and failures is not None and len(failures) < 20000:
                failures.append(
                    {
                        "style": style,
                        "bad": bad,
                        "s": _text,
                        "gold": g,
                        "got": [w.authors[:2], w.year, w.title, w.venue],
                    }
                )
        field_out[style] = agree.out()
    doi_out["_rows_without_a_string"] = skipped
    return doi_out, field_out, n_total / t_total if t_total else 0.0


def speed_once(path: Path) -> dict[str, float]:
    """Parse every real string once in this process (after a warm-up on other strings)."""
    rows = [json.loads(x)["ref_string"] for x in path.read_text(encoding="utf-8").splitlines()]
    warm = [
        json.loads(x)["reference"].get("unstructured") or ""
        for x in (path.parent / "real_mixed_2k_with_source_doi.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()[:100]
    ]
    for t in warm:
        parse_citation_string(t)
    t0 = time.perf_counter()
    for t in rows:
        parse_citation_string(t)
    dt = time.perf_counter() - t0
    return {
        "strings": len(rows),
        "strings_per_s": len(rows) / dt,
        "us_per_string": 1e6 * dt / len(rows),
    }


def speed_rounds(data: Path, rounds: int, baseline_src: Path | None) -> dict[str, Any]:
    """``rounds`` fresh-process runs of :func:`speed_once`, alternating with the baseline's."""
    runs: dict[str, list[float]] = {"this": [], "baseline": []}
    for _ in range(rounds):
        for who in ("this", "baseline") if baseline_src else ("this",):
            env = dict(os.environ)
            if who == "baseline" and baseline_src is not None:
                env["PYTHONPATH"] = str(baseline_src)
            out = subprocess.run(
                [sys.executable, __file__, "--data", str(data), "--speed-only"],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs[who].append(json.loads(out)["strings_per_s"])
    res: dict[str, Any] = {
        "rounds": rounds,
        "strings_per_s": {k: [round(x, 1) for x in v] for k, v in runs.items() if v},
        "median_strings_per_s": {k: round(statistics.median(v), 1) for k, v in runs.items() if v},
    }
    this = statistics.median(runs["this"])
    res["median_us_per_string"] = {
        k: round(1e6 / statistics.median(v), 1) for k, v in runs.items() if v
    }
    res["meets_1000_per_s"] = this >= 1000
    if runs["baseline"]:
        res["this_over_baseline"] = round(this / statistics.median(runs["baseline"]), 3)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=None, help="strings per artificial style")
    ap.add_argument("--failures", type=int, default=0, help="print N failure examples to stderr")
    ap.add_argument(
        "--failures-out", type=Path, default=None, help="write all disagreements as JSONL"
    )
    ap.add_argument(
        "--speed-rounds", type=int, default=3, help="fresh-process speed rounds (0: none)"
    )
    ap.add_argument(
        "--baseline-src", type=Path, default=None, help="another checkout's src/, timed in turns"
    )
    ap.add_argument("--speed-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.speed_only:
        print(json.dumps(speed_once(args.data / "real_unstructured_2k.jsonl")))
        return 0
    out: dict[str, Any] = {}
    rows = [
        json.loads(x)
        for x in (args.data / "real_unstructured_2k.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    t0 = time.perf_counter()
    out["real_unstructured_doi"] = doi_stats([(r["ref_string"], r["gold_dois"]) for r in rows])
    out["real_unstructured_strings_per_s"] = round(len(rows) / (time.perf_counter() - t0), 1)
    agree = Agree()
    fails: list[dict[str, Any]] = []
    out["real_mixed_unstructured_strings"] = bench_mixed(
        args.data / "real_mixed_2k_with_source_doi.jsonl", agree, fails
    )
    out["real_mixed_fields"] = agree.out()
    afails: list[dict[str, Any]] = []
    doi_a, fields_a, rate = bench_artificial(
        args.data / "artificial_13_styles.jsonl.gz", args.limit, afails
    )
    if args.failures_out:
        with args.failures_out.open("w") as fh:
            for f in fails + afails:
                fh.write(json.dumps(f, ensure_ascii=False) + "\n")
    out["artificial_doi"] = doi_a
    out["artificial_fields"] = fields_a
    out["artificial_strings_per_s"] = round(rate, 1)
    out["summary_exact_title_per_style"] = {
        st: f["title_exact"]["agree"] for st, f in fields_a.items() if "title_exact" in f
    }
    if args.speed_rounds:
        out["speed"] = speed_rounds(args.data, args.speed_rounds, args.baseline_src)
    for f in fails[: args.failures]:
        print(json.dumps(f, ensure_ascii=False), file=sys.stderr)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
