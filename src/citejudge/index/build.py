"""Build the embedded index of a world: SQLite for records, a sorted key file, Tantivy for titles.

Layout of an index directory::

    works.sqlite   works(rowid, id, data)     records (citejudge.index.codec: zstd'd msgpack),
                                              small rowids in part order (gaps: dropped rows)
                   redirects(id, target)      merged (target) or deleted (NULL) work ids
                   venue_alias(key, names)    the names of OpenAlex Sources
    lookup.u64     sorted 32-bit hash of "i:<work id>", "d:<doi>", "p:<pmid>", "c:<pmcid>",
                   "a:<arxiv>", "t:<title key>", title blocks -> works.rowid (citejudge.index.lookup; readers
                   check the key on the decoded record)
    tantivy/       id (stored, raw) + title (folded words, BM25) for candidate retrieval
    vocab.u64      the title words (those of an ASCII first character) as sorted hashes, which
                   rule out misspelt words without asking Tantivy (citejudge.index.vocab)
    records.zdict  the zstd dictionary of the records (absent for worlds too small to train one)
    meta.json      schema_version, records codec, sources, counts, build time, citejudge version,
                   the number of entries of vocab.u64 (which a reader checks before trusting it)

The build is parallel over parts: worker processes parse and convert records, compute the
lookup keys and number the rows (provisional rowids ``part << 32 | position``, as flat columns,
cheap to pass between processes); one writer (this process) appends them to a scratch table and
to sorted key runs, and feeds Tantivy. At the end the rows are copied into ``works`` in part
order with dense rowids (small integers: four bytes per key in the lookup file), upserts are
resolved (the newest row of an id wins) and the key runs are merged into ``lookup.u64``. The
whole build happens in a sibling temporary directory that replaces ``index`` with
``os.replace`` at the end: a failed or killed build never leaves a half index at ``index``.
An update starts from a copy of the index in which the files it never writes into (Tantivy's
segments, the lookup file) are hard links.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import gc
import itertools
import json
import logging
import multiprocessing as mp
import os
import queue
import re
import shutil
import sqlite3
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import tantivy

from citejudge import native
from citejudge.errors import CitejudgeError, IndexError_
from citejudge.ids import arxiv_from_doi
from citejudge.index._malloc import allocate_large_from_os, return_freed_memory
from citejudge.index.codec import LEVELS, TRAIN_SAMPLES, Fields, RecordCodec, train_dictionary
from citejudge.index.lookup import FENCE_FILE, LOOKUP_FILE, LookupFile, LookupWriter, key_hash
from citejudge.index.vocab import VOCAB_FILE, write_vocabulary
from citejudge.records import ReadIssue, Redirect, Work
from citejudge.text.normalize import fold

if TYPE_CHECKING:
    from citejudge.index.lookup import U64

__all__ = [
    "SCHEMA_VERSION",
    "BuildReport",
    "build_index",
    "build_index_from_works",
    "fold_title",
    "has_key",
    "key_hash",
    "tantivy_schema",
    "work_keys",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4  # 2: zstd records with a dictionary, hashed keys; 3: lookup.u64, dense rowids;
# 4: records carry venue_kinds (what each venue name is: its source type, or "host")
BATCH = 2000  # works per batch sent from a worker to the writer
MAX_TOKEN = 40  # tantivy's default tokenizer drops longer tokens; queries must too
# Indexing memory of Tantivy: a fixed budget, whatever the world. It also sets the size of the
# segments it flushes, hence of its background merges (eight alike at a time, below 10M
# documents): 64 MiB against 128 cut the 8M-work build's peak RSS 556 -> 413 MiB (1M: 316 ->
# 304) at the same speed; the 12 segments left at 8M (3 before) search as fast.
TANTIVY_HEAP = 64 * 1024 * 1024
TANTIVY_THREADS = 2
# The writer's checkpoints: Tantivy commits (writes out its heap) every CHECKPOINT_WORKS works,
# or sooner when the titles since the last commit reach CHECKPOINT_TITLE_CHARS characters
# (longer titles fill the heap sooner), before the heap fills and flushes by itself; the lookup
# pairs go to a sorted run half-way between two commits. A full heap and a full lookup buffer,
# and the transient memory of writing each out, then never coincide, at any size of the world:
# they did by chance, more often the larger the build (builder peaks, sampled: 1M 158-184 MiB,
# 8M 180-215; with checkpoints 118-125 and 133-145, the rest being Tantivy's merges).
# 330k synthetic titles take about 53 of Tantivy's 64 MiB (it flushed at 409k by itself). Each
# commit makes a segment a thread (165k titles), which Tantivy's merge policy merges eight at a
# time, levels of alike size, among segments of at most 10M titles: 165k -> 1.32M -> 10.6M, which
# stays (with commits of under 313k works the third level, under 10M, would merge again: 77M).
CHECKPOINT_WORKS = 330_000
CHECKPOINT_TITLE_CHARS = 20_000_000
PART_SHIFT = 32  # provisional rowid = (part << 32) + position in the part
POS_MASK = (1 << PART_SHIFT) - 1

# Rows ready for the writer, made by the workers, as flat columns (cheaper to pickle than rows):
# works rowids, ids, stored records, folded titles ("" for none); the lookup key hashes of the
# works one after the other, and how many keys each work has. Hashes and counts are arrays:
# they pickle as one buffer (lists of ints cost a worker and the writer an object an int).
Batch = tuple[list[int], list[str], list[bytes], list[str], "array[int]", "array[int]"]
# What a worker needs to encode records: the codec's fields, dictionary and level.
CodecSpec = tuple[Fields, bytes | None, int | None]


@dataclass
class BuildReport:
    """What a build did: counts, per-source figures, issues met on the way."""

    index: str
    works: int = 0
    redirects: int = 0
    duplicates_overwritten: int = 0
    sources: list[dict[str, Any]] = field(default_factory=list)
    issues: list[ReadIssue] = field(default_factory=list)
    manifest_mismatches: list[str] = field(default_factory=list)
    bad_sources: list[str] = field(default_factory=list)
    seconds: float = 0.0
    since: str | None = None  # an update read only what is dated after this
    skipped_parts: int = 0
    retired: list[str] = field(default_factory=list)  # works an update's merged/deleted ids removed
    vocabulary_entries: int | None = None  # of vocab.u64 (meta.json vouches for the file)

    @property
    def ok(self) -> bool:
        """True when at least one work was indexed (exit status 0)."""
        return self.works > 0

    @property
    def exit_code(self) -> int:
        """0 if at least one work is in the index, else 1."""
        return 0 if self.ok else 1

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "index": self.index,
            "ok": self.ok,
            "works": self.works,
            "redirects": self.redirects,
            "duplicates_overwritten": self.duplicates_overwritten,
            "sources": self.sources,
            "issues": [msgspec.to_builtins(i) for i in self.issues],
            "manifest_mismatches": self.manifest_mismatches,
            "bad_sources": self.bad_sources,
            "seconds": round(self.seconds, 3),
            **({"since": self.since, "skipped_parts": self.skipped_parts} if self.since else {}),
            **({"retired": self.retired} if self.retired else {}),
        }


def tantivy_schema() -> tantivy.Schema:
    """The Tantivy schema of the title index (shared by the builder and the reader)."""
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("title", stored=False, tokenizer_name="default", index_option="freq")
    return sb.build()


def _title_doc(wid: str, folded_title: str) -> tantivy.Document:
    """The title index's document of a work (built field by field: a fifth faster than kwargs)."""
    doc = tantivy.Document()
    doc.add_text("id", wid)
    doc.add_text("title", folded_title)
    return doc


def work_keys(
    work: Work, folded_title: str | None = None, *, blocks: bool = True
) -> tuple[str, ...]:
    """Every lookup key of ``work``: its id, ids of the record and of its versions, title key, blocks.

    ``blocks=False`` leaves the title blocks out (a reader confirming an exact key needs none).
    """
    keys: list[str] = ["i:" + work.id]
    versions = work.versions
    dois = [work.doi, *[v.doi for v in versions]] if versions else [work.doi]
    arxivs = [work.arxiv, *[v.arxiv for v in versions]] if versions else [work.arxiv]
    for d in dois:
        if d:
            k = "d:" + d
            if k not in keys:
                keys.append(k)
            if d.startswith(_ARXIV_DOI):
                ax = arxiv_from_doi(d)
                if ax:
                    arxivs.append(ax)
    for a in arxivs:
        if a:
            k = "a:" + a
            if k not in keys:
                keys.append(k)
    # the other prefixes occur once each, so they cannot repeat a key
    if work.pmid:
        keys.append("p:" + work.pmid)
    if work.pmcid:
        keys.append("c:" + work.pmcid)
    if folded_title is None:
        folded_title = fold_title(work.title) if work.title else ""
    tkey = folded_title.replace(" ", "")
    if tkey:
        keys.append("t:" + tkey)
        if blocks:
            keys.extend(title_blocks(folded_title))
    return tuple(keys)


def has_key(work: Work, key: str) -> bool:
    """Whether ``key`` is one of ``work_keys(work, blocks=False)``, working out its kind alone.

    A reader confirms each record a key's hash found (hashes collide): this spares it the
    other keys (the title's folding above all). A differential test checks it against
    :func:`work_keys`.
    """
    kind, _, value = key.partition(":")
    if not value:
        return False
    if kind == "i":
        return work.id == value
    if kind == "d":
        return work.doi == value or any(v.doi == value for v in work.versions)
    if kind == "a":
        if work.arxiv == value or any(v.arxiv == value for v in work.versions):
            return True
        return any(
            d is not None and d.startswith(_ARXIV_DOI) and arxiv_from_doi(d) == value
            for d in (work.doi, *(v.doi for v in work.versions))
        )
    if kind == "p":
        return work.pmid == value
    if kind == "c":
        return work.pmcid == value
    if kind == "t":
        return work.title is not None and fold_title(work.title).replace(" ", "") == value
    return key in work_keys(work, blocks=False)


#: Words left out of title queries and title blocks (they match most titles).
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "this",
        "to",
        "was",
        "were",
        "with",
        "via",
        "using",
        "towards",
        "toward",
        "based",
        "under",
        "over",
        "between",
        "among",
        "about",
        "than",
        "vs",
        "versus",
        "de",
        "la",
        "le",
        "les",
        "des",
        "du",
        "et",
        "en",
        "el",
        "los",
        "las",
        "y",
        "der",
        "die",
        "das",
        "und",
        "von",
        "zu",
        "im",
        "il",
        "di",
        "e",
    ]
)
BLOCK_WORDS = 3  # a window block is three consecutive content words
_SHORT_TOKEN = MAX_TOKEN // 4
SHORT_TITLE = 5  # titles of at most this many content words also get leave-one-out blocks


def block_words(folded_title: str) -> list[str]:
    """The content words of a folded title that blocks are made of, in order."""
    # (a word of fewer than MAX_TOKEN / 4 characters is shorter than MAX_TOKEN bytes in UTF-8)
    return [
        w
        for w in folded_title.split()
        if w not in STOPWORDS and (len(w) < _SHORT_TOKEN or len(w.encode()) < MAX_TOKEN)
    ]


def skipping_blocks(folded_title: str) -> tuple[str, ...]:
    """Query-side block keys that skip one word: for a title with a word added near an end.

    Of the first four content words, and of the last four, the three without the second or
    without the third (without the first or the fourth, they are windows of
    :func:`title_blocks`). A word added among a record's first or last four words breaks
    the windows there; one of these keys is then the record's window. Sorted, each once;
    none for titles of fewer than four content words.
    """
    words = block_words(folded_title)
    if len(words) <= BLOCK_WORDS:
        return ()
    spans = set()
    for four in (words[:4], words[-4:]):
        spans.add(" ".join([four[0], four[2], four[3]]))
        spans.add(" ".join([four[0], four[1], four[3]]))
    return tuple(sorted("B:" + span for span in spans))


def query_blocks(folded_title: str) -> tuple[str, ...]:
    """The block keys a (possibly noisy) title is looked up under.

    :func:`title_blocks`, and for a title of two content words, the two of them: a record of
    three content words has each two of them as a leave-one-out block, so a citation that
    dropped one of the three finds it there. Query side only: records of two content words
    get no block (the exact title key and the ranked query find them).
    """
    words = block_words(folded_title)
    if len(words) == BLOCK_WORDS - 1:
        return ("B:" + " ".join(words),)
    return title_blocks(folded_title)


def title_blocks(folded_title: str) -> tuple[str, ...]:
    """The block keys of a folded title (sorted, each once).

    * **windows**: the first three content words, the second to fourth, the last three, and the
      fourth- to second-last. Edits (typos, dropped or added words) at one end of a title leave
      the windows of the other end intact; an edit of the first or last word leaves the inner
      window of that end, which the edited title has as its outer one after a drop or an add.
    * **leave-one-out**, for short titles (three to :data:`SHORT_TITLE` content words, where
      the windows overlap): the words without one of them, and all of them. One edit anywhere
      leaves one such key shared by the record and the edited title.

    A noisy title finds its record among the few works sharing a block, whatever the size of
    the world. Titles of fewer than three content words have none.
    """
    words = block_words(folded_title)
    n = len(words)
    if n < BLOCK_WORDS:
        return ()
    join = " ".join
    spans = {join(words[:3]), join(words[-3:])}
    if n > BLOCK_WORDS:
        spans.add(join(words[1:4]))
        spans.add(join(words[-4:-1]))
    if n <= SHORT_TITLE:
        spans.add(join(words))
        spans.update(join(words[:i] + words[i + 1 :]) for i in range(n))
    return tuple(sorted(["B:" + span for span in spans]))


_ARXIV_DOI = "10.48550/arxiv."  # arxiv_from_doi() is None for every other DOI
_MARKUP = re.compile(r"[<&\\{$]")
# ASCII letters and digits map to themselves, every other byte (``_`` included) to a space
_ASCII_WORD = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))


def fold_title(title: str) -> str:
    """:func:`citejudge.match.normalize.fold`, with a fast path for plain ASCII titles.

    For ASCII text without markup/LaTeX characters ``fold`` reduces to lower-casing and
    replacing non-word runs by one space; the differential test checks the two agree.
    """
    if title.isascii() and not _MARKUP.search(title):
        # = " ".join(re.sub(r"[^\w]+|_", " ", title.lower()).split()), done on bytes (faster)
        return b" ".join(title.lower().encode().translate(_ASCII_WORD).split()).decode()
    return fold(title)


def _native_block_hashes() -> Callable[[str], list[int]] | None:
    """The C module's title-block hashing, configured with this module's block rules."""
    mod = native.load()
    if mod is None:
        return None
    mod.configure_blocks(sorted(STOPWORDS), BLOCK_WORDS, SHORT_TITLE, MAX_TOKEN)
    return mod.title_block_hashes  # type: ignore[no-any-return]


_title_block_hashes = _native_block_hashes()
#: The C module's key_hashes (it hashes title blocks with the configuration above).
_key_hashes: Callable[[Work, str], list[int] | None] | None = (
    getattr(native.load(), "key_hashes", None) if _title_block_hashes is not None else None
)


def key_hashes(work: Work, folded_title: str) -> list[int]:
    """:func:`key_hash` of each of ``work_keys(work, folded_title)``, in their order.

    With the C module, the keys are hashed in C without making their strings (the build stores
    hashes only): 1.8 against 3.6 µs a synthetic work. The module hands back what it does
    not take (arXiv DOIs, odd values), which the Python path below hashes.
    """
    if _key_hashes is not None:
        got = _key_hashes(work, folded_title)
        if got is not None:
            return got
    if _title_block_hashes is None:
        return list(map(key_hash, work_keys(work, folded_title)))
    wkeys = work_keys(work, folded_title, blocks=False)
    hashes = list(map(key_hash, wkeys))
    if wkeys[-1].startswith("t:"):  # (work_keys gives blocks to a title with a title key)
        try:
            hashes += _title_block_hashes(folded_title)
        except ValueError:  # a title of hundreds of words
            hashes += map(key_hash, title_blocks(folded_title))
    return hashes


def _new_batch() -> Batch:
    return ([], [], [], [], array("I"), array("I"))


class _Batcher:
    """Number works from ``base`` on and lay them out as the writer's insert columns.

    :meth:`add` returns a full :data:`Batch` every :data:`BATCH` works, :meth:`rest` the last
    one (or None). Records are encoded a batch at a time (:meth:`RecordCodec.encode_all`).
    """

    def __init__(self, encode_all: Callable[[list[Work]], list[bytes]], base: int) -> None:
        self.encode_all = encode_all
        self.seq = base
        self.batch = _new_batch()
        self.works: list[Work] = []

    def add(self, work: Work) -> Batch | None:
        self.seq += 1
        seq = self.seq
        seqs, ids, _blobs, titles, keys, counts = self.batch
        folded = fold_title(work.title) if work.title else ""
        seqs.append(seq)
        ids.append(work.id)
        self.works.append(work)
        titles.append(folded)
        hashes = key_hashes(work, folded)
        keys.extend(hashes)
        counts.append(len(hashes))
        if len(seqs) < BATCH:
            return None
        return self._full()

    def rest(self) -> Batch | None:
        return self._full() if self.batch[0] else None

    def _full(self) -> Batch:
        blobs = self.encode_all(self.works)  # (if it raises, the batch stays whole, unsent)
        full, self.batch = self.batch, _new_batch()
        full[2].extend(blobs)
        self.works = []
        return full

    def pending(self) -> int:
        """Works added but not yet handed out in a batch."""
        return len(self.works)


# --- worker side ----------------------------------------------------------------------------


def _part_name(part: Any) -> str:
    for attr in ("path", "file", "name"):
        v = getattr(part, attr, None)
        if v is not None:
            return str(v)
    return str(part)


def _expected(part: Any) -> int | None:
    for attr in ("expected_records", "record_count", "expected", "count"):
        v = getattr(part, attr, None)
        if isinstance(v, int):
            return v
    return None


def _part_messages(
    pid: int, part: Any, base: int, spec: CodecSpec
) -> Iterator[tuple[str, int, Any]]:
    """Read one part: ("batch", pid, Batch) messages, then ("done", pid, (count, issues)).

    ``base`` is the part's first rowid minus one (see ``PART_SHIFT``). The worker numbers the
    rows and lays out the writer's insert columns, so that the single writer, the build's serial
    stage, only hands them to SQLite and Tantivy.
    """
    from citejudge.snapshot import read_part

    batcher = _Batcher(RecordCodec(*spec).encode_all, base)
    n = 0
    issues: list[ReadIssue] = []
    try:
        for rec in read_part(part, abstract=spec[0] != "matching"):
            if isinstance(rec, Work):
                n += 1
                full = batcher.add(rec)
                if full is not None:
                    yield ("batch", pid, full)
            else:
                issues.append(rec)
    except Exception as exc:  # a broken part must not stop the build
        issues.append(ReadIssue(file=_part_name(part), message=f"{type(exc).__name__}: {exc}"))
    try:
        last = batcher.rest()
    except Exception as exc:  # (encoding a validated Work does not fail; if it did, say so)
        lost = batcher.pending()
        n -= lost
        issues.append(
            ReadIssue(
                file=_part_name(part),
                message=f"{lost} works not indexed, their records failed to encode: "
                f"{type(exc).__name__}: {exc}",
            )
        )
        last = None
    if last is not None:
        yield ("batch", pid, last)
    yield ("done", pid, (n, issues))


def _worker(tasks: Any, results: Any) -> None:  # pragma: no cover - runs in a child process
    # Reading OpenAlex JSON makes no reference cycles (reference counting frees a record), so the
    # cyclic collector would only rescan the decoded records' many containers: it runs once a
    # part instead (a BibTeX part's parsed library is cyclic).
    gc.disable()
    while True:
        item = tasks.get()
        if item is None:
            return
        pid, part, base, spec = item
        for msg in _part_messages(pid, part, base, spec):
            results.put(msg)
        gc.collect()


def _iter_parts_parallel(
    parts: list[Any], bases: list[int], workers: int, spec: CodecSpec
) -> Iterator[tuple[str, int, Any]]:
    """Yield ("batch", part_no, Batch) and ("done", part_no, (count, issues)) messages."""
    if not parts:
        return
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    tasks: Any = ctx.Queue()
    results: Any = ctx.Queue(maxsize=64)
    nproc = max(1, min(workers, len(parts)))
    procs = [ctx.Process(target=_worker, args=(tasks, results), daemon=True) for _ in range(nproc)]
    for i, p in enumerate(parts):
        tasks.put((i, p, bases[i], spec))
    for _ in procs:
        tasks.put(None)
    for pr in procs:
        pr.start()
    pending = len(parts)
    try:
        while pending:
            try:
                msg = results.get(timeout=5)
            except queue.Empty:
                if not any(pr.is_alive() for pr in procs):
                    raise IndexError_(
                        "index build workers died", hint="see the log; a part may be corrupt"
                    ) from None
                continue
            if msg[0] == "done":
                pending -= 1
            yield msg
    finally:
        for pr in procs:
            if pr.is_alive():
                pr.terminate()
            pr.join(timeout=5)


def _iter_parts_serial(
    parts: list[Any], bases: list[int], spec: CodecSpec
) -> Iterator[tuple[str, int, Any]]:
    for i, part in enumerate(parts):
        yield from _part_messages(i, part, bases[i], spec)


# --- writer side ----------------------------------------------------------------------------


class _Background:
    """A step run in a thread beside the writer's own; :meth:`join` re-raises what it raised."""

    def __init__(self, name: str, step: Callable[[], object]) -> None:
        self.error: BaseException | None = None

        def run() -> None:
            try:
                step()
            except BaseException as exc:  # re-raised by join(), in the writer's thread
                self.error = exc

        self.thread = threading.Thread(target=run, name=name)
        self.thread.start()

    def join(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


class _Writer:
    """Single writer: appends to scratch storage and Tantivy, lays out the index at the end."""

    def __init__(self, root: Path, *, update: bool, codec: RecordCodec | None = None) -> None:
        self.root = root
        self.codec = codec or RecordCodec()
        self.db = sqlite3.connect(str(root / "works.sqlite"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        # fixed page cache (16 MiB): rows are appended, so a larger one buys little. SQLite's
        # sorts (duplicate ids, the final indexes) also hold up to this much before they spill
        # to temporary files: with 64 MiB both could take 128 MiB (8M build: peak 308 MiB; 241).
        self.db.execute("PRAGMA cache_size=-16384")
        # (temporary tables and the sorts' spills go to files, not memory)
        self.db.execute("PRAGMA temp_store=FILE")
        self.db.executescript(
            """
            CREATE TABLE IF NOT EXISTS works(id TEXT NOT NULL, data BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS redirects(id TEXT NOT NULL, target TEXT, source TEXT);
            CREATE TABLE IF NOT EXISTS venue_alias(key TEXT NOT NULL, names TEXT NOT NULL);
            DROP INDEX IF EXISTS venue_alias_key;
            DROP INDEX IF EXISTS redirects_id;
            """
        )
        # New rows go to a scratch file under provisional rowids (part << 32 | position) and are
        # copied into ``works`` in part order at the end, with dense rowids.
        self.load_path = root / "works-load.sqlite"
        self.db.execute("ATTACH DATABASE ? AS load", (str(self.load_path),))
        self.db.execute("PRAGMA load.journal_mode=OFF")
        self.db.execute("PRAGMA load.synchronous=OFF")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS load.works_load(id TEXT NOT NULL, data BLOB NOT NULL)"
        )
        self.db.execute("BEGIN")
        row = self.db.execute("SELECT coalesce(max(rowid), 0) FROM works").fetchone()
        self.update = update
        self.new_base = int(row[0]) + 1  # the first rowid of this build's rows; below: the index's
        row = self.db.execute("SELECT coalesce(max(rowid), 0) FROM redirects").fetchone()
        self.redirect_base = int(row[0])  # redirects above it come from this build
        self.retired: list[str] = []
        self.dropped: list[int] = []  # rowids removed by upserts and retirements
        self.part_rows: dict[int, int] = {}  # provisional part number -> rows appended
        self.lookups = LookupWriter(root / "lookup-runs")
        tdir = root / "tantivy"
        tdir.mkdir(exist_ok=True)
        self.schema = tantivy_schema()
        self.tindex = tantivy.Index(self.schema, path=str(tdir), reuse=update)
        self._twriter: tantivy.IndexWriter | None = None
        self.added = 0
        self.since_commit = 0.0  # the way to the next checkpoint: 1.0 is there (add_batch)
        self.vocabulary_entries: int | None = None

    @property
    def twriter(self) -> tantivy.IndexWriter:
        # Created on first use, so that the worker processes are forked before Tantivy
        # starts its indexing threads.
        if self._twriter is None:
            self._twriter = self.tindex.writer(TANTIVY_HEAP, TANTIVY_THREADS)
        return self._twriter

    def rowid_base(self, part: int) -> int:
        """The provisional rowid before the first row of ``part`` (for :meth:`add_batch`)."""
        return (part + 1) << PART_SHIFT  # (never 0: provisional rowids stay above any final one)

    def add_batch(self, batch: Batch) -> None:
        """Insert rows numbered and laid out by :func:`_part_messages`."""
        import numpy as np  # (here and below: opening an index for lookups needs no numpy)

        seqs, ids, blobs, titles, keys, counts = batch
        if not seqs:
            return
        add = self.twriter.add_document
        for wid, title in zip(ids, titles, strict=True):
            if title:
                add(_title_doc(wid, title))
        self.added += len(seqs)
        # a part's batches come in order: its last rowid so far is its row count
        self.part_rows[seqs[0] >> PART_SHIFT] = seqs[-1] & POS_MASK
        self.db.executemany(
            "INSERT INTO works_load(rowid, id, data) VALUES (?,?,?)",
            zip(seqs, ids, blobs, strict=True),
        )
        self.lookups.add(keys, np.repeat(np.array(seqs, dtype=np.uint64), counts))
        before = self.since_commit
        self.since_commit += max(
            len(seqs) / CHECKPOINT_WORKS, sum(map(len, titles)) / CHECKPOINT_TITLE_CHARS
        )
        if before < 0.5 <= self.since_commit:
            self.lookups.spill()
        if self.since_commit >= 1.0:
            self.twriter.commit()
            self.since_commit = 0.0
            return_freed_memory()  # (Tantivy's heap just went out, the lookup run before it)

    def add_redirects(self, redirects: Iterable[Redirect]) -> None:
        self.db.executemany(
            "INSERT INTO redirects(id, target, source) VALUES (?,?,?)",
            ((r.id, r.target, r.source) for r in redirects),
        )

    def add_venue_names(self, groups: Iterable[list[str]]) -> int:
        """Store each Source's names under the folded key of every one of them; returns the count."""
        rows: list[tuple[str, str]] = []
        n = 0
        for names in groups:
            n += 1
            blob = json.dumps(names, ensure_ascii=False)
            for key in dict.fromkeys(fold_title(x) for x in names):
                if key:
                    rows.append((key, blob))
        self.db.executemany("INSERT INTO venue_alias(key, names) VALUES (?,?)", rows)
        return n

    def _place_rows(self) -> Callable[[U64], U64]:
        """Copy the new rows into ``works`` in part order, with dense rowids.

        Returns the map from provisional to final rowids (for the lookup keys).
        """
        import numpy as np

        parts = sorted(self.part_rows)
        firsts: list[int] = []  # final rowid before the first row of each part
        nxt = self.new_base - 1
        for p in parts:
            firsts.append(nxt)
            lo = p << PART_SHIFT
            self.db.execute(
                "INSERT INTO works(rowid, id, data) SELECT rowid - ?, id, data FROM works_load "
                "WHERE rowid > ? AND rowid <= ? ORDER BY rowid",
                (lo - nxt, lo, lo + self.part_rows[p]),
            )
            nxt += self.part_rows[p]
        if nxt > POS_MASK:
            raise IndexError_(f"{nxt} rows: more than the lookup file addresses ({POS_MASK})")
        part_arr = np.array(parts, dtype=np.uint64)
        first_arr = np.array(firsts, dtype=np.uint64)
        shift = np.uint64(PART_SHIFT)
        mask = np.uint64(POS_MASK)

        def remap(seqs: U64) -> U64:
            idx = np.searchsorted(part_arr, seqs >> shift)
            out: U64 = first_arr[idx] + (seqs & mask)
            return out

        return remap

    def finish(self) -> tuple[int, int, int]:
        """Resolve upserts, create indexes, commit Tantivy; return (works, redirects, dups)."""
        import numpy as np

        db = self.db
        # Tantivy writes out the titles its indexing heap holds while SQLite lays the rows out,
        # so that the flush's transient memory comes on top of what the build holds while
        # reading, as its other flushes do, and not on top of the finishing steps below (an 8M
        # build's peak was its last flush, 208 MiB against 173 at 1M).
        tw = self._twriter  # (None when no work had a title)
        flush = _Background("tantivy-flush", tw.commit) if tw is not None else None
        remap = self._place_rows()
        return_freed_memory()  # each step below starts from what the previous one left in use
        # an update's own lookup file, before this update: the rows the index had
        old = LookupFile(self.root / LOOKUP_FILE) if self.update else None
        if old is not None:
            self._find_updated(old)
        else:
            db.execute(
                "CREATE TEMP TABLE dup AS SELECT id, max(rowid) AS keep FROM works "
                "GROUP BY id HAVING count(*) > 1"
            )
            db.execute(
                "CREATE TEMP TABLE gone AS SELECT w.rowid AS seq FROM works w "
                "JOIN dup d ON w.id = d.id WHERE w.rowid <> d.keep"
            )
        ndup = int(db.execute("SELECT count(*) FROM gone").fetchone()[0])
        if flush is not None:
            flush.join()
        if ndup:
            self._drop_rows("SELECT seq FROM gone")
            # Tantivy: drop every document of a duplicated id and re-add the surviving title.
            decode = self.codec.decode
            for wid, data in db.execute(
                "SELECT w.id, w.data FROM works w JOIN dup d ON w.rowid = d.keep"
            ):
                self.twriter.delete_documents_by_term("id", wid)
                work = decode(data)
                folded = fold_title(work.title) if work.title else ""
                if folded:
                    self.twriter.add_document(_title_doc(wid, folded))
        if old is not None:
            self._retire(old)
        return_freed_memory()
        # Tantivy commits (the duplicates' changes) and merges while SQLite builds its indexes.
        twriter = self.twriter

        def commit() -> None:
            twriter.commit()
            twriter.wait_merging_threads()
            self.tindex.reload()
            vocab = self.root / VOCAB_FILE
            self.vocabulary_entries = write_vocabulary(self.tindex.searcher(), "title", vocab)

        committer = _Background("tantivy-commit", commit)
        # redirects: the last one of an id wins; a redirect of an id that is a work is dropped
        db.execute(
            "DELETE FROM redirects WHERE rowid NOT IN (SELECT max(rowid) FROM redirects GROUP BY id)"
        )
        if self.update:  # the index's own works and redirects were apart already
            db.execute("DELETE FROM redirects WHERE id IN (SELECT id FROM fresh)")
        else:
            db.execute("DELETE FROM redirects WHERE id IN (SELECT id FROM works)")
        db.execute("CREATE UNIQUE INDEX redirects_id ON redirects(id)")
        db.execute(
            "DELETE FROM venue_alias WHERE rowid NOT IN (SELECT max(rowid) FROM venue_alias GROUP BY key, names)"
        )
        db.execute("CREATE INDEX venue_alias_key ON venue_alias(key)")
        db.execute("COMMIT")
        nworks = int(db.execute("SELECT count(*) FROM works").fetchone()[0])
        nred = int(db.execute("SELECT count(*) FROM redirects").fetchone()[0])
        db.execute("DETACH DATABASE load")
        db.close()
        self.load_path.unlink(missing_ok=True)
        return_freed_memory()
        lookup = self.root / LOOKUP_FILE
        self.lookups.finish(
            lookup,
            remap,
            drop=np.array(self.dropped, dtype=np.uint64),
            old=lookup if self.update else None,
        )
        shutil.rmtree(self.lookups.scratch, ignore_errors=True)
        try:
            committer.join()
        finally:
            self._twriter = None
        return nworks, nred, ndup

    def _old_rows(self, old: LookupFile, wid: str) -> list[int]:
        """Rowids of the index's own rows (before this update) of work ``wid``."""
        rows = [r for r in old.rows(key_hash("i:" + wid)) if r < self.new_base]
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        return [
            int(r[0])
            for r in self.db.execute(
                f"SELECT rowid FROM works WHERE rowid IN ({marks}) AND id = ?", (*rows, wid)
            )
        ]

    def _find_updated(self, old: LookupFile) -> None:
        """Tables ``dup`` (ids with more than one row, the row kept) and ``gone`` (rows dropped).

        Only this update's rows are scanned; the index's rows of the same ids are found through
        its lookup file (``i:`` keys), so an update costs what it brings, not the index's size.
        """
        db = self.db
        db.execute(
            "CREATE TEMP TABLE fresh AS SELECT id, max(rowid) AS keep, count(*) AS n FROM works "
            "WHERE rowid >= ? GROUP BY id",
            (self.new_base,),
        )
        db.execute("CREATE UNIQUE INDEX temp.fresh_id ON fresh(id)")
        db.execute("CREATE TEMP TABLE dup(id TEXT NOT NULL, keep INTEGER NOT NULL)")
        db.execute("CREATE TEMP TABLE gone(seq INTEGER PRIMARY KEY)")
        db.execute(
            "INSERT INTO gone SELECT w.rowid FROM works w JOIN fresh f ON w.id = f.id "
            "WHERE w.rowid >= ? AND w.rowid <> f.keep",
            (self.new_base,),
        )
        cur = db.execute("SELECT id, keep, n FROM fresh ORDER BY id")
        while batch := cur.fetchmany(10_000):
            dups: list[tuple[str, int]] = []
            gone: list[tuple[int]] = []
            for wid, keep, n in batch:
                before = self._old_rows(old, wid)
                gone.extend((r,) for r in before)
                if before or n > 1:
                    dups.append((wid, keep))
            db.executemany("INSERT INTO dup(id, keep) VALUES (?,?)", dups)
            db.executemany("INSERT INTO gone(seq) VALUES (?)", gone)

    def _retire(self, old: LookupFile) -> None:
        """Drop the index's works under ids this update's merged/deleted-id files name.

        (Unless the update also brought a record of that id: the record wins.)
        """
        db = self.db
        retired: list[tuple[int, str]] = []
        for (rid,) in db.execute(
            "SELECT DISTINCT id FROM redirects WHERE rowid > ? AND id NOT IN (SELECT id FROM fresh)",
            (self.redirect_base,),
        ).fetchall():
            retired.extend((r, rid) for r in self._old_rows(old, rid))
        self.retired = sorted({wid for _r, wid in retired})
        if retired:
            db.execute("CREATE TEMP TABLE retired(seq INTEGER PRIMARY KEY, id TEXT)")
            db.executemany("INSERT INTO retired(seq, id) VALUES (?,?)", retired)
            self._drop_rows("SELECT seq FROM retired")
            for wid in self.retired:
                self.twriter.delete_documents_by_term("id", wid)

    def _drop_rows(self, seqs_sql: str) -> None:
        """Delete the works rows ``seqs_sql`` selects; their keys are left out of the lookup file."""
        self.dropped.extend(int(r[0]) for r in self.db.execute(seqs_sql))
        self.db.execute(f"DELETE FROM works WHERE rowid IN ({seqs_sql})")

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self.db.close()
        if self._twriter is not None:
            with contextlib.suppress(Exception):
                self._twriter.rollback()
            with contextlib.suppress(Exception):  # its threads write no more once joined
                self._twriter.wait_merging_threads()
            self._twriter = None


# --- orchestration --------------------------------------------------------------------------


def _version() -> str:
    try:
        return metadata.version("citejudge")
    except metadata.PackageNotFoundError:
        return "unknown"


def _remove_scratch(tmp: Path) -> None:
    """Remove a failed build's scratch folder, even while a dropped Tantivy object lets go of it.

    Tantivy's index and writer objects may still hold or write files in the folder until they are
    collected; a first ``rmtree`` then leaves the folder behind (seen once under load). It is
    tried again after a collection, a few times, then left with a warning naming it.
    """
    for attempt in range(5):
        shutil.rmtree(tmp, ignore_errors=True)
        if not tmp.exists():
            return
        gc.collect()
        time.sleep(0.02 * (attempt + 1))
    log.warning("could not remove the build's scratch folder %s; remove it by hand", tmp)


def _tmp_dir(index: Path) -> Path:
    return index.with_name(f"{index.name}.tmp-{os.getpid()}")


LOW_SPACE = 64 * 2**20  # free bytes under which a dead Tantivy writer is taken for a full disk


def _free_bytes(path: Path) -> int | None:
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def _is_disk_full(exc: BaseException, free: int | None) -> bool:
    """Whether ``exc`` (raised with ``free`` bytes left next to the index) means a full disk."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    if not isinstance(exc, (sqlite3.OperationalError, ValueError, RuntimeError)):
        return False
    text = str(exc).lower()
    # SQLite: "database or disk is full"; a Rust IO error: "No space left on device (os error 28)"
    if "disk is full" in text or "no space left" in text or "os error 28" in text:
        return True
    # Tantivy's indexing threads die on the IO error and say only "An index writer was killed..."
    return "index writer was killed" in text and free is not None and free < LOW_SPACE


def _disk_full_error(index: Path, works: int, existed: bool) -> IndexError_:
    left = f"the index at {index} is unchanged" if existed else f"no index was made at {index}"
    return IndexError_(
        f"a disk the build writes to is full (after {works:,} works read): the build stopped "
        f"and {left}",
        hint="free space next to the index and in the temporary folder (SQLITE_TMPDIR or "
        "TMPDIR) and build again: an index takes about 0.45 KB a work with abstracts, "
        "0.25 KB with --fields matching, and the build needs as much again while it runs",
    )


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(index: Path) -> None:
    """Remove temporary dirs left by killed builds of ``index`` (their process is gone)."""
    if not index.parent.is_dir():
        return
    for p in index.parent.glob(f"{index.name}.tmp-*"):
        pid = p.name.rsplit("-", 1)[-1]
        if pid.isdigit() and (int(pid) == os.getpid() or not _pid_alive(int(pid))):
            log.info("removing %s left by an interrupted build", p)
            shutil.rmtree(p, ignore_errors=True)


def _prepare(index: Path, update: bool) -> tuple[Path, dict[str, Any] | None]:
    tmp = _tmp_dir(index)
    _remove_stale(index)
    old_meta: dict[str, Any] | None = None
    if update and index.exists():
        meta_path = index / "meta.json"
        if not meta_path.exists():
            raise IndexError_(f"{index} is not a citejudge index", hint="build it without update")
        old_meta = json.loads(meta_path.read_text())
        if old_meta.get("schema_version") != SCHEMA_VERSION:
            raise IndexError_(
                f"{index} has schema version {old_meta.get('schema_version')}, "
                f"this citejudge writes {SCHEMA_VERSION}",
                hint="rebuild the index without update",
            )
        _copy_for_update(index, tmp)
    else:
        tmp.mkdir(parents=True)
    return tmp, old_meta


def _never_written_in_place(rel: Path) -> bool:
    """Whether an update only ever replaces the index file at ``rel`` (never writes into it).

    Tantivy's segment files are immutable (an update adds segments and ``.del`` files and
    rewrites its ``*.json`` with new files); ``lookup.u64`` and ``lookup.fence`` are written
    beside and moved over (:meth:`LookupWriter.finish`). ``works.sqlite``, ``meta.json`` and
    the dictionary are written in place; the vocabulary is written beside and moved over.
    """
    if rel.parts[0] == "tantivy":
        return rel.suffix not in (".json", ".lock") and not rel.name.startswith(".")
    return rel.name in (LOOKUP_FILE, FENCE_FILE, VOCAB_FILE)


def _copy_for_update(index: Path, tmp: Path) -> None:
    """Copy ``index`` to ``tmp``, hard-linking the files an update never writes into.

    The live index stays untouched while the update runs (readers keep using it), and the
    lookup file and title index, a quarter of the index, are not copied. Where links are
    impossible (another file system) they are copied.
    """

    def copy(src: str, dst: str) -> str:
        if _never_written_in_place(Path(src).relative_to(index)):
            with contextlib.suppress(OSError):
                os.link(src, dst)
                return dst
        return str(shutil.copy2(src, dst))

    shutil.copytree(index, tmp, copy_function=copy)


def _swap(tmp: Path, index: Path) -> None:
    if index.exists():
        old = index.with_name(f"{index.name}.old-{os.getpid()}")
        os.replace(index, old)
        os.replace(tmp, index)
        shutil.rmtree(old, ignore_errors=True)
    else:
        index.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, index)


def _write_meta(
    tmp: Path,
    report: BuildReport,
    old_meta: dict[str, Any] | None,
    started: float,
    codec: RecordCodec,
) -> None:
    sources = list(old_meta.get("sources", [])) if old_meta else []
    sources.extend(report.sources)
    meta = {
        "schema_version": SCHEMA_VERSION,
        "citejudge_version": _version(),
        "built_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "build_seconds": round(time.monotonic() - started, 3),
        "works": report.works,
        "redirects": report.redirects,
        "sources": sources,
        "records": codec.describe(),
    }
    if report.vocabulary_entries is not None:
        meta["vocabulary_entries"] = report.vocabulary_entries
    (tmp / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def _codec(
    tmp: Path, old_meta: dict[str, Any] | None, fields: Fields, sample: Callable[[], list[Work]]
) -> RecordCodec:
    """The codec of the index being built: an updated index's own, else one trained on ``sample``."""
    if old_meta is not None:
        codec = RecordCodec.load(tmp, old_meta)
        if codec.fields != fields:
            raise IndexError_(
                f"the index holds fields={codec.fields!r}, the update asks for fields={fields!r}",
                hint="update with the index's own --fields, or rebuild it",
            )
        return codec
    packer = RecordCodec(fields=fields)
    started = time.monotonic()
    dictionary = train_dictionary([packer.pack(w) for w in sample()], LEVELS[fields])
    log.info("trained the record dictionary in %.1fs", time.monotonic() - started)
    return RecordCodec(fields=fields, dictionary=dictionary)


def _run(
    index: Path,
    update: bool,
    feed: Callable[[_Writer, BuildReport], None],
    report: BuildReport,
    *,
    fields: Fields,
    sample: Callable[[], list[Work]],
) -> BuildReport:
    started = time.monotonic()
    # Large buffers (lookup spills, Tantivy merges) from the OS and back, so that the build's
    # peak memory is what its phases hold at once, not what earlier merges left in the heap
    # (see _malloc; a setting of the whole process, which forked workers inherit).
    allocate_large_from_os()
    tmp, old_meta = _prepare(index, update)
    writer: _Writer | None = None
    try:
        codec = _codec(tmp, old_meta, fields, sample)
        codec.save(tmp)
        writer = _Writer(tmp, update=old_meta is not None, codec=codec)
        feed(writer, report)
        fed = time.monotonic()
        log.info("read and loaded %d rows in %.1fs", writer.added, fed - started)
        return_freed_memory()
        nworks, nred, ndup = writer.finish()
        report.retired = writer.retired
        report.vocabulary_entries = writer.vocabulary_entries
        log.info("resolved upserts and built lookup indexes in %.1fs", time.monotonic() - fed)
        report.works, report.redirects, report.duplicates_overwritten = nworks, nred, ndup
        writer = None
        report.seconds = time.monotonic() - started
        if nworks == 0:
            # nothing to serve: leave whatever is at ``index`` alone (the report says why)
            shutil.rmtree(tmp, ignore_errors=True)
            log.warning("no work was read; %s left unchanged", index)
            return report
        _write_meta(tmp, report, old_meta, started, codec)
        _swap(tmp, index)
    except BaseException as exc:
        works = writer.added if writer is not None else 0
        free = _free_bytes(tmp.parent)  # (before the scratch files are removed)
        if writer is not None:
            writer.abort()
        writer = None
        _remove_scratch(tmp)
        if _is_disk_full(exc, free):
            raise _disk_full_error(index, works, (index / "meta.json").exists()) from exc
        raise
    log.info("indexed %d works into %s in %.1fs", report.works, index, report.seconds)
    return report


def build_index_from_works(
    works: Iterable[Work],
    index: Path,
    *,
    redirects: Iterable[Redirect] = (),
    update: bool = False,
    source: str = "works",
    fields: Fields = "all",
) -> BuildReport:
    """Build (or with ``update=True`` upsert into) an index from ``Work`` objects in memory."""
    index = Path(index)
    report = BuildReport(index=str(index))
    stream = iter(works)
    head: list[Work] = []

    def sample() -> list[Work]:
        head.extend(itertools.islice(stream, TRAIN_SAMPLES))  # fed again, first, by ``feed``
        return head

    def feed(w: _Writer, rep: BuildReport) -> None:
        batcher = _Batcher(w.codec.encode_all, w.rowid_base(0))
        n = 0
        for work in itertools.chain(head, stream):
            n += 1
            full = batcher.add(work)
            if full is not None:
                w.add_batch(full)
        last = batcher.rest()
        if last is not None:
            w.add_batch(last)
        reds = list(redirects)
        w.add_redirects(reds)
        rep.sources.append({"path": source, "format": "works", "works": n, "redirects": len(reds)})

    return _run(index, update, feed, report, fields=fields, sample=sample)


_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


def _newest_snapshot_date(index: Path) -> str | None:
    """The newest ``updated_date`` partition the index at ``index`` was built from, if any."""
    try:
        meta = json.loads((index / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    dates = [str(d) for src in meta.get("sources", []) for d in src.get("snapshot_dates") or []]
    return max(dates, default=None)


def _after(plan: Any, since: str, report: BuildReport) -> Any:
    """``plan`` without the parts and id files dated on or before ``since`` (undated ones stay)."""
    import dataclasses

    def newer(date: str | None) -> bool:
        return date is None or date > since

    def file_date(p: Path) -> str | None:
        m = _DATE.search(p.name)
        return m.group(1) if m else None

    parts = [p for p in plan.parts if newer(getattr(p, "updated_date", None))]
    report.skipped_parts += len(plan.parts) - len(parts)
    report.since = since
    changes: dict[str, Any] = {"parts": parts}
    for attr in ("redirect_files", "deleted_files"):
        if hasattr(plan, attr):
            changes[attr] = [p for p in getattr(plan, attr) if newer(file_date(p))]
    if hasattr(plan, "snapshot_dates"):
        changes["snapshot_dates"] = [d for d in plan.snapshot_dates if newer(d)]
    return dataclasses.replace(plan, **changes)


def _plan_info(plan: Any, path: Path) -> dict[str, Any]:
    info: dict[str, Any] = {"path": str(path), "format": getattr(plan, "format", None)}
    for attr in ("layout", "snapshot_dates", "manifest", "manifest_sha256", "expected_records"):
        v = getattr(plan, attr, None)
        if v is not None:
            if isinstance(v, list | tuple | set):
                v = list(v)
            info[attr] = str(v) if isinstance(v, Path) else v
    return info


def build_index(
    sources: list[Path],
    index: Path,
    *,
    fmt: str = "auto",
    workers: int = 2,
    update: bool = False,
    progress: Callable[[int], None] | None = None,
    fields: Fields = "all",
    since: str | None = None,
) -> BuildReport:
    """Build the index of the worlds in ``sources`` at ``index`` (atomically).

    ``update=True`` with an existing ``index`` upserts into a copy of it (a record whose id is
    already there replaces it, lookup keys included). Unreadable sources are named in the report
    and the build goes on with the others. ``progress`` is called with the number of works read so
    far after every batch.

    An update reads only the snapshot partitions (``updated_date=``) and merged/deleted-id files
    dated after ``since``, by default the newest snapshot date the index already holds: a newer
    snapshot of the same world is applied without reading what the index has. A merged or
    deleted id of those files removes the work the index had under it.

    On glibc the build sets the process's mmap threshold to 1 MiB (see
    :mod:`citejudge.index._malloc`); the setting outlives the build.
    """
    from citejudge.snapshot import plan_source, read_redirects, read_venue_names

    index = Path(index)
    report = BuildReport(index=str(index))
    if _title_block_hashes is None:  # (the module, as this process loaded it at start)
        log.warning("%s: records are read at Python speed (same results)", native.why_not())
    if update and since is None:
        since = _newest_snapshot_date(index)
    plans: list[tuple[Path, Any]] = []
    for src in sources:
        src = Path(src)
        try:
            plan = (
                _after(plan_source(src, fmt), since, report)
                if update and since
                else plan_source(src, fmt)
            )
            plans.append((src, plan))
            report.issues.extend(getattr(plan, "issues", None) or [])
        except (CitejudgeError, OSError, ValueError) as exc:
            msg = exc.one_line() if isinstance(exc, CitejudgeError) else str(exc)
            report.bad_sources.append(str(src))
            report.issues.append(ReadIssue(file=str(src), message=msg))
            log.warning("skipping source %s: %s", src, msg)

    def feed(w: _Writer, rep: BuildReport) -> None:
        parts: list[Any] = []
        owner: list[int] = []
        infos: list[dict[str, Any]] = []
        for si, (src, plan) in enumerate(plans):
            info = _plan_info(plan, src)
            info["works"] = 0
            info["redirects"] = 0
            infos.append(info)
            for p in plan.parts:
                parts.append(p)
                owner.append(si)
        total = 0
        bases = [w.rowid_base(i) for i in range(len(parts))]
        spec: CodecSpec = (w.codec.fields, w.codec.dictionary, w.codec.level)
        stream = (
            _iter_parts_parallel(parts, bases, workers, spec)
            if workers > 1 and len(parts) > 1
            else _iter_parts_serial(parts, bases, spec)
        )
        for kind, pno, payload in stream:
            if kind == "batch":
                w.add_batch(payload)
                total += len(payload[0])
                if progress is not None:
                    progress(total)
            else:
                n, issues = payload
                infos[owner[pno]]["works"] += n
                rep.issues.extend(issues)
                exp = _expected(parts[pno])
                if exp is not None and exp != n:
                    rep.manifest_mismatches.append(
                        f"manifest says {exp} records for part {_part_name(parts[pno])}, read {n}"
                    )
        for si, (src, plan) in enumerate(plans):
            reds: list[Redirect] = []
            try:
                for r in read_redirects(plan):
                    if isinstance(r, Redirect):
                        reds.append(r)
                    else:
                        rep.issues.append(r)
            except (CitejudgeError, OSError, ValueError) as exc:
                rep.issues.append(ReadIssue(file=str(src), message=f"redirects: {exc}"))
            w.add_redirects(reds)
            infos[si]["redirects"] = len(reds)
            if getattr(plan, "venue_files", None):
                groups: list[list[str]] = []
                for g in read_venue_names(plan):
                    if isinstance(g, list):
                        groups.append(g)
                    else:
                        rep.issues.append(g)
                infos[si]["venue_sources"] = w.add_venue_names(groups)
        rep.sources.extend(infos)

    def sample() -> list[Work]:
        """The first works of the sources, in part order (the same whatever the worker count)."""
        from citejudge.snapshot import read_part

        out: list[Work] = []
        for _src, plan in plans:
            for part in plan.parts:
                with contextlib.suppress(Exception):  # a broken part is reported by the build
                    for rec in read_part(part):
                        if isinstance(rec, Work):
                            out.append(rec)
                            if len(out) >= TRAIN_SAMPLES:
                                return out
        return out

    return _run(index, update, feed, report, fields=fields, sample=sample)
