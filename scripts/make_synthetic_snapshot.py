#!/usr/bin/env python
"""Write a synthetic OpenAlex works snapshot in the legacy layout (for tests and benchmarks).

    DIR/data/works/updated_date=YYYY-MM-DD/part_NNN.gz     JSON lines, OpenAlex Work records
    DIR/data/works/manifest                                {"entries": [{"url", "meta": {...}}]}
    DIR/data/merged_ids/works/YYYY-MM-DD.csv.gz            merge_date,id,merge_into_id

Records look like real ones (ids incl. mag/pmid/pmcid for some, https://doi.org/ DOIs,
authorships with raw_author_name, primary_location.source.display_name, arXiv locations,
abstract_inverted_index). Titles come from templates over a domain vocabulary plus a Zipf-skewed
pool of made-up rare terms (gene/compound/method names), so title statistics resemble real
ones. Some records repeat an earlier work id in a later part (an updated record: the later one
wins), some titles are near-duplicates of others. Output is a pure function of
(works, seed, parts).

Usage: make_synthetic_snapshot.py --works N --out DIR [--seed S] [--parts P] [--workers W]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import sys
from pathlib import Path
from typing import Any, cast

import msgspec
from isal import igzip

__all__ = ["make_snapshot", "synth_title", "synth_work"]

DATES = ["2024-01-15", "2024-03-02", "2024-06-30", "2025-02-11"]
MERGE_DATES = ["2024-02-01", "2024-07-01"]
ID_BASE = 2_000_000_000

ADJ = [
    "adaptive",
    "robust",
    "scalable",
    "efficient",
    "sparse",
    "deep",
    "hierarchical",
    "probabilistic",
    "bayesian",
    "convolutional",
    "recurrent",
    "generative",
    "discriminative",
    "unsupervised",
    "supervised",
    "semi-supervised",
    "self-supervised",
    "federated",
    "distributed",
    "parallel",
    "stochastic",
    "nonlinear",
    "linear",
    "dynamic",
    "static",
    "multimodal",
    "multilingual",
    "cross-lingual",
    "contrastive",
    "variational",
    "adversarial",
    "graph-based",
    "attention-based",
    "physics-informed",
    "data-driven",
    "interpretable",
    "explainable",
    "fair",
    "private",
    "secure",
    "quantum",
    "classical",
    "molecular",
    "cellular",
    "genomic",
    "clinical",
    "longitudinal",
    "randomized",
    "retrospective",
    "prospective",
    "systematic",
    "comparative",
    "novel",
    "improved",
    "fast",
    "lightweight",
    "large-scale",
    "low-resource",
    "high-dimensional",
    "temporal",
    "spatial",
    "spatiotemporal",
    "causal",
    "structural",
    "functional",
]

NOUN = [
    "learning",
    "network",
    "networks",
    "model",
    "models",
    "representation",
    "representations",
    "inference",
    "estimation",
    "optimization",
    "classification",
    "segmentation",
    "detection",
    "recognition",
    "generation",
    "translation",
    "retrieval",
    "ranking",
    "recommendation",
    "clustering",
    "regression",
    "prediction",
    "forecasting",
    "control",
    "planning",
    "reasoning",
    "alignment",
    "transfer",
    "adaptation",
    "compression",
    "distillation",
    "pruning",
    "quantization",
    "embedding",
    "embeddings",
    "transformer",
    "transformers",
    "encoder",
    "decoder",
    "autoencoder",
    "diffusion",
    "attention",
    "kernel",
    "kernels",
    "manifold",
    "graph",
    "graphs",
    "tensor",
    "matrix",
    "factorization",
    "decomposition",
    "sampling",
    "simulation",
    "dynamics",
    "equilibrium",
    "stability",
    "convergence",
    "complexity",
    "bounds",
    "algorithm",
    "algorithms",
    "framework",
    "benchmark",
    "dataset",
    "corpus",
    "survey",
    "analysis",
    "evaluation",
    "study",
    "trial",
    "cohort",
    "patients",
    "expression",
    "protein",
    "proteins",
    "gene",
    "genes",
    "mutation",
    "mutations",
    "pathway",
    "receptor",
    "inhibitor",
    "therapy",
    "treatment",
    "diagnosis",
    "prognosis",
    "biomarkers",
    "imaging",
    "tomography",
    "microscopy",
    "spectroscopy",
    "sensor",
    "sensors",
    "signal",
    "signals",
    "noise",
    "channel",
    "channels",
    "antenna",
    "wireless",
    "communication",
    "energy",
    "battery",
    "catalyst",
    "catalysis",
    "synthesis",
    "polymer",
    "nanoparticles",
    "films",
    "crystal",
    "crystals",
    "alloy",
    "corrosion",
    "climate",
    "precipitation",
    "drought",
    "soil",
    "vegetation",
    "emissions",
    "carbon",
    "ocean",
    "ice",
    "atmosphere",
    "turbulence",
    "flow",
    "flows",
    "combustion",
    "fluid",
    "heat",
    "transfer",
    "plasma",
    "galaxy",
    "galaxies",
    "stars",
    "cosmology",
    "neutrino",
    "quark",
    "symmetry",
    "entanglement",
    "qubits",
    "policy",
    "markets",
    "inflation",
    "labor",
    "education",
    "students",
    "teachers",
    "health",
    "mortality",
    "risk",
    "infection",
    "vaccine",
    "virus",
    "bacteria",
    "microbiome",
    "inflammation",
    "cancer",
    "tumor",
    "tumors",
    "diabetes",
    "obesity",
    "depression",
    "anxiety",
    "cognition",
    "memory",
    "language",
    "speech",
    "vision",
    "robot",
    "robots",
    "agents",
    "games",
    "auctions",
    "privacy",
    "security",
    "attacks",
    "defense",
    "verification",
    "testing",
    "software",
    "code",
    "programs",
    "compilers",
    "databases",
    "queries",
    "storage",
    "caching",
    "scheduling",
    "networks-on-chip",
    "hardware",
    "circuits",
    "devices",
    "transistors",
    "memristors",
    "lasers",
    "photonics",
]

DOMAIN = [
    "healthcare",
    "medicine",
    "oncology",
    "cardiology",
    "neuroscience",
    "genomics",
    "proteomics",
    "epidemiology",
    "ecology",
    "agriculture",
    "hydrology",
    "seismology",
    "astronomy",
    "astrophysics",
    "cosmology",
    "chemistry",
    "materials",
    "metallurgy",
    "robotics",
    "autonomous-driving",
    "finance",
    "economics",
    "education",
    "linguistics",
    "law",
    "sociology",
    "psychology",
    "psychiatry",
    "pediatrics",
    "dentistry",
    "ophthalmology",
    "radiology",
    "surgery",
    "pharmacology",
    "toxicology",
    "nutrition",
    "sports",
    "manufacturing",
    "logistics",
    "transportation",
    "energy-systems",
    "power-grids",
    "smart-cities",
    "remote-sensing",
    "oceanography",
    "meteorology",
    "climate-science",
    "cybersecurity",
    "software-engineering",
    "computer-vision",
    "natural-language-processing",
    "speech-processing",
    "recommender-systems",
    "information-retrieval",
    "bioinformatics",
    "chemoinformatics",
]

METHOD = [
    "BERT",
    "GPT",
    "ResNet",
    "LSTM",
    "GAN",
    "VAE",
    "U-Net",
    "YOLO",
    "PointNet",
    "GraphSAGE",
    "AlphaFold",
    "CRISPR",
    "Monte-Carlo",
    "Kalman",
    "Fourier",
    "wavelet",
    "Lagrangian",
    "Hamiltonian",
    "Markov",
    "Gaussian",
    "Dirichlet",
    "Wasserstein",
    "Newton",
    "Krylov",
    "multigrid",
    "finite-element",
    "lattice-Boltzmann",
    "density-functional",
    "coupled-cluster",
    "mixed-effects",
    "instrumental-variable",
    "difference-in-differences",
    "meta-analysis",
]

TEMPLATES = [
    "{A} {N} for {N} {N}",
    "{A} {N} of {E} in {D}",
    "On the {N} of {A} {N}",
    "A {A} {N} approach to {N} {N} in {D}",
    "{M}: {A} {N} for {E} {N}",
    "{E} {N} and {N} in {A} {N}",
    "Towards {A} {N} with {M} {N}",
    "{N} {N} via {A} {M}",
    "The role of {E} in {N} {N}: a {A} {N}",
    "{A} {N} of {E} {N} using {M}",
    "Effects of {E} on {N} {N} among {N}",
    "{E}-mediated {N} regulates {N} in {D}",
    "Learning {A} {N} from {A} {N}",
    "{A} and {A} {N} for {E} {N} {N}",
    "A {A} {N} of {N} {N}: evidence from {D}",
    "{M}-based {N} {N} of {E} under {A} {N}",
]

FIRST = [
    "James",
    "Mary",
    "John",
    "Patricia",
    "Robert",
    "Jennifer",
    "Michael",
    "Linda",
    "William",
    "Elizabeth",
    "David",
    "Barbara",
    "Richard",
    "Susan",
    "Joseph",
    "Jessica",
    "Thomas",
    "Sarah",
    "Charles",
    "Karen",
    "Wei",
    "Li",
    "Yan",
    "Jing",
    "Hui",
    "Xin",
    "Ming",
    "Jun",
    "Hiroshi",
    "Yuki",
    "Akira",
    "Sakura",
    "Min-jun",
    "Ji-woo",
    "Seo-yeon",
    "Priya",
    "Rahul",
    "Anil",
    "Sunita",
    "Arjun",
    "Fatima",
    "Omar",
    "Ahmed",
    "Leila",
    "Hassan",
    "Olga",
    "Ivan",
    "Dmitri",
    "Natalia",
    "Sergei",
    "Anna",
    "Jan",
    "Petr",
    "Eva",
    "Tomas",
    "Lucie",
    "Pierre",
    "Marie",
    "Jean",
    "Claire",
    "Luc",
    "Hans",
    "Klaus",
    "Petra",
    "Jurgen",
    "Sofia",
    "Marco",
    "Giulia",
    "Luca",
    "Chiara",
    "Carlos",
    "Maria",
    "Jose",
    "Ana",
    "Juan",
    "Lucia",
    "Pedro",
    "Ingrid",
    "Lars",
    "Astrid",
    "Nils",
    "Emeka",
    "Ngozi",
    "Kwame",
    "Amara",
    "Zanele",
    "Thabo",
    "Mateus",
    "Beatriz",
    "Tiago",
    "Oleksandr",
]

LAST = [
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Hernandez",
    "Lopez",
    "Gonzalez",
    "Wilson",
    "Anderson",
    "Thomas",
    "Taylor",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Perez",
    "Thompson",
    "White",
    "Wang",
    "Li",
    "Zhang",
    "Liu",
    "Chen",
    "Yang",
    "Huang",
    "Zhao",
    "Wu",
    "Zhou",
    "Xu",
    "Sun",
    "Ma",
    "Zhu",
    "Hu",
    "Guo",
    "Lin",
    "He",
    "Gao",
    "Luo",
    "Tanaka",
    "Suzuki",
    "Takahashi",
    "Watanabe",
    "Ito",
    "Yamamoto",
    "Nakamura",
    "Kim",
    "Park",
    "Choi",
    "Jung",
    "Kang",
    "Cho",
    "Yoon",
    "Sharma",
    "Patel",
    "Singh",
    "Kumar",
    "Gupta",
    "Reddy",
    "Iyer",
    "Nair",
    "Khan",
    "Ali",
    "Hussain",
    "Rahman",
    "Ivanov",
    "Petrov",
    "Smirnov",
    "Novak",
    "Svoboda",
    "Dvorak",
    "Cerny",
    "Prochazka",
    "Kucera",
    "Muller",
    "Schmidt",
    "Schneider",
    "Fischer",
    "Weber",
    "Meyer",
    "Wagner",
    "Becker",
    "Rossi",
    "Russo",
    "Ferrari",
    "Esposito",
    "Bianchi",
    "Romano",
    "Dubois",
    "Durand",
    "Leroy",
    "Moreau",
    "Laurent",
    "Simon",
    "Michel",
    "Silva",
    "Santos",
    "Oliveira",
    "Souza",
    "Pereira",
    "Costa",
    "Almeida",
    "Nilsson",
    "Johansson",
    "Larsson",
    "Okafor",
    "Mensah",
    "Nkosi",
    "Dlamini",
    "Kowalski",
    "Nowak",
    "Wisniewski",
    "Horvath",
    "Nagy",
    "Szabo",
    "Papadopoulos",
    "Yilmaz",
    "Kaya",
    "Demir",
    "O'Brien",
    "Muñoz",
    "Núñez",
    "Ødegaard",
    "Çelik",
    "Dvořák",
    "Škoda",
    "Łukasik",
]

SYL = [
    "ka",
    "ri",
    "to",
    "mu",
    "ne",
    "so",
    "la",
    "vi",
    "pe",
    "dro",
    "xi",
    "zen",
    "tor",
    "lin",
    "gal",
    "phos",
    "ami",
    "cyt",
    "oxo",
    "thi",
    "eth",
    "pro",
    "met",
    "hex",
    "kin",
    "ase",
    "ine",
    "ol",
    "yl",
]
VENUE_T = [
    "Journal of {D}",
    "{D} Letters",
    "International Journal of {D}",
    "Proceedings of the Conference on {D}",
    "Annals of {D}",
    "{D} Research",
    "Frontiers in {D}",
    "IEEE Transactions on {D}",
    "Reviews of {D}",
]


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def _entity(rng: random.Random) -> str:
    """A made-up rare term, Zipf-skewed over a pool of ~200k (index -> deterministic word)."""
    idx = int(200_000 * rng.random() ** 3)
    r = random.Random(idx)
    w = "".join(r.choice(SYL) for _ in range(r.randint(2, 4)))
    if idx % 7 == 0:
        w = w.upper()[:4] + str(idx % 100)
    elif idx % 5 == 0:
        w = _cap(w)
    return w


def synth_title(seed: int, i: int) -> str:
    """The title of synthetic work ``i`` (deterministic)."""
    rng = random.Random(seed * 1_000_003 + i * 7919 + 17)
    tpl = rng.choice(TEMPLATES)
    out: list[str] = []
    pos = 0
    while True:
        j = tpl.find("{", pos)
        if j < 0:
            out.append(tpl[pos:])
            break
        out.append(tpl[pos:j])
        slot = tpl[j + 1]
        pos = j + 3
        if slot == "A":
            out.append(rng.choice(ADJ))
        elif slot == "N":
            out.append(rng.choice(NOUN) if rng.random() < 0.8 else _entity(rng))
        elif slot == "D":
            out.append(rng.choice(DOMAIN).replace("-", " "))
        elif slot == "M":
            out.append(rng.choice(METHOD))
        else:
            out.append(_entity(rng))
    title = "".join(out)
    return _cap(title)


def _venue(idx: int) -> str:
    r = random.Random(idx * 31 + 5)
    return r.choice(VENUE_T).format(D=_cap(r.choice(DOMAIN).replace("-", " ")))


def _abstract(rng: random.Random, title: str) -> dict[str, list[int]]:
    words = title.split()
    n = rng.randint(40, 110)
    for _ in range(n):
        words.append(rng.choice(NOUN) if rng.random() < 0.6 else rng.choice(ADJ))
    inv: dict[str, list[int]] = {}
    for p, w in enumerate(words):
        inv.setdefault(w, []).append(p)
    return inv


def _author(rng: random.Random, k: int) -> dict[str, Any]:
    first = rng.choice(FIRST)
    last = rng.choice(LAST)
    display = f"{first} {last}"
    style = rng.random()
    if style < 0.4:
        raw = display
    elif style < 0.7:
        raw = f"{first[0]}. {last}"
    elif style < 0.9:
        raw = f"{last}, {first}"
    else:
        raw = f"{last.upper()} {first}"
    aid = 5_000_000_000 + rng.randrange(10**9)
    author: dict[str, Any] = {"id": f"https://openalex.org/A{aid}", "display_name": display}
    author["orcid"] = (
        f"https://orcid.org/0000-000{rng.randint(1, 9)}-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
        if rng.random() < 0.3
        else None
    )
    return {
        "author_position": "first" if k == 0 else "middle",
        "author": author,
        "institutions": [],
        "countries": [],
        "is_corresponding": k == 0,
        "raw_author_name": raw,
        "raw_affiliation_strings": [],
    }


def synth_work(seed: int, i: int, updated: str, revision: int = 0) -> dict[str, Any]:
    """The OpenAlex record of synthetic work ``i`` (deterministic for seed, i, revision)."""
    rng = random.Random(seed * 1_000_000_007 + i * 104_729 + revision)
    wid = f"W{ID_BASE + i}"
    roll = rng.random()
    if i > 0 and roll < 0.02:  # near-duplicate of the previous work's title
        base = synth_title(seed, i - 1)
        title = base if rng.random() < 0.5 else base + " (extended version)"
    else:
        title = synth_title(seed, i)
    if revision:
        title = title.rstrip(".") + "."
    year = 1990 + int(35 * rng.random() ** 0.5)
    venue_idx = int(2000 * rng.random() ** 2)
    is_preprint = rng.random() < 0.12
    prefix = 1000 + (venue_idx * 37) % 9000
    doi: str | None
    if rng.random() < 0.85:
        doi = f"https://doi.org/10.{prefix}/j.{year}.{i % 100000:05d}.{i}"
    else:
        doi = None
    if doi and rng.random() < 0.002 and i > 0:  # a DOI shared by two works (it happens)
        doi = f"https://doi.org/10.{1000 + ((i - 1) * 37) % 9000}/shared.{i - 1}"
    arxiv = (
        f"{(year % 100):02d}{rng.randint(1, 12):02d}.{rng.randint(1, 29999):05d}"
        if (is_preprint or rng.random() < 0.05) and year >= 2008
        else None
    )
    primary_source = (
        {
            "id": "https://openalex.org/S4306400194",
            "display_name": "arXiv (Cornell University)",
            "type": "repository",
            "host_organization_name": "Cornell University",
        }
        if is_preprint
        else {
            "id": f"https://openalex.org/S{100000 + venue_idx}",
            "display_name": _venue(venue_idx),
            "type": "journal",
            "host_organization_name": None,
        }
    )
    primary = {
        "is_oa": is_preprint,
        "landing_page_url": f"https://arxiv.org/abs/{arxiv}" if is_preprint and arxiv else doi,
        "pdf_url": None,
        "source": primary_source,
        "license": None,
        "version": "submittedVersion" if is_preprint else "publishedVersion",
    }
    locations = [primary]
    if arxiv and not is_preprint:
        locations.append(
            {
                "is_oa": True,
                "landing_page_url": f"http://arxiv.org/abs/{arxiv}",
                "pdf_url": f"http://arxiv.org/pdf/{arxiv}",
                "source": {
                    "id": "https://openalex.org/S4306400194",
                    "display_name": "arXiv (Cornell University)",
                    "type": "repository",
                },
                "version": "submittedVersion",
            }
        )
    ids: dict[str, Any] = {"openalex": f"https://openalex.org/{wid}"}
    if doi:
        ids["doi"] = doi
    if rng.random() < 0.6:
        ids["mag"] = str(1_000_000_000 + i * 13)
    if rng.random() < 0.15:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{10_000_000 + i}"
        if rng.random() < 0.4:
            ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{2_000_000 + i}"
    nauth = 1 + int(8 * rng.random() ** 2)
    return {
        "id": f"https://openalex.org/{wid}",
        "doi": doi,
        "title": title,
        "display_name": title,
        "publication_year": year,
        "publication_date": f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "ids": ids,
        "language": "en",
        "primary_location": primary,
        "type": "preprint" if is_preprint else "article",
        "open_access": {"is_oa": is_preprint, "oa_status": "green" if is_preprint else "closed"},
        "authorships": [_author(rng, k) for k in range(nauth)],
        "cited_by_count": int(200 * rng.random() ** 4),
        "biblio": {
            "volume": str(rng.randint(1, 80)),
            "issue": str(rng.randint(1, 12)),
            "first_page": str(rng.randint(1, 900)),
            "last_page": None,
        },
        "is_retracted": rng.random() < 0.001,
        "is_paratext": False,
        "locations_count": len(locations),
        "locations": locations,
        "abstract_inverted_index": _abstract(rng, title) if rng.random() < 0.7 else None,
        "referenced_works_count": 0,
        "updated_date": updated + "T00:00:00.000000",
        "created_date": f"{min(year, 2024)}-01-01",
    }


def _part_plan(works: int, parts: int) -> list[tuple[int, int, int, str]]:
    """(part number, first work index, count, updated date) of every part."""
    plan = []
    base, extra = divmod(works, parts)
    start = 0
    for p in range(parts):
        n = base + (1 if p < extra else 0)
        date = DATES[p * len(DATES) // parts]
        plan.append((p, start, n, date))
        start += n
    return plan


def _write_part(args: tuple[Path, int, int, int, int, str]) -> tuple[str, int, int]:
    out, seed, p, start, n, date = args
    enc = msgspec.json.Encoder()
    d = out / "data" / "works" / f"updated_date={date}"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"part_{p:03d}.gz"
    rng = random.Random(seed * 7 + p)
    lines: list[bytes] = []
    count = 0
    with cast(Any, igzip).IGzipFile(path, "wb", compresslevel=1, mtime=0) as fh:  # stable bytes
        for i in range(start, start + n):
            if p > 0 and start > 0 and rng.random() < 0.005:
                # an updated record of a work of an earlier part (same id; this one wins)
                rec = synth_work(seed, rng.randrange(start), date, revision=1)
            else:
                rec = synth_work(seed, i, date)
            lines.append(enc.encode(rec))
            count += 1
            if len(lines) >= 2000:
                fh.write(b"\n".join(lines) + b"\n")
                lines = []
        if lines:
            fh.write(b"\n".join(lines) + b"\n")
    rel = path.relative_to(out).as_posix()
    return rel, count, path.stat().st_size


def _write_merged(out: Path, seed: int, works: int) -> int:
    rng = random.Random(seed + 99)
    d = out / "data" / "merged_ids" / "works"
    d.mkdir(parents=True, exist_ok=True)
    nmerged = max(2, works // 200)
    total = 0
    for k, date in enumerate(MERGE_DATES):
        rows = ["merge_date,id,merge_into_id"]
        for j in range(nmerged // len(MERGE_DATES)):
            gone = f"W{ID_BASE + works + 1000 + k * nmerged + j}"
            target = f"W{ID_BASE + rng.randrange(works)}"
            rows.append(f"{date},{gone},{target}")
        if k == 1 and nmerged >= 2:  # a chain: merged into an id merged earlier
            rows.append(f"{date},W{ID_BASE + works + 999},W{ID_BASE + works + 1000}")
        with cast(Any, igzip).IGzipFile(d / f"{date}.csv.gz", "wb", compresslevel=1, mtime=0) as fh:
            fh.write(("\n".join(rows) + "\n").encode())
        total += len(rows) - 1
    return total


def make_snapshot(
    out: Path, works: int, *, seed: int = 0, parts: int | None = None, workers: int = 2
) -> dict[str, Any]:
    """Write a synthetic snapshot of ``works`` records under ``out``; return a summary dict."""
    out = Path(out)
    if parts is None:
        parts = max(2, min(64, works // 50_000 + 1))
    parts = max(1, min(parts, works)) if works else 1
    jobs = [(out, seed, p, start, n, date) for p, start, n, date in _part_plan(works, parts)]
    if workers > 1 and len(jobs) > 1:
        with mp.get_context("fork").Pool(workers) as pool:
            results = pool.map(_write_part, jobs, chunksize=1)
    else:
        results = [_write_part(j) for j in jobs]
    entries = [
        {"url": f"s3://openalex/{rel}", "meta": {"content_length": size, "record_count": cnt}}
        for rel, cnt, size in results
    ]
    manifest = {
        "entries": entries,
        "meta": {
            "content_length": sum(e["meta"]["content_length"] for e in entries),  # type: ignore[index]
            "record_count": sum(e["meta"]["record_count"] for e in entries),  # type: ignore[index]
        },
    }
    (out / "data" / "works").mkdir(parents=True, exist_ok=True)
    (out / "data" / "works" / "manifest").write_text(json.dumps(manifest, indent=1))
    merged = _write_merged(out, seed, works)
    return {
        "out": str(out),
        "records": works,
        "parts": len(entries),
        "merged_ids": merged,
        "seed": seed,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--works", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parts", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    summary = make_snapshot(a.out, a.works, seed=a.seed, parts=a.parts, workers=a.workers)
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
