"""Quality of the citation-eval task: offline source verification and the support judge.

Source verification (deterministic) on the real OpenAlex works of ``openalex/works.jsonl``: an
index is built in a temporary folder; for a sample of works with an abstract, a sentence of the
abstract is cited

* correctly, with the source as a DOI URL, an OpenAlex URL or a free-text reference → VERIFIED;
* as the named work but with another work's DOI in the reference → LIKELY_FABRICATED;
* with another work's bare DOI → not VERIFIED (deterministically UNCERTAIN, left to the judge);
* with the DOI of another work whose abstract is indexed (the quote is misattributed) →
  LIKELY_FABRICATED, naming the work the quote comes from;
* with an unknown DOI or an unknown URL → UNCERTAIN.

Citation support (judged) on claim/evidence pairs of ``claims/``: HealthVer (Supports /
Refutes / Neutral), SciFact RTE (entailment / not_entailment) and CTKFacts (Czech; SUPPORTS /
REFUTES / NOT ENOUGH INFO), mapped to ENTAILMENT / CONTRADICTION / NEUTRAL; the judge of
``--model`` labels them and the agreement is reported (3-way where the set has 3 labels, and
entailment vs not everywhere). ``--model none`` skips it.

Passages as people quote web pages (``claims/wice_dev.jsonl.gz``: real Wikipedia claims, each with
the whole page it cites as a list of sentences and the indices of the supporting ones): each page is
written as a store file (one sentence a line, as a crawled page is, named in ``index.jsonl`` under
``https://wice.example/<id>``) and ``--passages`` claims with two or more supporting sentences are
cited eight ways (kinds):

* ``in_order`` — up to three supporting sentences (non-adjacent where the page allows), in page
  order, joined by spaces → VERIFIED;
* ``shuffled_ellipsis`` — the same, out of order, joined by " … " and " […] " → VERIFIED;
* ``edited`` — in order, with curly quotes, a doubled space, a dropped word and a word cut by a
  "- " hyphen → VERIFIED;
* ``single_sentence`` — one supporting sentence (the earlier kind: one contiguous quote) → VERIFIED;
* ``one_from_other_page`` — the middle sentence taken from another item's page → LIKELY_FABRICATED,
  naming a stored text that holds it;
* ``misattributed`` — the in-order passage attributed to another item's page → LIKELY_FABRICATED,
  naming a stored text that holds it;
* ``claim_as_piece`` — the middle sentence replaced by the Wikipedia claim (a paraphrase) →
  UNCERTAIN (left to the judge), or LIKELY_FABRICATED naming a text that holds it;
* ``unknown_source`` — the passage attributed to a URL the store does not have → UNCERTAIN.

The deterministic stage (``CitationEvalTask`` with the OpenAlex works' index and the store) runs
them against the store of the items' pages and against a store ``--scale`` times as large (the
other WiCE pages, the OpenAlex abstracts and synthetic pages of sentences drawn from the FEVER,
HealthVer, COVID-Fact and SciFact evidence, each with a title line and menus), in turns
(``--rounds``), after each store's quote index is built once (its build time is reported apart):
accuracy and items/s per kind and size, and the large/small ratio of time per item.

``--cli`` also times ``citejudge check citation-eval`` as a whole process on the shape of the
issue: the ``--passages`` items, one citation each (up to five supporting sentences in page order),
the small store, ``--no-gold``, with the model ``--cli-model`` (default ``cpu-default``, the
default of ``check``; ``none`` for ``--no-llm``) and a fresh ``--cache-dir``; ``--cli-old COMMIT``
runs the same command with the code of COMMIT (``git archive`` into a temporary folder, this
venv) in turns with this code.

    python scripts/bench_citation_eval.py [--shared ../shared/data] [--verify-n 200] [--support-n 20]
                                          [--model cpu-default] [--seed 0] [--errors FILE]
                                          [--passages 222] [--scale 10] [--rounds 2]
                                          [--cli] [--cli-model cpu-default] [--cli-old COMMIT]
                                          [--only verification,passages,cli,support]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citejudge.index import WorldIndex, build_index
from citejudge.io import Item, OutputLine
from citejudge.judge.deciders import LlmSupportDecider
from citejudge.records import Work
from citejudge.sources import PreparedText, SourceStore, search_piece
from citejudge.tasks.citation_eval import SUPPORT_FORM, CitationEvalTask, support_question
from citejudge.text import fold, split_sentences

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = HERE.parent.parent / "shared" / "data"
log = logging.getLogger("bench_citation_eval")


def _quote(work: Work) -> str | None:
    sents = [s for s in split_sentences(work.abstract or "") if 40 <= len(s) <= 400]
    return max(sents[:4], key=len) if sents else None


def _reference(work: Work, doi: str | None = None) -> str:
    first = work.authors[0].name if work.authors else "Anonymous"
    ref = f"{first} et al. ({work.year or 'n.d.'}). {work.title}."
    if work.venue:
        ref += f" {work.venue}."
    if doi:
        ref += f" https://doi.org/{doi}"
    return ref


def verification_cases(
    works: list[Work], n: int, rng: random.Random
) -> list[tuple[str, str, str, set[str]]]:
    """(case type, source, quote, acceptable labels) for a sample of works."""
    usable = [w for w in works if w.title and _quote(w)]
    with_doi = [w for w in usable if w.doi]
    sample = rng.sample(usable, min(n, len(usable)))
    cases: list[tuple[str, str, str, set[str]]] = []
    for i, w in enumerate(sample):
        q = _quote(w)
        assert q is not None
        other = rng.choice([v for v in with_doi if v.id != w.id and v.title != w.title])
        if w.doi:
            cases.append(("correct_doi_url", f"https://doi.org/{w.doi}", q, {"VERIFIED"}))
        cases.append(("correct_openalex_url", f"https://openalex.org/{w.id}", q, {"VERIFIED"}))
        cases.append(("correct_reference", _reference(w), q, {"VERIFIED"}))
        cases.append(("wrong_work_named", _reference(w, other.doi), q, {"LIKELY_FABRICATED"}))
        cases.append(
            (
                "wrong_work_bare_doi",
                f"https://doi.org/{other.doi}",
                q,
                {"UNCERTAIN", "LIKELY_FABRICATED"},
            )
        )
        with_text = [v for v in with_doi if v.id != w.id and v.title != w.title and v.abstract]
        if with_text:
            donor = rng.choice(with_text)
            cases.append(
                ("misattributed_quote", f"https://doi.org/{donor.doi}", q, {"LIKELY_FABRICATED"})
            )
        cases.append(("unknown_doi", f"https://doi.org/10.99999/fake.{i}", q, {"UNCERTAIN"}))
        cases.append(("unknown_url", f"https://example.org/articles/{i}", q, {"UNCERTAIN"}))
    return cases


def run_verification(
    shared: Path, tmp: Path, n: int, seed: int, errors: list[dict[str, Any]]
) -> dict[str, Any]:
    """Build the index of the OpenAlex works and score the deterministic verification."""
    src = shared / "openalex" / "works.jsonl"
    t0 = time.perf_counter()
    if not (tmp / "w.index").is_dir():
        build_index([src], tmp / "w.index", workers=1)
    build_s = time.perf_counter() - t0
    world = WorldIndex.open(tmp / "w.index")
    ids = [
        json.loads(x)["id"].rsplit("/", 1)[-1]
        for x in src.read_text(encoding="utf-8").split("\n")
        if x.strip()
    ]
    works = [w for w in world.get_many(ids) if w.abstract]
    cases = verification_cases(works, n, random.Random(seed))
    task = CitationEvalTask(world)
    per_type: dict[str, list[bool]] = defaultdict(list)
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    t1 = time.perf_counter()
    for k, (kind, source, quote, ok) in enumerate(cases):
        it = Item(
            f"v{k}",
            {
                "answer": "a",
                "gold_answer": "g",
                "citations": [
                    {"citation_id": 1, "claim": "c", "cited_content": quote, "source": source}
                ],
            },
            "bench",
            k,
        )
        line = task.check(it)
        label = (
            line.result["citation_evaluations"][0]["source_verification"]["judgement"]
            if line.result
            else "error"
        )
        per_type[kind].append(label in ok)
        confusion[kind][label] += 1
        if label not in ok and len(errors) < 200:
            errors.append(
                {
                    "kind": kind,
                    "source": source,
                    "quote": quote[:200],
                    "got": label,
                    "reasoning": line.result["citation_evaluations"][0]["source_verification"][
                        "reasoning"
                    ]
                    if line.result
                    else line.error,
                }
            )
    secs = time.perf_counter() - t1
    allv = [x for v in per_type.values() for x in v]
    return {
        "works_in_index": world.count(),
        "works_with_abstract": len(works),
        "index_build_s": round(build_s, 2),
        "cases": len(allv),
        "accuracy": round(sum(allv) / len(allv), 4) if allv else None,
        "per_type": {
            k: {"n": len(v), "accuracy": round(sum(v) / len(v), 4), "labels": dict(confusion[k])}
            for k, v in sorted(per_type.items())
        },
        "items_per_s": round(len(allv) / secs, 1) if secs else None,
    }


# ------------------------------------------------------------------ passages of real web pages

WICE_URL = "https://wice.example/{}"


@dataclass
class Page:
    """A WiCE page written into the store."""

    id: str
    sentences: list[str]
    rel: str
    url: str

    @property
    def text(self) -> str:
        """The page as stored: one sentence a line."""
        return "\n".join(self.sentences)


@dataclass
class Claim:
    """A WiCE claim with at least two supporting sentences of its page."""

    claim: str
    page: Page
    support: list[int]


def load_wice(shared: Path) -> tuple[list[Claim], list[Page]]:
    """The claims with 2+ supporting sentences, and every page (one per claim)."""
    claims: list[Claim] = []
    pages: list[Page] = []
    with gzip.open(shared / "claims" / "wice_dev.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pid = row["meta"]["id"]
            page = Page(
                pid,
                [" ".join(x.split()) for x in row["evidence"]],
                f"pages/{pid}.txt",
                WICE_URL.format(pid),
            )
            pages.append(page)
            sup = sorted({i for group in row["supporting_sentences"] for i in group})
            texts = list(dict.fromkeys(page.sentences[i] for i in sup if page.sentences[i].strip()))
            if len(texts) >= 2:
                claims.append(Claim(row["claim"], page, sup))
    return claims, pages


def _pick(claim: Claim, k: int) -> list[str]:
    """Up to ``k`` distinct supporting sentences, non-adjacent where the page allows, in page order."""
    chosen: list[int] = []
    for i in claim.support:
        if all(abs(i - j) > 1 for j in chosen):
            chosen.append(i)
    for i in claim.support:  # not enough non-adjacent ones: fill with the others
        if len(chosen) >= k:
            break
        if i not in chosen:
            chosen.append(i)
    out = list(dict.fromkeys(claim.page.sentences[i] for i in sorted(chosen[:k])))
    return [x for x in out if x.strip()]


def _edit(sentences: list[str], rng: random.Random) -> str:
    """Light edits: curly quotes, a doubled space, a dropped word, a word cut by a hyphen."""
    out = list(sentences)
    long = max(range(len(out)), key=lambda i: len(out[i].split()))
    words = out[long].split()
    middle = [
        i
        for i in range(len(words) // 3, 2 * len(words) // 3 + 1)
        if len(words[i]) >= 4 and words[i].isalpha()
    ]
    if len(words) >= 12 and middle:
        del words[rng.choice(middle)]
        out[long] = " ".join(words)
    for j, sent in enumerate(out):
        if j == long:
            continue
        ws = sent.split()
        cands = [i for i, w in enumerate(ws) if len(w) >= 9 and w.isalpha() and w[4:].islower()]
        if cands:
            i = rng.choice(cands)
            ws[i] = ws[i][:4] + "- " + ws[i][4:]
            out[j] = " ".join(ws)
            break
    text = "  ".join(out[:2]) + (" " + " ".join(out[2:]) if len(out) > 2 else "")
    text = text.replace(' "', " “").replace('" ', "” ").replace("'", "’")
    return text


def _pool(shared: Path, works: list[Work]) -> list[str]:
    """Sentences of the claim sets' evidence and the OpenAlex abstracts (synthetic pages' text)."""
    out: list[str] = []
    claims = shared / "claims"
    with (claims / "fever_rte_dev.tsv").open(encoding="utf-8") as fh:
        out += [r["evidence"] for r in csv.DictReader(fh, delimiter="\t") if r.get("evidence")]
    with (claims / "healthver_dev.csv").open(encoding="utf-8") as fh:
        out += [r["evidence"] for r in csv.DictReader(fh) if r.get("evidence")]
    with (claims / "covidfact_rte_train.tsv").open(encoding="utf-8") as fh:
        out += [r["evidence"] for r in csv.DictReader(fh, delimiter="\t") if r.get("evidence")]
    with (claims / "scifact_rte_train.tsv").open(encoding="utf-8") as fh:
        out += [r["sentence1"] for r in csv.DictReader(fh, delimiter="\t") if r.get("sentence1")]
    out += [w.abstract for w in works if w.abstract]
    sents = {x for t in dict.fromkeys(out) for x in split_sentences(t) if len(x) >= 30}
    return sorted(sents)


_MENUS = [
    "Skip to content",
    "Home | News | Sport | Business | Culture | Weather",
    "Menu",
    "## Related Stories",
    "Share this: Facebook | Twitter | Email",
    "This site uses cookies to improve your experience.",
    "Subscribe to our newsletter",
]


def synthetic_pages(pool: list[str], n: int, rng: random.Random, avoid: set[str]) -> list[str]:
    """``n`` pages of about 8,400 characters: a title line, menus, sentences drawn from ``pool``."""
    usable = [x for x in pool if fold(x) not in avoid]
    pages = []
    for i in range(n):
        first = rng.choice(usable)
        lines = [
            f"(meta data) TITLE: {' '.join(first.split()[:8])} – Site {i % 97}",
            *rng.sample(_MENUS, 3),
            f"# {' '.join(first.split()[:6])}",
        ]
        size = sum(len(x) for x in lines)
        while size < 8400:
            s = rng.choice(usable)
            lines.append(s)
            size += len(s) + 1
        lines += rng.sample(_MENUS, 2)
        pages.append("\n".join(lines))
    return pages


def write_store(root: Path, pages: list[tuple[str, str, str]]) -> SourceStore:
    """A store folder of (url, file relative to it, text) with their ``index.jsonl``."""
    root.mkdir(parents=True)
    with (root / "index.jsonl").open("w", encoding="utf-8") as idx:
        for url, rel, text in pages:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text + "\n", encoding="utf-8")
            idx.write(json.dumps({"url": url, "file": rel}) + "\n")
    return SourceStore.open(root)


@dataclass
class Case:
    """One citation of the passage benchmark: its kind, source, content and how to score it."""

    kind: str
    source: str
    content: str
    ok: Callable[[OutputLine, SourceStore], bool]


def _label(line: OutputLine) -> str:
    if line.result is None:
        return "error"
    return str(line.result["citation_evaluations"][0]["source_verification"]["judgement"])


def _holders(line: OutputLine) -> list[str]:
    """The store files named as holding pieces not in the stated source."""
    ver = line.details["citations"][0]["verification"]
    out = [
        r["found_in"]["text"] for r in ver.get("quote", {}).get("not_found", []) if "found_in" in r
    ]
    if "found_elsewhere" in ver:
        out.append(ver["found_elsewhere"]["text"])
    return [o[len("store:") :] for o in out if o.startswith("store:")]


def _named_holds(text: str) -> Callable[[OutputLine, SourceStore], bool]:
    """LIKELY_FABRICATED, and a stored text it names holds ``text`` (verbatim or near it)."""
    want = fold(text)

    def ok(line: OutputLine, store: SourceStore) -> bool:
        if _label(line) != "LIKELY_FABRICATED":
            return False
        return any(
            search_piece(want, PreparedText(store.read(rel) or "")).found for rel in _holders(line)
        )

    return ok


def _labelled(*labels: str) -> Callable[[OutputLine, SourceStore], bool]:
    return lambda line, store: _label(line) in labels


def passage_cases(claims: list[Claim], rng: random.Random) -> list[Case]:
    """The eight kinds of citation of each claim's page (see the module docstring)."""
    cases: list[Case] = []
    for k, c in enumerate(claims):
        sents = _pick(c, 3)
        other = claims[(k + 1 + rng.randrange(len(claims) - 1)) % len(claims)]
        mine = {fold(x) for x in c.page.sentences}
        donors = [
            x
            for x in other.page.sentences
            if len(x.split()) >= 10
            and len(x) >= 60
            and fold(x) not in mine
            and not x.startswith(("#", "(meta"))
        ]
        url = c.page.url
        passage = " ".join(sents)
        cases.append(Case("in_order", url, passage, _labelled("VERIFIED")))
        shuffled = rng.sample(sents, len(sents))
        joined = shuffled[0] + "".join(
            (" … " if i % 2 else " […] ") + x for i, x in enumerate(shuffled[1:], start=1)
        )
        cases.append(Case("shuffled_ellipsis", url, joined, _labelled("VERIFIED")))
        cases.append(Case("edited", url, _edit(sents, rng), _labelled("VERIFIED")))
        cases.append(Case("single_sentence", url, max(sents, key=len), _labelled("VERIFIED")))
        if donors:
            donor = rng.choice(donors)
            mixed = [sents[0], donor, *sents[1:]] if len(sents) < 3 else [sents[0], donor, sents[2]]
            cases.append(Case("one_from_other_page", url, " ".join(mixed), _named_holds(donor)))
        cases.append(
            Case("misattributed", other.page.url, passage, _named_holds(max(sents, key=len)))
        )
        in_page = search_piece(fold(c.claim), PreparedText(c.page.text)).found
        with_claim = (
            [sents[0], c.claim, *sents[1:]] if len(sents) < 3 else [sents[0], c.claim, sents[2]]
        )
        judge_or_named = _named_holds(c.claim)
        cases.append(
            Case(
                "claim_as_piece",
                url,
                " ".join(with_claim),
                lambda line, store, f=judge_or_named, v=in_page: (
                    _label(line) == "UNCERTAIN"
                    or f(line, store)
                    or (v and _label(line) == "VERIFIED")
                ),
            )
        )
        cases.append(
            Case(
                "unknown_source", f"https://not-saved.example/{k}", passage, _labelled("UNCERTAIN")
            )
        )
    return cases


def _case_item(k: int, case: Case) -> Item:
    return Item(
        f"p{k}",
        {
            "answer": "a",
            "citations": [
                {
                    "citation_id": 1,
                    "claim": "c",
                    "cited_content": case.content,
                    "source": case.source,
                }
            ],
        },
        "bench",
        k,
    )


def run_passages(
    shared: Path,
    tmp: Path,
    world_path: Path,
    n: int,
    scale: int,
    rounds: int,
    seed: int,
    errors: list[dict[str, Any]],
) -> tuple[dict[str, Any], list[Claim]]:
    """Source verification of passages at two store sizes (see the module docstring)."""
    rng = random.Random(seed)
    claims, pages = load_wice(shared)
    claims = rng.sample(claims, min(n, len(claims)))
    item_pages = {c.page.id for c in claims}
    world = WorldIndex.open(world_path)
    small_pages = [(p.url, p.rel, p.text) for p in pages if p.id in item_pages]
    others = [(p.url, p.rel, p.text) for p in pages if p.id not in item_pages]
    avoid = {fold(x) for p in pages for x in p.sentences}
    works = list(world.iter_works())
    want = scale * len(small_pages) - len(small_pages) - len(others)
    synth = synthetic_pages(_pool(shared, works), max(want, 0), rng, avoid)
    large_pages = (
        small_pages
        + others
        + [
            (f"https://synthetic.example/{i}", f"synthetic/{i:06d}.txt", t)
            for i, t in enumerate(synth)
        ]
    )
    stores = {
        "small": write_store(tmp / "store-small", small_pages),
        "large": write_store(tmp / "store-large", large_pages),
    }
    cases = passage_cases(claims, rng)
    items = [_case_item(k, c) for k, c in enumerate(cases)]
    cache = tmp / "cache"
    if rounds == 0:  # stores and claims only (for --only cli)
        return {
            "claims": len(claims),
            "store_pages": {k: len(v.files()) for k, v in stores.items()},
        }, claims
    report: dict[str, Any] = {
        "claims": len(claims),
        "cases": len(cases),
        "store_pages": {k: len(v.files()) for k, v in stores.items()},
        "store_chars": {
            "small": sum(len(t) for _, _, t in small_pages),
            "large": sum(len(t) for _, _, t in large_pages),
        },
    }
    # each store's quote index once (cold), then the rounds (warm: loaded from the cache)
    build: dict[str, Any] = {}
    for size, store in stores.items():
        task = CitationEvalTask(world, store, no_gold=True, cache_root=cache)
        t0 = time.perf_counter()
        idx = task.search.store_index()
        t1 = time.perf_counter()
        widx = task.search.world_index()
        t2 = time.perf_counter()
        build[size] = {
            "store_index_s": round(t1 - t0, 2),
            "store_texts": len(idx) if idx is not None else 0,
            "store_fingerprints": len(idx.fp) if idx is not None else 0,
            "abstracts_index_s": round(t2 - t1, 2),
            "abstracts": len(widx) if widx is not None else 0,
        }
        t0 = time.perf_counter()
        CitationEvalTask(world, store, no_gold=True, cache_root=cache).search.store_index()
        build[size]["store_index_load_s"] = round(time.perf_counter() - t0, 3)
    report["index"] = build
    timings: dict[str, list[dict[str, float]]] = {"small": [], "large": []}
    results: dict[str, list[tuple[Case, OutputLine]]] = {}
    for _ in range(rounds):
        for size, store in stores.items():
            task = CitationEvalTask(world, store, no_gold=True, cache_root=cache)
            task.search.store_index()
            task.search.world_index()
            per_kind: dict[str, float] = defaultdict(float)
            out: list[tuple[Case, OutputLine]] = []
            for case, it in zip(cases, items, strict=True):
                t0 = time.perf_counter()
                line = task.check(it)
                per_kind[case.kind] += time.perf_counter() - t0
                out.append((case, line))
            timings[size].append(dict(per_kind))
            results[size] = out
    kinds = list(dict.fromkeys(c.kind for c in cases))
    counts = Counter(c.kind for c in cases)
    per_size: dict[str, Any] = {}
    for size, out in results.items():
        acc: dict[str, list[bool]] = defaultdict(list)
        labels: dict[str, Counter[str]] = defaultdict(Counter)
        for case, line in out:
            good = case.ok(line, stores[size])
            acc[case.kind].append(good)
            labels[case.kind][_label(line)] += 1
            if not good and len(errors) < 400:
                sv = (
                    line.result["citation_evaluations"][0]["source_verification"]
                    if line.result
                    else {}
                )
                errors.append(
                    {
                        "section": "passages",
                        "size": size,
                        "kind": case.kind,
                        "source": case.source,
                        "content": case.content[:600],
                        "got": _label(line),
                        "reasoning": sv.get("reasoning", line.error),
                    }
                )
        best = {k: min(t[k] for t in timings[size]) for k in kinds}
        total = min(sum(t.values()) for t in timings[size])
        per_size[size] = {
            "accuracy": round(sum(sum(v) for v in acc.values()) / len(out), 4),
            "items_per_s": round(len(out) / total, 1),
            "ms_per_item": round(1000 * total / len(out), 2),
            "rounds_s": [round(sum(t.values()), 2) for t in timings[size]],
            "per_kind": {
                k: {
                    "n": counts[k],
                    "accuracy": round(sum(acc[k]) / len(acc[k]), 4),
                    "labels": dict(labels[k]),
                    "items_per_s": round(counts[k] / best[k], 1),
                }
                for k in kinds
            },
        }
    report["per_size"] = per_size
    small_t = [sum(t.values()) for t in timings["small"]]
    large_t = [sum(t.values()) for t in timings["large"]]
    report["large_vs_small_time_per_item"] = {
        "best_vs_best": round(min(large_t) / min(small_t), 3),
        "within_rounds": [round(b / a, 3) for a, b in zip(small_t, large_t, strict=True)],
        "median": round(statistics.median(b / a for a, b in zip(small_t, large_t, strict=True)), 3),
    }
    return report, claims


# -------------------------------------------------------------------- the whole check process


def _cli_items(claims: list[Claim], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for c in claims:
            row = {
                "id": f"wice-{c.page.id}",
                "question": f"What does the page say about: {c.claim[:80]}",
                "answer": c.claim,
                "citations": [
                    {
                        "citation_id": 1,
                        "claim": c.claim,
                        "cited_content": " ".join(_pick(c, 5)),
                        "source": c.page.url,
                    }
                ],
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _cli_once(
    code: Path | None, items: Path, store: Path, tmp: Path, model: str, tag: str
) -> dict[str, Any]:
    out = tmp / f"out-{tag}.jsonl"
    cache = tmp / f"cache-{tag}"
    shutil.rmtree(cache, ignore_errors=True)
    cmd = [
        sys.executable,
        "-c",
        "import sys; from citejudge.cli import main; sys.exit(main(sys.argv[1:]))",
        "check",
        "citation-eval",
        str(items),
        "--fulltext",
        str(store),
        "--no-gold",
        "--out",
        str(out),
        "--cache-dir",
        str(cache),
        "-q",
        *(["--no-llm"] if model.lower() == "none" else ["--model", model]),
    ]
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code / "src")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    secs = time.perf_counter() - t0
    labels: Counter[str] = Counter()
    if out.is_file():
        for line in out.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            if d["result"] is None:
                labels["error"] += 1
            else:
                for ev in d["result"]["citation_evaluations"]:
                    labels[ev["source_verification"]["judgement"]] += 1
    return {
        "s": round(secs, 1),
        "exit": proc.returncode,
        "labels": dict(labels),
        **({"stderr": proc.stderr[-600:]} if proc.returncode else {}),
    }


def run_cli(
    claims: list[Claim], tmp: Path, model: str, old: str | None, rounds: int
) -> dict[str, Any]:
    """``check citation-eval`` on the issue's shape as a whole process, this code and ``old`` in turns."""
    items = tmp / "cli-items.jsonl"
    _cli_items(claims, items)
    store = tmp / "store-small"
    codes: dict[str, Path | None] = {"this": None}
    if old:
        dest = tmp / "old-code"
        dest.mkdir()
        archive = subprocess.run(
            ["git", "archive", old], cwd=HERE.parent, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        codes[old] = dest
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in codes}
    for r in range(rounds):
        for name, code in codes.items():
            runs[name].append(_cli_once(code, items, store, tmp, model, f"{name[:12]}-{r}"))
    return {
        "items": len(claims),
        "model": model,
        "command": "citejudge check citation-eval ITEMS --fulltext STORE --no-gold --out OUT --cache-dir FRESH -q "
        + ("--no-llm" if model.lower() == "none" else f"--model {model}"),
        "runs": runs,
    }


def support_cases(shared: Path, n: int, rng: random.Random) -> list[tuple[str, str, str, str]]:
    """(dataset, claim, evidence, gold label) with up to ``n`` pairs per dataset and label."""
    pools: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    hv = {"Supports": "ENTAILMENT", "Refutes": "CONTRADICTION", "Neutral": "NEUTRAL"}
    with (shared / "claims" / "healthver_dev.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row.get("label") in hv and row.get("claim") and row.get("evidence"):
                pools[("healthver", hv[row["label"]])].append(
                    (row["claim"].strip(), row["evidence"].strip())
                )
    with (shared / "claims" / "scifact_rte_train.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            lab = {"entailment": "ENTAILMENT", "not_entailment": "NOT_ENTAILMENT"}.get(
                row.get("entailment", "")
            )
            if lab:
                pools[("scifact", lab)].append((row["sentence2"].strip(), row["sentence1"].strip()))
    ctk = {"SUPPORTS": "ENTAILMENT", "REFUTES": "CONTRADICTION", "NOT ENOUGH INFO": "NEUTRAL"}
    for line in (shared / "claims" / "ctkfacts_cs.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        d = json.loads(line)
        ev = " ".join(
            " ".join(e) if isinstance(e, list) else str(e) for e in d.get("evidence") or []
        )
        if d.get("label") in ctk and ev.strip():
            pools[("ctkfacts", ctk[d["label"]])].append((d["claim"], ev[:1500]))
    out = []
    for (ds, lab), rows in sorted(pools.items()):
        for claim, ev in rng.sample(rows, min(n, len(rows))):
            out.append((ds, claim, ev, lab))
    return out


def run_support(shared: Path, model: str, n: int, seed: int) -> dict[str, Any]:
    """Label the support pairs with the model's judge and report agreement with the gold labels."""
    from citejudge.judge.cards import load_card
    from citejudge.judge.core import Judge
    from citejudge.judge.registry import make_backend

    cases = support_cases(shared, n, random.Random(seed))
    t0 = time.perf_counter()
    card = load_card(model)
    backend = make_backend(card)
    load_s = time.perf_counter() - t0
    decider = LlmSupportDecider(
        Judge(backend, card.sampling), SUPPORT_FORM
    )  # the model itself, never the card's scorer
    t1 = time.perf_counter()
    labels = [
        SUPPORT_FORM.task_label(d.label)
        for d in decider.decide([support_question(c, e) for _, c, e, _ in cases])
    ]
    secs = time.perf_counter() - t1
    per_ds: dict[str, dict[str, Any]] = {}
    for ds in sorted({c[0] for c in cases}):
        rows = [
            (gold, label) for (d0, _, _, gold), label in zip(cases, labels, strict=True) if d0 == ds
        ]
        # 3-way agreement only for sets with three gold labels (SciFact RTE has two).
        three = [] if any(g == "NOT_ENTAILMENT" for g, _ in rows) else rows
        conf: dict[str, Counter[str]] = defaultdict(Counter)
        for g, p in rows:
            conf[g][p or "invalid"] += 1
        per_ds[ds] = {
            "n": len(rows),
            "agreement_3way": round(sum(g == p for g, p in three) / len(three), 4)
            if three
            else None,
            "agreement_entailment_vs_not": round(
                sum((g == "ENTAILMENT") == (p == "ENTAILMENT") for g, p in rows) / len(rows), 4
            )
            if rows
            else None,
            "invalid": sum(p is None for _, p in rows),
            "confusion": {g: dict(c) for g, c in sorted(conf.items())},
        }
    return {
        "model": model,
        "revision": backend.revision,
        "load_s": round(load_s, 1),
        "pairs": len(cases),
        "s_per_pair": round(secs / len(cases), 3) if cases else None,
        "predicted": dict(Counter(label or "invalid" for label in labels)),
        "per_dataset": per_ds,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared data folder")
    ap.add_argument(
        "--verify-n", type=int, default=200, help="works sampled for source verification"
    )
    ap.add_argument(
        "--support-n", type=int, default=20, help="pairs per dataset and label for support"
    )
    ap.add_argument(
        "--model", default="cpu-default", help="model card for the support judge, or 'none'"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--passages", type=int, default=222, help="WiCE claims cited as passages")
    ap.add_argument(
        "--scale", type=int, default=10, help="the large store is this many times the small"
    )
    ap.add_argument("--rounds", type=int, default=2, help="timed rounds over the two store sizes")
    ap.add_argument("--cli", action="store_true", help="also time check citation-eval as a process")
    ap.add_argument(
        "--cli-model", default="cpu-default", help="model of the timed check, or 'none'"
    )
    ap.add_argument(
        "--cli-old", metavar="COMMIT", help="also time the check with the code of COMMIT"
    )
    ap.add_argument("--cli-rounds", type=int, default=1, help="timed check runs of each code")
    ap.add_argument(
        "--only",
        default="verification,passages,cli,support",
        help="comma-separated sections to run",
    )
    ap.add_argument(
        "--errors", type=Path, help="write misclassified verification cases here (JSONL)"
    )
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if not (args.shared / "openalex" / "works.jsonl").is_file():
        print(f"shared data not found at {args.shared}", file=sys.stderr)
        return 2
    only = set(args.only.split(","))
    errors: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if "verification" in only:
            report["verification"] = run_verification(
                args.shared, tmp, args.verify_n, args.seed, errors
            )
        if "passages" in only or ("cli" in only and args.cli):
            if not (tmp / "w.index").is_dir():
                build_index([args.shared / "openalex" / "works.jsonl"], tmp / "w.index", workers=1)
            print("passages: building stores and cases", file=sys.stderr)
            report["passages"], claims = run_passages(
                args.shared,
                tmp,
                tmp / "w.index",
                args.passages,
                args.scale,
                args.rounds if "passages" in only else 0,
                args.seed,
                errors,
            )
            if args.cli and "cli" in only:
                print("cli: timing check citation-eval", file=sys.stderr)
                report["cli"] = run_cli(claims, tmp, args.cli_model, args.cli_old, args.cli_rounds)
    if args.model.lower() != "none" and "support" in only:
        try:
            report["support"] = run_support(args.shared, args.model, args.support_n, args.seed)
        except Exception as exc:  # report the reason; verification numbers stand on their own
            report["support"] = {"model": args.model, "pending": f"{type(exc).__name__}: {exc}"}
    if args.errors:
        args.errors.write_text(
            "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in errors), encoding="utf-8"
        )
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
