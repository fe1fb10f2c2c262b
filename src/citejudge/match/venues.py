"""Venue comparison: journal / conference / publisher names, full or abbreviated.

Two venue strings match when they are equal modulo case, punctuation, diacritics, a leading
"The" / "Proceedings of the", ordinals and years; when they name the same entry of the
short-name table below (NeurIPS ↔ Advances in Neural Information Processing Systems); or when
one is an ISO 4 style abbreviation of the other: each abbreviated word is a prefix of the
corresponding full word (or a known non-prefix abbreviation, e.g. "Natl." → National) and the
full form may have extra short function words ("of", "the", "and", "on"…).

An abbreviation that fits the record's venue but also other known venues (or only the start
of the record's venue, like "J. Phys." for "Journal of Physics A") is "ambiguous"; the caller
treats that as a mismatch (the spec allows abbreviations "only if unambiguous").
Workshops, Findings, companion volumes and the like are different venues from the main event.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Literal

from citejudge.text.normalize import fold
from citejudge.text.venue_names import is_book_series, is_venue_name, venue_tokens

__all__ = [
    "VenueCheck",
    "canonical_venue_ids",
    "compare_venue",
    "is_book_series",
    "is_repository_doi",
    "is_repository_name",
    "is_venue_name",
    "venue_heads",
    "venue_tokens",
]

Status = Literal["match", "mismatch", "ambiguous"]

_FUNCTION_WORDS = frozenset(
    {
        "of",
        "the",
        "and",
        "for",
        "in",
        "on",
        "at",
        "a",
        "an",
        "to",
        "und",
        "de",
        "des",
        "la",
        "le",
        "et",
    }
)
# Words that say what kind of venue it is but not which one: a cited venue made only of them
# ("Journal", "Proceedings of the", "International Conference") names no particular venue.
_GENERIC_WORDS = frozenset(
    {
        "journal",
        "j",
        "proceedings",
        "proc",
        "conference",
        "conf",
        "transactions",
        "trans",
        "symposium",
        "workshop",
        "annual",
        "international",
        "intl",
        "national",
        "meeting",
        "congress",
        "ieee",
        "acm",
        "series",
        "volume",
        "vol",
        "part",
        "edition",
    }
    | _FUNCTION_WORDS
)
_QUALIFIERS = frozenset(
    {
        "workshop",
        "workshops",
        "findings",
        "companion",
        "demo",
        "demonstrations",
        "student",
        "tutorial",
        "tutorials",
        "abstracts",
        "extended",
        "supplement",
        "adjunct",
        "posters",
        "doctoral",
    }
)
# ISO 4 / NLM word abbreviations that are not prefixes of the word they abbreviate.
_WORD_ABBREV: dict[str, tuple[str, ...]] = {
    "natl": ("national",),
    "intl": ("international",),
    "int'l": ("international",),
    "mgmt": ("management",),
    "govt": ("government",),
    "dept": ("department",),
    "jpn": ("japan", "japanese"),
    "ctr": ("center", "centre"),
    "assn": ("association",),
    "bd": ("board",),
    "pnas": ("pnas",),
    "usa": ("usa",),
    "sympos": ("symposium",),
    "eng": ("engineering", "english"),
    "confs": ("conferences",),
    "ieice": ("ieice",),
    "syst": ("systems", "system"),
    "acad": ("academy",),
    "res": ("research",),
    "lett": ("letters",),
}
# Publisher-ish leading words that long conference names carry and short names drop.
_ORG_PREFIX = frozenset(
    {
        "ieee",
        "cvf",
        "acm",
        "sigkdd",
        "ieeecvf",
        "usenix",
        "siam",
        "ifip",
        "aaai",
        "proceedings",
        "proc",
    }
)

# canonical id -> names (folded forms are computed at lookup). Written for this project.
_VENUES: dict[str, tuple[str, ...]] = {
    "neurips": (
        "NeurIPS",
        "NIPS",
        "Advances in Neural Information Processing Systems",
        "Neural Information Processing Systems",
        "Conference on Neural Information Processing Systems",
        "Adv. Neural Inf. Process. Syst.",
        "NeurIPS Datasets and Benchmarks",
    ),
    "icml": (
        "ICML",
        "International Conference on Machine Learning",
        "Int. Conf. Mach. Learn.",
        "PMLR ICML",
    ),
    "iclr": (
        "ICLR",
        "International Conference on Learning Representations",
        "Int. Conf. Learn. Represent.",
    ),
    "cvpr": (
        "CVPR",
        "Conference on Computer Vision and Pattern Recognition",
        "IEEE Conference on Computer Vision and Pattern Recognition",
        "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
        "Computer Vision and Pattern Recognition",
        "IEEE Conf. Comput. Vis. Pattern Recog.",
    ),
    "iccv": (
        "ICCV",
        "International Conference on Computer Vision",
        "IEEE International Conference on Computer Vision",
        "IEEE/CVF International Conference on Computer Vision",
        "Int. Conf. Comput. Vis.",
    ),
    "eccv": ("ECCV", "European Conference on Computer Vision", "Eur. Conf. Comput. Vis."),
    "wacv": (
        "WACV",
        "Winter Conference on Applications of Computer Vision",
        "IEEE/CVF Winter Conference on Applications of Computer Vision",
    ),
    "bmvc": ("BMVC", "British Machine Vision Conference"),
    "acl": (
        "ACL",
        "Annual Meeting of the Association for Computational Linguistics",
        "Association for Computational Linguistics",
        "Meeting of the Association for Computational Linguistics",
        "ACL (1)",
        "ACL (Volume 1: Long Papers)",
    ),
    "emnlp": (
        "EMNLP",
        "Conference on Empirical Methods in Natural Language Processing",
        "Empirical Methods in Natural Language Processing",
        "EMNLP (1)",
    ),
    "naacl": (
        "NAACL",
        "NAACL-HLT",
        "NAACL HLT",
        "North American Chapter of the Association for Computational Linguistics",
        "Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies",
        "Conference of the North American Chapter of the Association for Computational Linguistics",
        "NAACL-HLT (1)",
    ),
    "eacl": (
        "EACL",
        "Conference of the European Chapter of the Association for Computational Linguistics",
        "European Chapter of the Association for Computational Linguistics",
    ),
    "coling": ("COLING", "International Conference on Computational Linguistics"),
    "aaai": (
        "AAAI",
        "AAAI Conference on Artificial Intelligence",
        "Conference on Artificial Intelligence",
        "National Conference on Artificial Intelligence",
        "Proceedings of the AAAI Conference on Artificial Intelligence",
    ),
    "ijcai": ("IJCAI", "International Joint Conference on Artificial Intelligence"),
    "kdd": (
        "KDD",
        "SIGKDD",
        "ACM SIGKDD International Conference on Knowledge Discovery and Data Mining",
        "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
        "International Conference on Knowledge Discovery and Data Mining",
        "Knowledge Discovery and Data Mining",
    ),
    "www": (
        "WWW",
        "TheWebConf",
        "The Web Conference",
        "Web Conference",
        "International World Wide Web Conference",
        "World Wide Web Conference",
        "ACM Web Conference",
        "International Conference on World Wide Web",
    ),
    "sigir": (
        "SIGIR",
        "International ACM SIGIR Conference on Research and Development in Information Retrieval",
        "ACM SIGIR Conference on Research and Development in Information Retrieval",
        "Research and Development in Information Retrieval",
    ),
    "chi": (
        "CHI",
        "CHI Conference on Human Factors in Computing Systems",
        "Conference on Human Factors in Computing Systems",
        "Human Factors in Computing Systems",
    ),
    "uai": (
        "UAI",
        "Conference on Uncertainty in Artificial Intelligence",
        "Uncertainty in Artificial Intelligence",
    ),
    "aistats": (
        "AISTATS",
        "International Conference on Artificial Intelligence and Statistics",
        "Artificial Intelligence and Statistics",
    ),
    "colt": (
        "COLT",
        "Conference on Learning Theory",
        "Annual Conference on Learning Theory",
        "Annual Conference Computational Learning Theory",
    ),
    "corl": ("CoRL", "Conference on Robot Learning"),
    "icra": (
        "ICRA",
        "IEEE International Conference on Robotics and Automation",
        "International Conference on Robotics and Automation",
    ),
    "iros": (
        "IROS",
        "IEEE/RSJ International Conference on Intelligent Robots and Systems",
        "International Conference on Intelligent Robots and Systems",
    ),
    "wsdm": (
        "WSDM",
        "ACM International Conference on Web Search and Data Mining",
        "Web Search and Data Mining",
    ),
    "cikm": (
        "CIKM",
        "ACM International Conference on Information and Knowledge Management",
        "Conference on Information and Knowledge Management",
    ),
    "icde": (
        "ICDE",
        "IEEE International Conference on Data Engineering",
        "International Conference on Data Engineering",
    ),
    "sigmod": (
        "SIGMOD",
        "SIGMOD Conference",
        "ACM SIGMOD International Conference on Management of Data",
        "International Conference on Management of Data",
    ),
    "vldb": (
        "VLDB",
        "Proc. VLDB Endow.",
        "Proceedings of the VLDB Endowment",
        "PVLDB",
        "International Conference on Very Large Data Bases",
    ),
    "ccs": (
        "CCS",
        "ACM CCS",
        "ACM Conference on Computer and Communications Security",
        "Conference on Computer and Communications Security",
        "ACM SIGSAC Conference on Computer and Communications Security",
    ),
    "usenixsec": ("USENIX Security", "USENIX Security Symposium"),
    "sp": (
        "IEEE S&P",
        "S&P",
        "SP",
        "IEEE Symposium on Security and Privacy",
        "Symposium on Security and Privacy",
    ),
    "interspeech": (
        "Interspeech",
        "INTERSPEECH",
        "Annual Conference of the International Speech Communication Association",
    ),
    "icassp": (
        "ICASSP",
        "IEEE International Conference on Acoustics, Speech and Signal Processing",
        "International Conference on Acoustics, Speech, and Signal Processing",
    ),
    "miccai": (
        "MICCAI",
        "Medical Image Computing and Computer Assisted Intervention",
        "International Conference on Medical Image Computing and Computer-Assisted Intervention",
    ),
    "siggraph": ("SIGGRAPH", "ACM SIGGRAPH"),
    "stoc": (
        "STOC",
        "ACM Symposium on Theory of Computing",
        "Symposium on Theory of Computing",
        "Annual ACM Symposium on Theory of Computing",
    ),
    "focs": (
        "FOCS",
        "IEEE Symposium on Foundations of Computer Science",
        "Symposium on Foundations of Computer Science",
        "Annual Symposium on Foundations of Computer Science",
    ),
    "soda": (
        "SODA",
        "ACM-SIAM Symposium on Discrete Algorithms",
        "Symposium on Discrete Algorithms",
        "Annual ACM-SIAM Symposium on Discrete Algorithms",
    ),
    "icalp": ("ICALP", "International Colloquium on Automata, Languages, and Programming"),
    "alt": (
        "ALT",
        "International Conference on Algorithmic Learning Theory",
        "Algorithmic Learning Theory",
    ),
    "ecai": ("ECAI", "European Conference on Artificial Intelligence"),
    "aamas": (
        "AAMAS",
        "International Conference on Autonomous Agents and Multiagent Systems",
        "Autonomous Agents and Multi-Agent Systems",
    ),
    "icdm": (
        "ICDM",
        "IEEE International Conference on Data Mining",
        "International Conference on Data Mining",
    ),
    "sdm": ("SDM", "SIAM International Conference on Data Mining"),
    "mm": ("ACM MM", "ACM Multimedia", "ACM International Conference on Multimedia"),
    "recsys": ("RecSys", "ACM Conference on Recommender Systems"),
    "icse": ("ICSE", "International Conference on Software Engineering"),
    "sysml": (
        "MLSys",
        "SysML",
        "Conference on Machine Learning and Systems",
        "Proceedings of Machine Learning and Systems",
    ),
    "tacl": (
        "TACL",
        "Transactions of the Association for Computational Linguistics",
        "Trans. Assoc. Comput. Linguistics",
    ),
    "cl": ("Computational Linguistics", "Comput. Linguistics"),
    "jmlr": ("JMLR", "Journal of Machine Learning Research", "J. Mach. Learn. Res."),
    "tmlr": ("TMLR", "Transactions on Machine Learning Research", "Trans. Mach. Learn. Res."),
    "tpami": (
        "TPAMI",
        "PAMI",
        "IEEE TPAMI",
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        "IEEE Trans. Pattern Anal. Mach. Intell.",
        "Transactions on Pattern Analysis and Machine Intelligence",
    ),
    "ijcv": (
        "IJCV",
        "International Journal of Computer Vision",
        "Int. J. Comput. Vis.",
        "Int. J. Comput. Vision",
    ),
    "tip": ("TIP", "IEEE Transactions on Image Processing", "IEEE Trans. Image Process."),
    "tnnls": (
        "TNNLS",
        "IEEE Transactions on Neural Networks and Learning Systems",
        "IEEE Trans. Neural Networks Learn. Syst.",
    ),
    "tkde": (
        "TKDE",
        "IEEE Transactions on Knowledge and Data Engineering",
        "IEEE Trans. Knowl. Data Eng.",
    ),
    "ml": ("Mach. Learn.", "Machine Learning", "Mach Learn"),
    "aij": ("Artif. Intell.", "Artificial Intelligence", "AIJ"),
    "jair": ("JAIR", "Journal of Artificial Intelligence Research", "J. Artif. Intell. Res."),
    "neco": ("Neural Computation", "Neural Comput."),
    "nn": ("Neural Networks", "Neural Netw."),
    "pnas": (
        "PNAS",
        "Proceedings of the National Academy of Sciences",
        "Proceedings of the National Academy of Sciences of the United States of America",
        "Proc. Natl. Acad. Sci. U.S.A.",
        "Proc. Natl. Acad. Sci. USA",
        "Proc Natl Acad Sci U S A",
    ),
    "nejm": ("NEJM", "New England Journal of Medicine", "N. Engl. J. Med.", "N Engl J Med"),
    "jama": ("JAMA", "Journal of the American Medical Association", "J. Am. Med. Assoc."),
    "bmj": ("BMJ", "British Medical Journal", "Br. Med. J."),
    "lancet": ("Lancet", "The Lancet"),
    "nature": ("Nature",),
    "science": ("Science",),
    "ncomms": ("Nature Communications", "Nat. Commun.", "Nat Commun"),
    "plosone": ("PLoS ONE", "PLOS ONE", "PLoS One", "PloS one"),
    "prl": ("PRL", "Physical Review Letters", "Phys. Rev. Lett."),
    "arxiv": (
        "arXiv",
        "CoRR",
        "arXiv preprint",
        "ArXiv",
        "Computing Research Repository",
        "arXiv.org",
        "arXiv (Cornell University)",
    ),
    "biorxiv": ("bioRxiv", "bioRxiv preprint", "Cold Spring Harbor Laboratory"),
    "medrxiv": ("medRxiv", "medRxiv preprint"),
    "jcp_chem": ("J. Chem. Phys.", "Journal of Chemical Physics", "JCP"),
    "jcp_comp": ("J. Comput. Phys.", "Journal of Computational Physics", "JCP"),
    # physics and astronomy, as arXiv papers' bibliographies (unarXive, INSPIRE, ADS) cite them:
    # acronyms, and abbreviations ISO 4 alone does not read (a one-letter word, a "der", a
    # subtitle the abbreviation leaves out)
    "prd": (
        "PRD",
        "Physical Review D",
        "Phys. Rev. D",
        "Physical Review D, Particles, fields, gravitation, and cosmology",
        "Physical review. D. Particles and fields",
    ),
    "prb": ("PRB", "Physical Review B", "Phys. Rev. B"),
    "pra": ("PRA", "Physical Review A", "Phys. Rev. A"),
    "prc": ("PRC", "Physical Review C", "Phys. Rev. C"),
    "pre": ("PRE", "Physical Review E", "Phys. Rev. E"),
    "prx": ("PRX", "Physical Review X", "Phys. Rev. X"),
    "rmp": ("RMP", "Reviews of Modern Physics", "Rev. Mod. Phys."),
    "physrep": ("Physics Reports", "Phys. Rep.", "Phys. Rept.", "Phys. Reports"),
    "jhep": ("JHEP", "Journal of High Energy Physics", "J. High Energy Phys."),
    "jcap": (
        "JCAP",
        "Journal of Cosmology and Astroparticle Physics",
        "J. Cosmol. Astropart. Phys.",
    ),
    "ptep": ("PTEP", "Progress of Theoretical and Experimental Physics", "Prog. Theor. Exp. Phys."),
    "cqg": (
        "CQG",
        "Classical and Quantum Gravity",
        "Class. Quantum Grav.",
        "Class. Quant. Grav.",
    ),
    "epjc": (
        "EPJC",
        "Eur. Phys. J. C",
        "The European Physical Journal C",
        "European Physical Journal C",
    ),
    "nima": (
        "NIM A",
        "Nucl. Instrum. Meth. A",
        "Nucl. Instrum. Methods A",
        "Nucl. Instrum. Methods Phys. Res. A",
        "Nucl. Instrum. Methods Phys. Res., Sect. A",
        "Nuclear Instruments and Methods in Physics Research A",
        "Nuclear Instruments and Methods in Physics Research Section A",
        "Nuclear Instruments and Methods in Physics Research Section A: Accelerators, "
        "Spectrometers, Detectors and Associated Equipment",
    ),
    "physica_a": (
        "Physica A",
        "Physica A: Statistical Mechanics and its Applications",
        "Physica A Statistical Mechanics and its Applications",
    ),
    "physica_d": ("Physica D", "Physica D: Nonlinear Phenomena", "Physica D Nonlinear Phenomena"),
    "jstat": (
        "JSTAT",
        "J. Stat. Mech.",
        "J. Stat. Mech. Theory Exp.",
        "Journal of Statistical Mechanics: Theory and Experiment",
    ),
    "fortschr_phys": (
        "Fortsch. Phys.",
        "Fortschr. Phys.",
        "Fortschritte der Physik",
        "Fortschritte der Physik/Progress of Physics",
    ),
    "zphys_c": (
        "Z. Phys. C",
        "Zeitschrift für Physik C Particles and Fields",
        "Zeitschrift für Physik C",
    ),
    "mnras": (
        "MNRAS",
        "Monthly Notices of the Royal Astronomical Society",
        "Mon. Not. R. Astron. Soc.",
        "Mon. Not. Roy. Astron. Soc.",
    ),
    "apj": ("ApJ", "The Astrophysical Journal", "Astrophysical Journal", "Astrophys. J."),
    "apjl": (
        "ApJL",
        "ApJ Letters",
        "The Astrophysical Journal Letters",
        "Astrophysical Journal Letters",
        "Astrophys. J. Lett.",
    ),
    "apjs": (
        "ApJS",
        "The Astrophysical Journal Supplement Series",
        "Astrophysical Journal Supplement Series",
        "Astrophys. J. Suppl.",
        "Astrophys. J. Suppl. Ser.",
    ),
    "aj": ("AJ", "The Astronomical Journal", "Astronomical Journal", "Astron. J."),
    "aa": ("A&A", "Astronomy and Astrophysics", "Astronomy & Astrophysics", "Astron. Astrophys."),
    "jetp": (
        "JETP",
        "Journal of Experimental and Theoretical Physics",
        "J. Exp. Theor. Phys.",
        "Sov. Phys. JETP",
        "Soviet Physics JETP",
    ),
}


# --------------------------------------------------------------------------- what a name is

# Preprint servers and repositories, for names a world gives no type for (BibTeX and CSL worlds,
# OpenAlex records before source types): a word of the name, or a run of words.
_REPOSITORY_WORDS = frozenset(
    {
        "arxiv",
        "corr",
        "biorxiv",
        "medrxiv",
        "chemrxiv",
        "psyarxiv",
        "socarxiv",
        "eartharxiv",
        "engrxiv",
        "techrxiv",
        "edarxiv",
        "ssrn",
        "repec",
        "econstor",
        "zenodo",
        "figshare",
        "pubmed",
        "europepmc",
        "citeseerx",
        "doaj",
        "escholarship",
        "infoscience",
        "preprints",
        "repository",
        "repositories",
        "repositorio",
        "repositorium",
        "eprints",
        "dspace",
        "researchgate",
    }
)
_REPOSITORY_PHRASES: tuple[tuple[str, ...], ...] = (
    ("research", "square"),
    ("agecon", "search"),
    ("osf", "preprints"),
    ("europe", "pmc"),
    ("pubmed", "central"),
    ("cern", "document", "server"),
    ("ucl", "discovery"),
    ("digital", "commons"),
    ("digital", "library", "of", "the", "commons"),
    ("data", "archiving", "and", "networked", "services"),
    ("social", "science", "research", "network"),
    ("research", "papers", "in", "economics"),
    ("open", "science", "framework"),
    ("archive", "ouverte"),
    ("archives", "ouvertes"),
    ("hyper", "articles", "en", "ligne"),
    ("white", "rose", "research", "online"),
    ("computing", "research", "repository"),
    ("cold", "spring", "harbor", "laboratory"),
)


def _has_run(toks: tuple[str, ...], run: tuple[str, ...]) -> bool:
    n = len(run)
    return any(toks[i : i + n] == run for i in range(len(toks) - n + 1))


@lru_cache(maxsize=1 << 14)
def is_repository_name(name: str) -> bool:
    """Whether ``name`` is a preprint server or a repository (arXiv, SSRN, HAL, RePEc, PubMed...).

    A repository holds copies of works published elsewhere (or not yet): its name cannot
    contradict a cited journal or conference. Used where the world gives no source type.
    """
    toks = venue_tokens(name)
    if not toks:
        return False
    if _REPOSITORY_WORDS.intersection(toks) or toks[0] == "hal":  # ("HAL (Le Centre pour…)")
        return True
    return any(_has_run(toks, run) for run in _REPOSITORY_PHRASES)


# DOIs that preprint servers and repositories register for their copies (bioRxiv and medRxiv:
# numeric suffixes; Cold Spring Harbor's journals share the prefix with lettered ones).
_REPOSITORY_DOI = re.compile(
    r"^10\.(?:48550/arxiv\.|1101/(?:\d{4}\.\d\d\.\d\d\.)?\d{5,}|2139/ssrn\.|21203/rs\.|"
    r"22004/ag\.econ\.|5281/zenodo\.|6084/m9\.figshare\.|3123[1-5]/|20944/preprints|"
    r"26434/chemrxiv|36227/techrxiv)",
    re.I,
)


def is_repository_doi(doi: str) -> bool:
    """Whether ``doi`` (canonical form) is one a preprint server or repository registered for its copy."""
    return _REPOSITORY_DOI.match(doi) is not None


# A parenthesised acronym after a name ("ACM Computing Surveys (CSUR)", "... Intervention (MICCAI)").
_ACRONYM_PAREN = re.compile(
    r"\s*\(\s*(?=[^\W\d_])(?=[^\W_]*[A-Z\u00c0-\u024f])[\w&\-]{1,11}\s*\)\s*$"
)
# A subtitle that describes the venue instead of naming a part of it ("Econometrica: Journal of the
# Econometric Society", "Neuron: an international journal"); "Series B", "Part A", "Conference
# Series" are parts and are never dropped.
_TAGLINE = re.compile(
    r"\s*[:\-–—]\s*(?:(?:an?|the)\s+)?(?:(?:international|official|interdisciplinary|quarterly|monthly)\s+)*"
    r"(?:journal|bulletin|organ|publication|review)\b(?!\s+(?:series|part|section)\b)[^:]*$",
    re.I,
)
# The date and place of a meeting after its name: "…Congress of Nematology, 8-13 June 2002, Tenerife, Spain".
_MEETING_NOTE = re.compile(
    r",\s*(?:\d{1,2}(?:\s*[-–]\s*\d{1,2})?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
    r"(?:\s+\d{1,2}(?:\s*[-–]\s*\d{1,2})?)?,?\s+(?:1[89]|20)\d\d\b.*$",
    re.I,
)


_PART_WORDS = frozenset({"series", "part", "section"})


def _series_head(toks: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens up to a series letter: the qualifier after it is a name of the series that changed.

    "Journal of the Royal Statistical Society: Series B (Methodological)" (its name until 1997)
    and "... Series B (Statistical Methodology)" are one journal; "Series A" is another.
    """
    for i in range(len(toks) - 2):
        if toks[i] in _PART_WORDS and len(toks[i + 1]) <= 2 and toks[i + 1].isalnum():
            return toks[: i + 2]
    return toks


def _series_letter(toks: tuple[str, ...]) -> str | None:
    """The letter (or number) of a series, part or section the name ends in (:func:`_series_head`)."""
    head = _series_head(toks)
    return head[-1] if head is not toks and len(head) >= 2 and head[-2] in _PART_WORDS else None


@lru_cache(maxsize=1 << 14)
def venue_heads(venue: str) -> frozenset[tuple[str, ...]]:
    """Token forms of a venue name, each with a part dropped that does not tell venues apart.

    The parts: a trailing acronym in brackets, a descriptive subtitle, a meeting's date and
    place, a series' qualifier (:func:`_series_head`).
    """
    forms = {venue}
    dropped = _ACRONYM_PAREN.sub("", venue)
    forms.add(dropped)
    dated = _MEETING_NOTE.sub("", venue)
    if dated != venue:
        forms.add(dated)
    for v in list(forms):
        head = _TAGLINE.sub("", v)
        if head != v and venue_tokens(head):
            forms.add(head)
    heads = {t for t in (venue_tokens(v) for v in forms) if t}
    return frozenset(heads | {_series_head(t) for t in heads})


@dataclass(frozen=True)
class VenueCheck:
    """Result of comparing a cited venue with the record's venue names."""

    status: Status
    reason: str
    matched: str | None = None

    @property
    def ok(self) -> bool:
        """True only for "match"."""
        return self.status == "match"

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (for details)."""
        return {"status": self.status, "reason": self.reason, "matched": self.matched}


def _abbrev_word(a: str, f: str) -> bool:
    """Tell whether ``a`` is the word ``f`` or an abbreviation of it."""
    if a == f:
        return True
    if a in _WORD_ABBREV and f in _WORD_ABBREV[a]:
        return True
    return len(a) < len(f) and f.startswith(a) and (len(a) >= 2 or a in {"j", "q"})


def _aligns(abbr: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """Tell whether each word of ``abbr`` abbreviates the next word of ``full``.

    Function words may be skipped on either side; all of ``full``'s content words must be used.
    """
    if (
        abbr
        and full
        and not (_lead_letters(abbr) & _lead_letters(full))
        and not _FUNCTION_WORDS.issuperset(full)
    ):
        return False  # the first matched pair of words must share its first letter

    @cache
    def go(i: int, j: int) -> bool:
        if i == len(abbr) and j == len(full):
            return True
        if j < len(full) and full[j] in _FUNCTION_WORDS and go(i, j + 1):
            return True
        if i < len(abbr) and abbr[i] in _FUNCTION_WORDS and go(i + 1, j):
            return True
        if i < len(abbr) and j < len(full) and _abbrev_word(abbr[i], full[j]):
            return go(i + 1, j + 1)
        return False

    return go(0, 0)


def _lead_letters(toks: tuple[str, ...]) -> set[str]:
    """First letters of the words up to and including the first content word (cheap pre-filter)."""
    out: set[str] = set()
    for t in toks:
        out.add(t[:1])
        if t not in _FUNCTION_WORDS:
            break
    return out


def _aligns_prefix(abbr: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """``abbr`` abbreviates only a leading part of ``full`` ("J. Phys." vs "Journal of Physics A")."""
    return any(_aligns(abbr, full[:k]) for k in range(1, len(full)))


def _strip_org(toks: tuple[str, ...]) -> tuple[str, ...]:
    t = list(toks)
    while t and t[0] in _ORG_PREFIX:
        t.pop(0)
    return tuple(t)


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[str, tuple[str, ...]], ...]:
    rows: list[tuple[str, tuple[str, ...]]] = []
    for vid, names in _VENUES.items():
        for n in names:
            toks = venue_tokens(n)
            if toks:
                rows.append((vid, toks))
    return tuple(rows)


@lru_cache(maxsize=1)
def _exact_ids() -> dict[tuple[str, ...], frozenset[str]]:
    """Table entries by their token form and their form without leading organisations."""
    found: dict[tuple[str, ...], set[str]] = {}
    for vid, toks in _table():
        for form in (toks, _strip_org(toks)):
            if form:
                found.setdefault(form, set()).add(vid)
    return {form: frozenset(ids) for form, ids in found.items()}


_PARENS = re.compile(r"\(([^()]*)\)")
_PART_SEPARATORS = re.compile(r"[,;:]")


def _segments(venue: str) -> list[tuple[str, ...]]:
    """The whole venue and its comma/parenthesis-separated parts, as token tuples."""
    s = _PARENS.sub(r", \1,", venue)
    out = [venue_tokens(venue)]
    out += [venue_tokens(p) for p in _PART_SEPARATORS.split(s)]
    return [t for t in out if t]


@lru_cache(maxsize=1 << 14)
def canonical_venue_ids(venue: str) -> frozenset[str]:
    """Ids of the short-name table entries the venue names exactly (whole string or one part)."""
    ids: set[str] = set()
    exact = _exact_ids()
    segs = _segments(venue)
    for seg in segs:
        for cand in {seg, _strip_org(seg)}:
            if cand:
                ids |= exact.get(cand, frozenset())
        if ids and seg == segs[0]:
            break  # the whole string names a venue: parts cannot add others
    return frozenset(ids)


@lru_cache(maxsize=1)
def _abbrev_rows() -> tuple[
    tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...],
    dict[str, list[int]],
    dict[str, list[int]],
    list[int],
]:
    """The table's rows of several words, indexed by the first letters :func:`_aligns` needs.

    Each row is listed under the lead letters a citation must share with it (its whole name,
    and its name without leading organisations); rows it does not pre-filter (names of function
    words, or of organisations alone) are listed apart. :func:`_abbrev_ids` tries only the rows
    so found, with the same outcome as trying all (a differential test checks it).
    """
    rows = tuple((vid, full, _strip_org(full)) for vid, full in _table() if len(full) > 1)
    whole: dict[str, list[int]] = {}
    stripped: dict[str, list[int]] = {}
    always: list[int] = []
    for i, (_, full, bare) in enumerate(rows):
        if _FUNCTION_WORDS.issuperset(full) or not bare or _FUNCTION_WORDS.issuperset(bare):
            always.append(i)
            continue
        for letter in _lead_letters(full):
            whole.setdefault(letter, []).append(i)
        for letter in _lead_letters(bare):
            stripped.setdefault(letter, []).append(i)
    return rows, whole, stripped, always


@lru_cache(maxsize=1 << 14)
def _abbrev_ids(venue: str) -> frozenset[str]:
    """Table entries the venue abbreviates (ISO 4 rule), e.g. "J. Mach. Learn. Res." -> jmlr."""
    toks = venue_tokens(venue)
    bare = _strip_org(toks)
    rows, whole, stripped, always = _abbrev_rows()
    if toks and bare:
        tried = set(always)
        for letter in _lead_letters(toks):
            tried.update(whole.get(letter, ()))
        for letter in _lead_letters(bare):
            tried.update(stripped.get(letter, ()))
        order: Iterable[int] = sorted(tried)
    else:  # (no pre-filter applies to an empty side)
        order = range(len(rows))
    out: set[str] = set()
    for i in order:
        vid, full, full_bare = rows[i]
        if vid not in out and (_aligns(toks, full) or _aligns(bare, full_bare)):
            out.add(vid)
    return frozenset(out)


def _qualifiers(venue: str) -> frozenset[str]:
    q = set(fold(venue).split()) & _QUALIFIERS
    return frozenset("workshop" if w.startswith("workshop") else w for w in q)


def _has_abbrev(venue: str) -> bool:
    return "." in venue or any(t in _WORD_ABBREV for t in venue_tokens(venue))


@lru_cache(maxsize=1 << 14)
def _compare_one(cited: str, rec: str) -> tuple[Status, str]:
    ct, rt = venue_tokens(cited), venue_tokens(rec)
    if not ct or not rt:
        # a name of edition words only ("Second", "Fortieth") has no tokens, yet is itself
        if fold(cited) == fold(rec):
            return "match", "same venue name"
        return "mismatch", "empty venue"
    qc, qr = _qualifiers(cited), _qualifiers(rec)
    if qc != qr:
        extra = sorted(qc ^ qr)
        return "mismatch", f"cited '{cited}' and record '{rec}' differ in kind ({', '.join(extra)})"
    if ct == rt or _strip_org(ct) == _strip_org(rt):
        return "match", "same venue name"
    lc, lr = _series_letter(ct), _series_letter(rt)
    if lc is not None and lr is not None and lc != lr:
        # "Series A" is another journal than "Series B", whatever a qualifier or an acronym
        # in brackets after the letter says
        return (
            "mismatch",
            f"cited '{cited}' is series {lc.upper()}, record '{rec}' series {lr.upper()}",
        )
    if venue_heads(cited) & venue_heads(rec):
        return (
            "match",
            "same venue name (bracketed acronym, descriptive subtitle, meeting date or series qualifier aside)",
        )
    ic, ir = canonical_venue_ids(cited), canonical_venue_ids(rec)
    if ic & ir:
        if len(ic) > 1 and len(ic - ir) >= 1:
            return "ambiguous", f"'{cited}' names several venues ({', '.join(sorted(ic))})"
        return "match", f"same venue ({sorted(ic & ir)[0]})"
    ac = ic or _abbrev_ids(cited)
    ar = ir or _abbrev_ids(rec)
    if ac and ar and ac & ar:
        if len(ac) > 1:
            return "ambiguous", f"'{cited}' abbreviates several venues ({', '.join(sorted(ac))})"
        return "match", f"abbreviation of the same venue ({sorted(ac & ar)[0]})"
    if _aligns(ct, rt) or _aligns(rt, ct) or _aligns(_strip_org(ct), _strip_org(rt)):
        if len(ac) > 1:
            return "ambiguous", f"'{cited}' abbreviates several venues ({', '.join(sorted(ac))})"
        return "match", "abbreviation of the record's venue"
    if _has_abbrev(cited) and (
        _aligns_prefix(ct, rt) or _aligns_prefix(_strip_org(ct), _strip_org(rt))
    ):
        return (
            "ambiguous",
            f"'{cited}' abbreviates only the start of '{rec}' (could be several venues)",
        )
    if ic and ir:
        return "mismatch", f"cited {sorted(ic)[0].upper()}, record venue is '{rec}'"
    return "mismatch", f"cited '{cited}', record venue is '{rec}'"


_LETTER = re.compile(r"[^\W\d_]")


def compare_venue(cited: str, record_venues: list[str]) -> VenueCheck:
    """Compare a cited venue with every name the record gives (venue, venue_alt, versions).

    "match" if any record name matches; else "ambiguous" if the cited abbreviation could be
    the record's venue but is not unambiguous; else "mismatch".
    """
    names = [v for v in record_venues if v and v.strip()]
    if not cited or not _LETTER.search(cited):
        return VenueCheck("match", "no venue cited")
    if all(t in _GENERIC_WORDS for t in venue_tokens(cited)) and not any(
        venue_tokens(cited) == venue_tokens(n) for n in names
    ):
        return VenueCheck("ambiguous", f"cited venue '{cited}' names no particular venue")
    if not names:
        return VenueCheck("mismatch", "record has no venue")
    results = [(_compare_one(cited, r), r) for r in names]
    for (status, reason), r in results:
        if status == "match":
            return VenueCheck("match", reason, r)
    for (status, reason), r in results:
        if status == "ambiguous":
            return VenueCheck("ambiguous", reason, r)
    return VenueCheck("mismatch", results[0][0][1], None)
