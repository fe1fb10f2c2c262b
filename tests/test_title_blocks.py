"""Title blocks: the flat-cost retrieval stage changes no verdict.

A noisy title (typos, a dropped or added word, case noise) is answered from the works sharing
one of its blocks (windows of three content words at both ends; leave-one-out keys of short
titles) when one of them is close enough, before any ranked query. On a synthetic world (template titles, Zipf-skewed rare terms, near-duplicate titles),
every citation must get the same result, match and field checks with the stage as without it.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

from citejudge.index import WorldIndex, build_index
from citejudge.index.build import (
    STOPWORDS,
    build_index_from_works,
    fold_title,
    query_blocks,
    skipping_blocks,
    title_blocks,
)
from citejudge.index.store import _SPELL_CHARS, MAX_FUZZY, _edits1
from citejudge.index.vocab import PREFIXES
from citejudge.io import Item
from citejudge.records import Work
from citejudge.tasks.references import ReferencesTask

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _script(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_blocks_of_a_title() -> None:
    # six content words: two windows at each end
    assert title_blocks("the role of brca1 in dna repair of human cells") == (
        "B:brca1 dna repair",
        "B:dna repair human",
        "B:repair human cells",
        "B:role brca1 dna",
    )
    # four: windows, and the title without each of its words
    assert title_blocks("graph neural networks explained") == (
        "B:graph networks explained",
        "B:graph neural explained",
        "B:graph neural networks",
        "B:graph neural networks explained",
        "B:neural networks explained",
    )
    assert title_blocks("deep learning") == ()  # fewer than three content words


def test_skipping_blocks_of_a_title() -> None:
    # the first four content words without their second or third, the same of the last four
    assert skipping_blocks("the role of brca1 in dna repair of human cells") == (
        "B:dna human cells",
        "B:dna repair cells",
        "B:role brca1 repair",
        "B:role dna repair",
    )
    assert skipping_blocks("graph neural networks explained") == (
        "B:graph networks explained",  # (four words: leave-one-out keys the record has too)
        "B:graph neural explained",
    )
    assert skipping_blocks("deep neural networks") == ()


content = st.text(alphabet="abcdefghij", min_size=3, max_size=6).filter(
    lambda w: w not in STOPWORDS
)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(content, min_size=5, max_size=12), data=st.data())
def test_a_word_added_near_an_end_keeps_a_skipping_block(
    words: list[str], data: st.DataObject
) -> None:
    """A word added among the first or the last four: the query's windows or skipping keys
    include a window of the record (the skipping keys when the word is second or third)."""
    n = len(words)
    i = data.draw(st.sampled_from([1, 2, 3, n - 3, n - 2, n - 1]))
    added = data.draw(content)
    noisy = " ".join([*words[:i], added, *words[i:]])
    assert set(title_blocks(noisy) + skipping_blocks(noisy)) & set(title_blocks(" ".join(words)))
    if i in (1, 2):  # second or third of the first four: only a skipping key has the window
        assert set(skipping_blocks(noisy)) & set(title_blocks(" ".join(words)))


@pytest.mark.parametrize(
    "noisy",
    [
        "graph neural netwroks explained",  # a typo
        "graph networks explained",  # a word dropped
        "graph neural networks simply explained",  # a word added
    ],
)
def test_one_edit_of_a_short_title_keeps_a_block(noisy: str) -> None:
    assert set(title_blocks(noisy)) & set(title_blocks("graph neural networks explained"))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("blocks")
    _script("make_synthetic_snapshot").make_snapshot(
        tmp / "snap", 4000, seed=11, parts=2, workers=1
    )
    build_index([tmp / "snap"], tmp / "world.index", workers=1)
    return tmp / "world.index"


def _items(ix: WorldIndex, n: int) -> list[Item]:
    render = _script("render_citations")
    noisy = _script("bench_lookup").noisy
    rng = random.Random(5)
    ids = [wid for (wid,) in ix._db.execute("SELECT id FROM works ORDER BY id")]
    out = []
    for k, wid in enumerate(rng.sample(ids, n)):
        w = ix.get(wid)
        assert w is not None
        if not w.title or not w.authors:
            continue
        cite = replace(render.cite_of(w), doi=None, title=noisy(w.title, rng))
        text = render.render(
            cite, ("apa", "ieee", "chicago", "mla")[k % 4], number=k + 1, work_type=w.type
        )
        out.append(Item(f"n{k}", {"full_citation": text}, "t.jsonl", k + 1))
    return out


def test_blocks_change_no_verdict(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ix = WorldIndex.open(world)
    items = _items(ix, 300)
    task = ReferencesTask(ix, today_year=2026)
    with_blocks = [task.check(it) for it in items]
    assert ix.stages["title_block"] >= len(items) // 3  # the stage does answer most noisy titles
    assert ix.stages["title_block_spelled"] >= 5  # ...and, misspellings corrected, some more
    assert ix.stages["title_block_skipping"] >= 3  # ...and, skipping an added word, some more
    assert ix.stages["ranked_strict"] >= 3  # ...and the three rarest words together, some more
    plain = WorldIndex.search_title

    def ranked_only(self: WorldIndex, text: str, k: int = 10, **kw: Any) -> list[tuple[str, float]]:
        return plain(self, text, k, exact=kw.get("exact", True), blocks=False)

    monkeypatch.setattr(WorldIndex, "search_title", ranked_only)
    without = [task.check(it) for it in items]
    assert [ln.result for ln in with_blocks] == [ln.result for ln in without]

    # the runners-up listed in ``details.candidates`` may differ (the block holds the works
    # that share a block, the ranked query those that share rare words); everything else not
    def decided(details: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in details.items() if k != "candidates"}

    assert [decided(ln.details) for ln in with_blocks] == [decided(ln.details) for ln in without]
    assert sum(1 for ln in with_blocks if ln.details["match"]["method"] == "title_search") > 100


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789éß", min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(word=words, data=st.data())
def test_edits1_is_every_word_one_edit_away(word: str, data: st.DataObject) -> None:
    got = _edits1(word)
    assert word not in got
    assert all(OSA.distance(word, w) == 1 for w in got)
    # one random edit of ``word`` (delete, transpose, replace, insert) is in the set, and
    # ``word`` is one edit from the edited word, which is how a misspelling finds it
    i = data.draw(st.integers(0, len(word)))
    c = data.draw(st.sampled_from("abcxyz09"))
    edited = data.draw(
        st.sampled_from(
            [
                word[:i] + word[i + 1 :],
                word[:i] + c + word[i + 1 :],
                word[:i] + c + word[i:],
                word[:i] + word[i + 1 : i + 2] + word[i : i + 1] + word[i + 2 :],
            ]
        )
    )
    if edited != word:
        assert edited in got
        # (an insertion is of a letter, a digit, or a character the word has)
        if set(word) <= set(edited) | set(_SPELL_CHARS):
            assert word in _edits1(edited)


def test_misspelt_words_are_respelt_as_known_ones(world: Path) -> None:
    ix = WorldIndex.open(world)
    # a title of the world with two of its longer words misspelt
    title = next(
        w.title
        for (data,) in ix._db.execute("SELECT data FROM works ORDER BY rowid LIMIT 200")
        if (w := ix.decode(data)).title and sum(len(x) >= 6 for x in w.title.split()) >= 2
    )
    folded = fold_title(title)
    long_words = [x for x in folded.split() if len(x) >= 6][:2]
    noisy = folded
    for x in long_words:
        noisy = noisy.replace(x, x[0] + x[2] + x[1] + x[3:], 1)  # a transposition
    assert noisy != folded
    assert folded in ix._respellings(noisy)
    assert ix._respellings(folded) == []  # nothing to correct
    top = ix.search_title(noisy, 5)
    assert top and ix.get(top[0][0]).title == title  # type: ignore[union-attr]


class _CountingSearcher:
    """A searcher proxy that counts ``doc_freq`` calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def doc_freq(self, field: str, term: str) -> int:
        self.calls += 1
        return int(self.inner.doc_freq(field, term))


def test_respelling_costs_a_bounded_number_of_term_lookups(world: Path) -> None:
    ix = WorldIndex.open(world)
    counting = _CountingSearcher(ix._searcher)
    ix._searcher = counting  # type: ignore[assignment]
    # one unknown word repeated (looked up once), then many unknown words (MAX_FUZZY tried)
    for query in ["qzxwvqzxwv " * 200, " ".join(f"qzxw{c}vkjh" for c in "abcdefghij")]:
        counting.calls = 0
        assert ix._respellings(query.strip()) == []
        assert counting.calls <= MAX_FUZZY * (1 + len(_edits1("qzxwavkjh")))
    # a misspelling is never respelt as a stopword, and each occurrence of a word is fixed
    title = next(
        w.title
        for (data,) in ix._db.execute("SELECT data FROM works ORDER BY rowid LIMIT 200")
        if (w := ix.decode(data)).title and any(len(x) >= 6 for x in fold_title(w.title).split())
    )
    folded = fold_title(title)
    word = next(x for x in folded.split() if len(x) >= 6)
    typo = word[0] + word[2] + word[1] + word[3:]
    noisy = f"{folded} {typo} {typo} witth"
    for variant in ix._respellings(noisy):
        assert typo not in variant.split()
        assert variant.split().count("with") == folded.split().count("with")
    assert any(variant.split().count(word) >= 2 for variant in ix._respellings(noisy))


def _titles(ix: WorldIndex, n: int) -> Iterator[tuple[Work, list[str], list[str]]]:
    """The first ``n`` works of ``ix`` with their folded title's words and content words."""
    for (data,) in ix._db.execute("SELECT data FROM works ORDER BY rowid LIMIT ?", (n,)):
        w = ix.decode(data)
        words = fold_title(w.title or "").split()
        yield w, words, [x for x in words if x not in STOPWORDS]


def test_a_two_word_query_finds_a_three_word_title_by_its_blocks(world: Path) -> None:
    assert query_blocks("deep learning") == ("B:deep learning",)
    assert query_blocks("on the deep learning") == ("B:deep learning",)  # content words only
    assert query_blocks("learning") == ()
    for title in ("graph neural networks", "the role of brca1 in dna repair of human cells"):
        assert query_blocks(title) == title_blocks(title)
    # a record of three content words has each pair of them as a block
    assert "B:graph networks" in title_blocks("graph neural networks")
    ix = WorldIndex.open(world)
    found = 0
    for w, words, content in _titles(ix, 3000):
        if len(content) != 3:
            continue
        dropped = " ".join(x for x in words if x != content[1])
        before = ix.stages["title_block"]
        top = ix.search_title(dropped, 10)
        if ix.stages["title_block"] > before:
            found += 1
            assert w.id in [wid for wid, _ in top]
    assert found >= 20


# --- the vocabulary file --------------------------------------------------------------------


def test_the_vocabulary_lists_every_title_word_of_its_first_characters(world: Path) -> None:
    ix = WorldIndex.open(world)
    assert ix._vocab is not None
    terms = [t for t, _n in ix._searcher.terms_with_prefix("title", "")]
    listed = [t for t in terms if t[0] in PREFIXES]
    assert len(listed) == len(ix._vocab) and len(listed) > 1000
    assert ix._vocab.maybe_words(listed) == listed
    assert [t for t in terms if t[0] not in PREFIXES] == []  # (the synthetic world is ASCII)


@settings(max_examples=200, deadline=None)
@given(strings=st.lists(st.text(alphabet="abcdeéß0_ -", max_size=6), max_size=30))
def test_the_vocabulary_rules_out_only_non_words(world: Path, strings: list[str]) -> None:
    ix = _opened(world)
    assert ix._vocab is not None
    kept = ix._vocab.maybe_words(strings)
    it = iter(kept)
    assert all(s in it for s in strings if s in kept)  # a subsequence, in order
    for s in strings:
        if (s and ix._searcher.doc_freq("title", s)) or not s or s[0] not in PREFIXES:
            assert s in kept


_OPEN: dict[Path, WorldIndex] = {}


def _opened(path: Path) -> WorldIndex:
    if path not in _OPEN:
        _OPEN[path] = WorldIndex.open(path)
    return _OPEN[path]


def test_respellings_are_the_same_without_the_vocabulary(world: Path) -> None:
    """The vocabulary only spares Tantivy lookups: an index without the file (built before it
    existed) gives the same respellings, with many more lookups."""
    ix = WorldIndex.open(world)
    noisy = _script("bench_lookup").noisy
    rng = random.Random(3)
    titles = [
        fold_title(noisy(w.title, rng))
        for (data,) in ix._db.execute("SELECT data FROM works ORDER BY rowid LIMIT 400")
        if (w := ix.decode(data)).title
    ]
    counting = _CountingSearcher(ix._searcher)
    ix._searcher = counting  # type: ignore[assignment]
    with_vocab = [ix._respellings(t) for t in titles]
    fewer, counting.calls = counting.calls, 0
    ix._vocab = None
    ix._edit_cache.clear()  # (known edits are remembered)
    assert [ix._respellings(t) for t in titles] == with_vocab
    assert sum(map(bool, with_vocab)) >= 20
    assert fewer * 5 < counting.calls


def test_a_title_that_left_words_out_is_answered_by_its_block(world: Path) -> None:
    """A citation that dropped words of the title, however unlike it by edit distance (70 to
    80), is answered by the block it shares with the record, which has every one of its
    content words (no ranked query)."""
    from rapidfuzz import fuzz

    ix = WorldIndex.open(world)
    answered = 0
    for w, words, content in _titles(ix, 3000):
        if len(content) < 5:
            continue
        # keep the first three content words and the last one: windows are still shared
        kept = content[:3] + content[-1:]
        query = " ".join(x for x in words if x not in content or x in kept)
        if not 70 <= fuzz.ratio(query, " ".join(words)) < 80:
            continue
        before = sum(v for s, v in ix.stages.items() if s.startswith("ranked"))
        top = ix.search_title(query, 10)
        assert w.id in [wid for wid, _ in top]  # (first, unless a near-duplicate title is closer)
        answered += before == sum(v for s, v in ix.stages.items() if s.startswith("ranked"))
    assert answered >= 10


def test_the_edits_of_a_word_match_what_tantivys_fuzzy_query_matches(world: Path) -> None:
    import tantivy

    ix = WorldIndex.open(world)
    words = [t for t, _n in ix._searcher.terms_with_prefix("title", "") if len(t) >= 5][:300]
    boost = tantivy.Query.boost_query
    for word in words[::7]:
        misspelt = word[0] + word[2] + word[1] + word[3:]  # a transposition
        fuzzy = boost(tantivy.Query.fuzzy_term_query(ix._schema, "title", misspelt, 1), 2.0)
        ours = ix._within_one_edit(misspelt)
        a = ix._searcher.search(fuzzy, 1000)
        b = ix._searcher.search(ours, 1000)
        assert a.count == b.count
        assert sorted((s, d.segment_ord, d.doc) for s, d in a.hits) == sorted(
            (s, d.segment_ord, d.doc) for s, d in b.hits
        )


# --- small worlds of chosen titles ---------------------------------------------------------


def _small_world(tmp: Path, titles: list[str]) -> WorldIndex:
    fillers = [f"Filler title number {i} about topic{i} things" for i in range(30)]
    works = [Work(id=f"W{i}", title=t) for i, t in enumerate(titles + fillers)]
    build_index_from_works(works, tmp / "small.index")
    return WorldIndex.open(tmp / "small.index")


def test_a_two_word_query_does_not_settle_for_a_longer_title(tmp_path: Path) -> None:
    """A two-word query's block holds only titles of three content words: a title of two (no
    block) must still be found, so that block answers only when it is close by edit distance."""
    ix = _small_world(
        tmp_path, ["The Origin of Species", "The origin of species revisited", "Deep learning"]
    )
    top = ix.search_title("On the origin of species", 10)
    assert top[0][0] == "W0"
    assert "W1" in [wid for wid, _ in top]


def test_edits_reach_words_with_letters_folding_keeps(tmp_path: Path) -> None:
    """Folding keeps Greek letters (``tnfα``): the vocabulary lists them as its alphabet, and a
    misspelt ASCII word finds the word one such letter away, as Tantivy's fuzzy query does."""
    import tantivy

    ix = _small_world(
        tmp_path,
        ["TNFα signaling in sepsis", "PPARγ agonists and insulin", "Ppara agonists reduce lipids"],
    )
    assert ix._vocab is not None and ix._vocab.alphabet == "αγ"
    q = tantivy.Query
    for word in ["tnfb", "ppary", "pparb", "agonist", "sepsiss"]:
        fuzzy = q.boost_query(q.fuzzy_term_query(ix._schema, "title", word, 1), 2.0)
        a = ix._searcher.search(fuzzy, 100)
        b = ix._searcher.search(ix._within_one_edit(word), 100)
        assert a.count == b.count > 0
        assert sorted((s, d.doc) for s, d in a.hits) == sorted((s, d.doc) for s, d in b.hits)


def test_a_vocabulary_that_meta_does_not_vouch_for_is_not_used(tmp_path: Path) -> None:
    """An index updated by a version that does not rewrite the vocabulary has a meta.json
    without its count (every build writes meta.json afresh): the file is then ignored."""
    import json

    ix = _small_world(tmp_path, ["Graph neural networks explained"])
    assert ix._vocab is not None
    meta_path = tmp_path / "small.index" / "meta.json"
    meta = json.loads(meta_path.read_text())
    assert meta["vocabulary_entries"] == ix._vocab.entries
    for stale in (None, ix._vocab.entries + 1):
        if stale is None:
            meta.pop("vocabulary_entries")
        else:
            meta["vocabulary_entries"] = stale
        meta_path.write_text(json.dumps(meta))
        reopened = WorldIndex.open(tmp_path / "small.index")
        assert reopened._vocab is None
        assert reopened._respellings("graph neural netwroks explained") == [
            "graph neural networks explained"
        ]
