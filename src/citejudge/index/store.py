"""Read-only access to a built index: exact identifier lookups and title candidate retrieval.

An index directory is opened read-only (SQLite ``mode=ro&immutable=1``; Tantivy from its
directory), so any number of processes may open the same index at once. Open one
:class:`WorldIndex` per process (or per thread).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import msgspec
import tantivy
from rapidfuzz import fuzz

from citejudge.errors import IndexError_
from citejudge.ids import norm_arxiv, norm_doi, norm_openalex, norm_pmcid, norm_pmid
from citejudge.index.build import (
    BLOCK_WORDS,
    MAX_TOKEN,
    SCHEMA_VERSION,
    STOPWORDS,
    block_words,
    fold_title,
    has_key,
    key_hash,
    query_blocks,
    skipping_blocks,
)
from citejudge.index.codec import RecordCodec
from citejudge.index.lookup import FENCE_FILE, LOOKUP_FILE, LookupFile
from citejudge.index.vocab import VOCAB_FILE, Vocabulary
from citejudge.records import Redirect, Work

__all__ = ["EXACT_TITLE_SCORE", "STOPWORDS", "WorldIndex", "query_terms"]

#: Score given by :meth:`WorldIndex.search_title` to works whose normalised title key equals
#: the query's (they come before every BM25 candidate).
EXACT_TITLE_SCORE = 1e6

#: Decoded records a process keeps (see :meth:`WorldIndex._works_at`): at 2,048 records of a
#: few kilobytes (abstracts included), about 10 MB.
WORK_CACHE = 2048
MAX_QUERY_TERMS = 12
FUZZY_MIN_LEN = 4
FUZZY_BOOST = 2.0
MAX_FUZZY = 3  # unknown words matched within one edit, at most
RARE_MAX_TERMS = 16  # longer queries (whole citation strings) use the broad OR only
RARE_MIN_TERMS = 4  # queries with fewer known terms go straight to the broad OR
RARE_MUST = 3  # a first-pass candidate contains at least two of this many rarest terms
SQL_CHUNK = 500  # rowids per query (SQLite's limit on parameters may be as low as 999)
BLOCK_MAX = 64  # a title block with more works than this is too common to decide anything
BLOCK_PAIR_MAX = 1 << 14  # ...but two such blocks (of at most this many works) may intersect
BLOCK_ACCEPT = 80.0  # a block answers when its best title is this similar to the query...
BLOCK_KEEP = 60.0  # ...with every block title at least this similar
# ...or when a title that has every content word of the query (a citation that left words out)
# is this similar: "Fair security METL15 in" of "Fair security of METL15 in bioinformatics" (72)
BLOCK_SUBSET_ACCEPT = 70.0
MAX_ALPHABET = 64  # letters other than ASCII that edits try, at most (else: Tantivy's fuzzy query)
EDIT_CACHE = 4096  # misspelt words whose known edits are remembered (then forgotten at once)
SPELL_CHOICES = 2  # a misspelt word is tried as each of its this many commonest corrections
_SPELL_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"


def _accepts(similar: dict[int, tuple[str, float, bool]]) -> bool:
    """Whether a block stage answers: one of the works it read is close enough to the query."""
    return any(close for _wid, _score, close in similar.values())


def _vocabulary(path: Path, meta: dict[str, Any]) -> Vocabulary | None:
    """The index's vocabulary file, if ``meta.json`` vouches for it (same number of entries).

    None for an index built before the file existed, and for one that a version which does not
    write it has updated since (its meta.json has no count): every word goes to Tantivy then.
    """
    entries = meta.get("vocabulary_entries")
    if entries is None or not (path / VOCAB_FILE).is_file():
        return None
    vocab = Vocabulary(path / VOCAB_FILE)
    return vocab if vocab.entries == entries else None


def _close(query: str, title: str, words: set[str]) -> tuple[float, bool]:
    """Similarity of two folded titles, and whether ``title`` is close enough to answer.

    Close: :data:`BLOCK_ACCEPT` similar to ``query``, or :data:`BLOCK_SUBSET_ACCEPT` with every
    content word (``words``) of a query of at least three.
    """
    score = fuzz.ratio(query, title, processor=None)
    if score >= BLOCK_ACCEPT:
        return score, True
    # (three words at least: a two-word query's block holds only titles of three content
    # words, and "On the origin of species" must not settle for "...of species revisited")
    subset = len(words) >= BLOCK_WORDS and words <= set(title.split())
    return score, score >= BLOCK_SUBSET_ACCEPT and subset


def query_terms(text: str) -> list[str]:
    """The terms of a title query: folded words, no stopwords, no repeats (order kept)."""
    words = [w for w in fold_title(text).split() if len(w.encode()) < MAX_TOKEN]
    terms = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(terms))


class WorldIndex:
    """A read-only index of a world (works, identifiers, redirects, titles)."""

    def __init__(
        self,
        path: Path,
        db: sqlite3.Connection,
        tindex: tantivy.Index,
        meta: dict[str, Any],
        codec: RecordCodec,
        lookup: LookupFile,
        vocab: Vocabulary | None = None,
    ):
        self.path = path
        self._vocab = vocab
        self._edit_cache: dict[str, list[tuple[int, str]]] = {}
        self._db = db
        self._lookup = lookup
        self._alias_cache: dict[str, list[str]] = {}
        self._tindex = tindex
        self._searcher = tindex.searcher()
        self._schema = tindex.schema
        self.meta = meta
        self.codec = codec
        self.decode = codec.decode
        self._work_cache: dict[int, Work] = {}
        #: How many title searches each retrieval stage answered (for benchmarks).
        self.stages: Counter[str] = Counter()

    @property
    def has_text(self) -> bool:
        """False for an index built with ``--fields matching`` (it holds no abstracts)."""
        return self.codec.fields != "matching"

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str) -> WorldIndex:
        """Open the index at ``path`` read-only; raise :class:`IndexError_` if it is unusable."""
        path = Path(path)
        hint = f"build it with: citejudge index build SOURCE --index {path}"
        meta_path = path / "meta.json"
        if not path.is_dir() or not meta_path.is_file():
            raise IndexError_(f"no citejudge index at {path}", hint=hint)
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as exc:
            raise IndexError_(f"unreadable index metadata {meta_path}: {exc}", hint=hint) from exc
        version = meta.get("schema_version")
        if version != SCHEMA_VERSION:
            raise IndexError_(
                f"index {path} has schema version {version}, this citejudge reads {SCHEMA_VERSION}",
                hint=f"rebuild it: citejudge index build SOURCE --index {path}",
            )
        codec = RecordCodec.load(path, meta)
        db_path = (path / "works.sqlite").resolve()
        if not db_path.is_file():
            raise IndexError_(f"index {path} has no works.sqlite", hint=hint)
        uri = f"file:{urllib.parse.quote(str(db_path))}?mode=ro&immutable=1"
        try:
            db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            db.execute("SELECT 1 FROM works LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            raise IndexError_(
                f"index {path}: works.sqlite is unreadable: {exc}", hint=hint
            ) from exc
        try:
            tindex = tantivy.Index.open(str(path / "tantivy"))
            lookup = LookupFile(path / LOOKUP_FILE)
            vocab = _vocabulary(path, meta)
        except (OSError, ValueError) as exc:
            db.close()
            raise IndexError_(f"index {path}: unreadable: {exc}", hint=hint) from exc
        return cls(path, db, tindex, meta, codec, lookup, vocab)

    def close(self) -> None:
        """Close the SQLite connection."""
        self._db.close()

    def __enter__(self) -> WorldIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- records ---------------------------------------------------------------------------

    def get(self, work_id: str) -> Work | None:
        """The work with this id (exactly as stored), or None."""
        found = self.get_many([work_id])
        return found[0] if found else None

    def get_many(self, ids: Iterable[str]) -> list[Work]:
        """The works with these ids, in the order given, missing ones left out."""
        wanted = list(dict.fromkeys(ids))
        want = set(wanted)
        rowids = [r for wid in wanted for r in self._lookup.rows(key_hash("i:" + wid))]
        found = {w.id: w for w in self._works_at(rowids, want)}
        return [found[w] for w in wanted if w in found]

    def iter_works(self) -> Iterator[Work]:
        """Every work of the index, in row order (for indexes built over the whole world)."""
        cur = self._db.execute("SELECT data FROM works ORDER BY rowid")
        while rows := cur.fetchmany(SQL_CHUNK):
            for (data,) in rows:
                yield self.decode(data)

    def _works_at(self, rowids: list[int], ids: set[str] | None = None) -> list[Work]:
        """The works in rows ``rowids`` (of ``ids`` only, when given), ordered by id.

        A process decodes a record once and keeps the last :data:`WORK_CACHE` of them: the works
        a run's citations name recur (a work and its family, and the same work cited again),
        and decoding costs more than the rest of a lookup. Each call returns copies, so a caller
        that sets a field of its Work changes nothing here.
        """
        cache = self._work_cache
        got = {r: cache[r] for r in rowids if r in cache}
        missing = [r for r in rowids if r not in got]
        if missing:
            for wid, rowid, data in self._rows("id, rowid, data", missing):
                if ids is None or wid in ids:  # rows of other keys with the same hash stay coded
                    got[rowid] = self.decode(data)
                    if WORK_CACHE > 0:
                        if len(cache) >= WORK_CACHE:
                            del cache[next(iter(cache))]  # the oldest
                        cache[rowid] = got[rowid]
        works = [got[r] for r in dict.fromkeys(rowids) if r in got]
        if ids is not None:
            works = [w for w in works if w.id in ids]
        works.sort(key=lambda w: w.id)
        return [msgspec.structs.replace(w) for w in works]

    def redirect(self, work_id: str) -> Redirect | None:
        """The redirect of a merged or deleted id, or None."""
        row = self._db.execute(
            "SELECT id, target, source FROM redirects WHERE id = ?", (work_id,)
        ).fetchone()
        return Redirect(id=row[0], target=row[1], source=row[2]) if row else None

    @cached_property
    def has_venue_aliases(self) -> bool:
        """Whether the index holds any venue's other names (its world had a Sources entity)."""
        try:
            return self._db.execute("SELECT 1 FROM venue_alias LIMIT 1").fetchone() is not None
        except sqlite3.OperationalError:  # an index built before venue aliases existed
            return False

    def venue_aliases(self, name: str) -> list[str]:
        """Other names of the venue ``name`` from the snapshot's Sources entity.

        Display name, abbreviated title and alternate titles; none when the index holds no Sources.
        """
        key = fold_title(name)
        if not key:
            return []
        if key in self._alias_cache:
            return self._alias_cache[key]
        try:
            rows = self._db.execute(
                "SELECT names FROM venue_alias WHERE key = ?", (key,)
            ).fetchall()
        except sqlite3.OperationalError:  # an index built before venue aliases existed
            rows = []
        out = list(dict.fromkeys(n for (blob,) in rows for n in json.loads(blob) if n != name))
        if len(self._alias_cache) < 65536:
            self._alias_cache[key] = out
        return out

    def follow(self, work_id: str) -> tuple[Work | None, list[str]]:
        """Follow merge redirects from ``work_id``; return the work reached and the id chain.

        The chain starts with ``work_id``. A deleted (or unknown) id gives ``(None, chain)``.
        """
        chain = [work_id]
        current = work_id
        while True:
            work = self.get(current)
            if work is not None:
                return work, chain
            red = self.redirect(current)
            if red is None or red.target is None or red.target in chain:
                return None, chain
            current = red.target
            chain.append(current)

    def _rows(self, columns: str, rowids: list[int]) -> list[Any]:
        """``columns`` (``id`` first) of the works rows ``rowids``, ordered by id.

        Read in chunks: a common key (a title such as "Introduction") may have very many rows.
        """
        out: list[Any] = []
        for i in range(0, len(rowids), SQL_CHUNK):
            chunk = rowids[i : i + SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            out += self._db.execute(
                f"SELECT {columns} FROM works WHERE rowid IN ({marks})", chunk
            ).fetchall()
        out.sort(key=lambda r: r[0])
        return out

    def _by_key(self, key: str) -> list[Work]:
        works = self._works_at(self._lookup.rows(key_hash(key)))
        # keys are stored as 32-bit hashes: the record itself confirms the key
        return [w for w in works if has_key(w, key)]

    def _by(self, prefix: str, norm: Callable[[Any], str | None], value: Any) -> list[Work]:
        canon = norm(value)
        return self._by_key(prefix + canon) if canon else []

    def by_doi(self, doi: str) -> list[Work]:
        """Works with this DOI (of the record or of one of its versions), sorted by id."""
        return self._by("d:", norm_doi, doi)

    def by_pmid(self, pmid: str | int) -> list[Work]:
        """Works with this PubMed id."""
        return self._by("p:", norm_pmid, pmid)

    def by_pmcid(self, pmcid: str | int) -> list[Work]:
        """Works with this PubMed Central id."""
        return self._by("c:", norm_pmcid, pmcid)

    def by_arxiv(self, arxiv: str) -> list[Work]:
        """Works with this arXiv id (of the record, a version, or an arXiv DOI)."""
        return self._by("a:", norm_arxiv, arxiv)

    def by_openalex(self, openalex_id: str) -> list[Work]:
        """The work with this OpenAlex id, following merge redirects (empty if deleted/unknown)."""
        wid = norm_openalex(openalex_id)
        if wid is None:
            return []
        work, _ = self.follow(wid)
        return [work] if work is not None else []

    def title_key_rows(self, key: str) -> int:
        """How many records the lookup holds under the title key's hash (collisions counted).

        No more works than this have the title key ``key``: one means the work itself alone.
        """
        return len(self._lookup.rows(key_hash("t:" + key))) if key else 0

    def ids_by_title_key(self, key: str) -> list[str]:
        """Ids of the works whose title key is ``key``, sorted.

        No record is decoded, so (keys being stored as 32-bit hashes) a caller that must be
        sure compares the titles of the records it reads; callers do (version families).
        """
        if not key:
            return []
        return [r[0] for r in self._rows("id", self._lookup.rows(key_hash("t:" + key)))]

    def by_title_key(self, key: str) -> list[Work]:
        """Works whose title key (:func:`citejudge.match.normalize.title_key`) is ``key``."""
        return self._by_key("t:" + key) if key else []

    # --- title candidates ------------------------------------------------------------------

    def search_title(
        self, text: str, k: int = 10, *, exact: bool = True, blocks: bool = True
    ) -> list[tuple[str, float]]:
        """Candidate work ids for a (possibly noisy) title, best first, at most ``k``.

        Works whose exact title key matches come first (score :data:`EXACT_TITLE_SCORE`), then
        BM25 over the title words (stopwords left out), ordered by score descending then id.
        Words no title contains (typos) match within one edit. For a title-length query of four
        known words or more, the first pass only considers works containing two of its three
        rarest words (fast at scale); when none does, an OR of all the words is run. Never
        parses ``text`` as a query language. ``exact=False`` skips the title-key lookup (BM25
        only).

        Before any ranked query, the works sharing a title block (:func:`query_blocks`: windows
        of three content words at both ends, leave-one-out keys of short titles, the two words
        of a two-word query) are compared with the query; when one is close enough they are the
        answer, ranked by similarity. When none is, the query's misspelt words (words no title has) are spelt as known words
        within one edit (:meth:`_respellings`) and the blocks of each respelling tried the same
        way (still compared with the query as written). When none is either, the blocks that skip
        one word near either end (:func:`skipping_blocks`, for a word added there) of the query
        and of its respellings. Their number is bounded, so these stages cost the same in any
        world. Then, before the ranked query, for a query of three known words or more, the
        works with all three rarest words (one conjunction of three posting lists, a fraction
        of the pairs' cost) answer when one of them is as close as a block's would have to be
        (:func:`_close`). ``blocks=False`` skips these stages.
        """
        if k <= 0:
            return []
        out: dict[str, float] = {}
        folded = fold_title(text)
        key = folded.replace(" ", "") if exact else ""
        if key:
            # in id order, confirmed on the record, the first k only (a common title such as
            # "Introduction" has very many works)
            tkey = "t:" + key
            rowids = self._lookup.rows(key_hash(tkey))
            if len(rowids) > k:  # in id order before any record is read
                rowids = [r for _wid, r in self._rows("id, rowid", rowids)]
            for i in range(0, len(rowids), k):
                for w in self._works_at(rowids[i : i + k]):
                    if has_key(w, tkey):
                        out[w.id] = EXACT_TITLE_SCORE
                if len(out) >= k:
                    break
        terms = query_terms(text)
        if out and len(out) >= k:
            self.stages["title_key"] += 1
        if blocks and terms and len(out) < k and len(terms) <= RARE_MAX_TERMS:
            read = self._block_rows(query_blocks(folded))
            similar = self._similar(read, folded)
            stage = "title_block"
            if not _accepts(similar):
                # misspelt words break the blocks they are in: try them spelt as known words
                # (each work read once, however many respellings and the query itself share it)
                stage = "title_block_spelled"
                variants = self._respellings(folded)
                rows: set[int] = set()
                for variant in variants:
                    rows |= self._block_rows(query_blocks(variant))
                kept = similar | self._similar(rows - read, folded)  # the similar works read so far
                similar = {r: v for r, v in kept.items() if r in rows}
                read |= rows
                if not _accepts(similar):
                    # a word added near an end breaks the windows there: skip one word
                    stage = "title_block_skipping"
                    rows = set()
                    for variant in [folded, *variants]:
                        rows |= self._block_rows(skipping_blocks(variant))
                    similar = {r: v for r, v in kept.items() if r in rows}
                    similar |= self._similar(rows - read, folded)
            near = {wid: score for wid, score, _close in similar.values()}
            if _accepts(similar):
                self.stages[stage] += 1
                for wid, score in near.items():
                    out.setdefault(wid, score)
                return sorted(out.items(), key=lambda t: (-t[1], t[0]))[:k]
        if terms and len(out) < k:
            searcher = self._searcher
            schema = self._schema
            dfs = {t: searcher.doc_freq("title", t) for t in terms}
            known = [t for t in terms if dfs[t]]
            if len(known) > MAX_QUERY_TERMS:
                # keep the rarest terms: they carry the evidence, and a shorter OR is faster
                keep = set(sorted(known, key=lambda t: (dfs[t], t))[:MAX_QUERY_TERMS])
                known = [t for t in known if t in keep]
            should = tantivy.Occur.Should
            term_q = {t: tantivy.Query.term_query(schema, "title", t) for t in known}
            # a word no title has is most likely misspelt: match it within one edit
            fuzzy = [
                (should, self._within_one_edit(t))
                for t in [u for u in terms if not dfs[u] and len(u) >= FUZZY_MIN_LEN][:MAX_FUZZY]
                if len(terms) <= RARE_MAX_TERMS  # a long query is a citation string, not a title
            ]
            if not known and not fuzzy:
                return sorted(out.items(), key=lambda t: (-t[1], t[0]))[:k]
            limit = k + 5
            hits: list[tuple[float, Any]] = []
            words = [t for t in known if not t.isdigit()]  # years, volumes, pages: no gate
            rare = sorted(words, key=lambda t: (dfs[t], t))[:RARE_MUST]
            must = tantivy.Occur.Must
            scoring = [(should, term_q[t]) for t in known] + fuzzy

            def gated(gate: Any) -> list[tuple[float, Any]]:
                """The works ``gate`` lets through (it scores 0), ranked by all the words."""
                only = tantivy.Query.const_score_query(gate, 0.0)
                query = tantivy.Query.boolean_query([(must, only), *scoring])
                return list(searcher.search(query, limit, count=False).hits)

            stage = ""
            if blocks and len(words) >= RARE_MUST and len(terms) <= RARE_MAX_TERMS:
                # the works with all three rarest words (one conjunction, cheaper than the pairs
                # below) answer when one of them is close to the query, as a block would
                found = gated(tantivy.Query.boolean_query([(must, term_q[t]) for t in rare]))
                if found and self._any_close(found, folded):
                    hits, stage = found, "ranked_strict"
            if not hits and len(words) >= RARE_MIN_TERMS and len(terms) <= RARE_MAX_TERMS:
                # rare-term conjunctions first: two of the three rarest words must match (a
                # typo that makes another real word breaks one pair only), all words score.
                # BM25 of a document is the same under this query and the broad OR, so a work
                # found here ranks no lower than it would there; fall back when none match.
                pairs = [
                    (should, tantivy.Query.boolean_query([(must, term_q[a]), (must, term_q[b])]))
                    for i, a in enumerate(rare)
                    for b in rare[i + 1 :]
                ]
                hits = gated(tantivy.Query.boolean_query(pairs))
            self.stages[stage or ("ranked_rare" if hits else "ranked_all")] += 1
            if not hits:
                hits = searcher.search(
                    tantivy.Query.boolean_query(scoring), limit, count=False
                ).hits
            scored: list[tuple[float, str]] = []
            for score, addr in hits:
                wid = searcher.doc(addr)["id"][0]
                scored.append((float(score), str(wid)))
            scored.sort(key=lambda t: (-t[0], t[1]))
            for score, wid in scored:
                if wid not in out:
                    out[wid] = score
        ranked = sorted(out.items(), key=lambda t: (-t[1], t[0]))
        return ranked[:k]

    def _within_one_edit(self, word: str) -> Any:
        """A clause for the titles with a word one edit from ``word``, scoring :data:`FUZZY_BOOST`.

        Tantivy's fuzzy term query, boosted; for a word of ASCII letters and digits in an index
        with a vocabulary file, the same clause built from the words themselves: a
        constant-score OR of the terms one edit away (:meth:`_known_edits`, stopwords
        included, as the fuzzy query has them, and the spellings that put a letter of the
        vocabulary's alphabet in, ``tnfb`` -> ``tnfα``). The fuzzy query walks every segment's
        term dictionary and marks every document of every word it finds before it scores any;
        the OR reads only the postings a gate lets through. The two differ only for a word one
        edit away that begins with a letter no listed word contains; past
        :data:`MAX_ALPHABET` such letters the fuzzy query is used.
        """
        schema = self._schema
        vocab = self._vocab
        if (
            vocab is None
            or len(vocab.alphabet) > MAX_ALPHABET
            or not (word.isascii() and word.isalnum())
            or word != word.lower()
        ):
            fuzzy = tantivy.Query.fuzzy_term_query(schema, "title", word, distance=1)
            return tantivy.Query.boost_query(fuzzy, FUZZY_BOOST)
        doc_freq = self._searcher.doc_freq
        words = {c for _df, c in self._known_edits(word)}
        if vocab.alphabet:
            more = _edits1(word, vocab.alphabet) - _edits1(word)
            words.update(c for c in vocab.maybe_words(sorted(more)) if doc_freq("title", c))
        if doc_freq("title", word):  # (within one edit: the word itself too)
            words.add(word)
        should = tantivy.Occur.Should
        terms = [(should, tantivy.Query.term_query(schema, "title", c)) for c in sorted(words)]
        return tantivy.Query.const_score_query(tantivy.Query.boolean_query(terms), FUZZY_BOOST)

    def _known_edits(self, word: str) -> list[tuple[int, str]]:
        """(document frequency, word) of the title words one edit away from ``word``.

        Memoised (a misspelt word is asked for by the respelled blocks, then by the ranked
        query); the vocabulary file, when the index has one, spares Tantivy the non-words.
        """
        got = self._edit_cache.get(word)
        if got is None:
            edits = list(_edits1(word))
            if self._vocab is not None:  # most edits are no word: the vocabulary rules them out
                edits = self._vocab.maybe_words(edits)
            doc_freq = self._searcher.doc_freq
            got = [(df, c) for c in edits if (df := doc_freq("title", c))]
            if len(self._edit_cache) >= EDIT_CACHE:
                self._edit_cache.clear()
            self._edit_cache[word] = got
        return got

    def _respellings(self, folded: str) -> list[str]:
        """``folded`` with its misspelt words spelt as words the titles of the index have.

        The first :data:`MAX_FUZZY` distinct words of at least :data:`FUZZY_MIN_LEN` characters
        that no title has are each replaced (wherever they occur) by each of their
        :data:`SPELL_CHOICES` commonest known words within one edit (delete, transpose,
        replace or insert a character; stopwords never, ties by the word). Returns every
        combination (none when no word needs or finds a correction). The cost is at most
        :data:`MAX_FUZZY` words of a few hundred candidate strings each, whatever the world: the
        vocabulary file (:mod:`citejudge.index.vocab`) rules most out, Tantivy counts the rest.
        """
        words = folded.split()
        doc_freq = self._searcher.doc_freq
        fixes: list[tuple[str, list[str]]] = []
        tried = 0
        for w in dict.fromkeys(words):
            if w in STOPWORDS or len(w) < FUZZY_MIN_LEN or len(w.encode()) >= MAX_TOKEN:
                continue
            if doc_freq("title", w):
                continue
            tried += 1
            known = [(df, c) for df, c in self._known_edits(w) if c not in STOPWORDS]
            if known:
                known.sort(key=lambda t: (-t[0], t[1]))
                fixes.append((w, [c for _df, c in known[:SPELL_CHOICES]]))
            if tried >= MAX_FUZZY:
                break
        out: list[str] = []
        if fixes:
            for choice in itertools.product(*(c for _w, c in fixes)):
                fix = {w: c for (w, _cs), c in zip(fixes, choice, strict=True)}
                out.append(" ".join([fix.get(w, w) for w in words]))
        return out

    def _block_rows(self, blocks: Iterable[str]) -> set[int]:
        """Rowids of the works that have one of ``blocks`` (title block keys).

        A block of more than :data:`BLOCK_MAX` works is too common to propose candidates by
        itself, but the works two such blocks of the query share are few: they are taken too.
        """
        rowids: set[int] = set()
        common: list[list[int]] = []
        for block in blocks:
            rows = self._lookup.rows(key_hash(block), BLOCK_PAIR_MAX + 1)
            if len(rows) <= BLOCK_MAX:
                rowids.update(rows)
            elif len(rows) <= BLOCK_PAIR_MAX:
                common.append(rows)
        if len(common) > 1:
            import numpy as np  # (loaded here, by the first query that has two such blocks)

            arrays = [np.array(rows, dtype=np.uint64) for rows in common]
            for i, a in enumerate(arrays):
                for b in arrays[i + 1 :]:
                    both = np.intersect1d(a, b, assume_unique=True)
                    if len(both) <= BLOCK_MAX:
                        rowids.update(both.tolist())
        return rowids

    def _any_close(self, hits: list[tuple[float, Any]], query: str) -> bool:
        """Whether one of the works of ``hits`` (Tantivy's) has a title close to ``query``."""
        ids = [str(self._searcher.doc(addr)["id"][0]) for _score, addr in hits]
        words = set(block_words(query))
        return any(
            _close(query, fold_title(w.title), words)[1] for w in self.get_many(ids) if w.title
        )

    def _similar(self, rowids: set[int], query: str) -> dict[int, tuple[str, float, bool]]:
        """Works of ``rowids`` with a title at least :data:`BLOCK_KEEP` similar to ``query``.

        ``query`` is folded; rowid -> (work id, similarity: ``fuzz.ratio`` of the folded titles,
        whether the title is close enough to answer: :func:`_close`).
        """
        out: dict[int, tuple[str, float, bool]] = {}
        words = set(block_words(query))
        decode_title = self.codec.decode_title
        for wid, rowid, data in self._rows("id, rowid, data", sorted(rowids)):
            title = decode_title(data)
            if title:
                score, close = _close(query, fold_title(title), words)
                if score >= BLOCK_KEEP:
                    out[rowid] = (wid, score, close)
        return out

    # --- about -----------------------------------------------------------------------------

    def count(self) -> int:
        """Number of works."""
        return int(self._db.execute("SELECT count(*) FROM works").fetchone()[0])

    def info(self) -> dict[str, Any]:
        """Counts, sources, snapshot dates, size on disk and schema version."""
        size = sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())
        dates: set[str] = set()
        for src in self.meta.get("sources", []):
            for d in src.get("snapshot_dates") or []:
                dates.add(str(d))
        return {
            "path": str(self.path),
            "schema_version": self.meta.get("schema_version"),
            "citejudge_version": self.meta.get("citejudge_version"),
            "built_at": self.meta.get("built_at"),
            "works": self.count(),
            "redirects": int(self._db.execute("SELECT count(*) FROM redirects").fetchone()[0]),
            "title_docs": int(self._searcher.num_docs),
            "sources": self.meta.get("sources", []),
            "snapshot_dates": sorted(dates),
            "bytes": size,
            "bytes_per_work": self._bytes_per_work(size),
        }

    def _bytes_per_work(self, total: int) -> dict[str, float]:
        """Bytes on disk per work, by part: records, identifier/title lookups, title index, the rest."""
        n = max(self.count(), 1)
        lookups = sum((self.path / f).stat().st_size for f in (LOOKUP_FILE, FENCE_FILE))
        parts = {"records": 0, "lookups": lookups, "title_index": 0, "other": 0}
        try:
            rows = self._db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
        except sqlite3.Error:  # SQLite built without dbstat: the whole file counts as records
            rows = [("works", (self.path / "works.sqlite").stat().st_size)]
        for name, size in rows:
            parts["records" if name == "works" else "other"] += int(size or 0)
        parts["title_index"] = sum(
            p.stat().st_size for p in (self.path / "tantivy").rglob("*") if p.is_file()
        )
        if (self.path / VOCAB_FILE).is_file():
            parts["title_index"] += (self.path / VOCAB_FILE).stat().st_size
        parts["other"] += max(total - sum(parts.values()), 0)
        return {k: round(v / n, 1) for k, v in parts.items()}


def _edits1(word: str, extra: str = "") -> set[str]:
    """Every string one edit away from ``word`` (Damerau: delete, transpose, replace, insert).

    Inserted and replacing characters: ASCII letters and digits, those of ``word``, ``extra``.
    """
    chars = _SPELL_CHARS + "".join(sorted(set(word + extra) - set(_SPELL_CHARS)))
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in chars)
    out.update(a + c + b for a, b in splits for c in chars)
    out.discard(word)
    return out
