"""The ``references`` task: reference grounding (deterministic) and content grounding (judged).

Order of decisions, each a rule in code:

0. abstention pre-check on the claim (``yes`` → the abstention result, stop);
1. the citation is read from ``full_citation`` (primary) and ``metadata``; any conflict between
   the two is itself a mismatch;
2. resolution and strict field validation (:mod:`citejudge.match.resolve`);
3. the dependency rule: reference "No" → content "No", hallucination "Yes";
4. content grounding only after a positive match (by the judge; with ``--no-llm`` it is "N/A").
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from citejudge.ids import is_scholarly_url
from citejudge.io import Item, OutputLine, input_error
from citejudge.judge.core import Judge
from citejudge.judge.prompts import render
from citejudge.judge.schemas import AbstentionJudgement
from citejudge.match.citation import CitedWork
from citejudge.match.fields import YEAR_RANGE, compare_title, is_year_text
from citejudge.match.names import compare_authors
from citejudge.match.resolve import FieldResult, WorldLookup, check_citation
from citejudge.match.venues import compare_venue
from citejudge.readers.metadata import parse_item_citation
from citejudge.records import Work
from citejudge.tasks.abstention import detect_abstention
from citejudge.tasks.protocol import Checker, JudgeFactory, TaskOptions
from citejudge.text.sentences import evidence_units

if TYPE_CHECKING:  # (the source store loads only with ``--fulltext``)
    from citejudge.sources import SourceStore

__all__ = [
    "CONTENT_NOT_JUDGED",
    "DEPENDENCY_CONTENT",
    "ContentStage",
    "ReferencesTask",
    "abstention_result",
    "make_checker",
    "make_stage",
    "merge_citations",
    "validate_options",
]

TASK = "references"
ABSTENTION = "N/A. This is an abstention statement."
DEPENDENCY_CONTENT = (
    "No. Reference not grounded, so content cannot be attributed to a verified source."
)
CONTENT_NOT_JUDGED = "N/A. Content was not judged: the run used no model (--no-llm)."
_MAX_NAME = 20_000


class _PersonIn(BaseModel):
    """A CSL-style name object in ``metadata.authors``."""

    model_config = ConfigDict(extra="allow", strict=True)
    family: StrictStr | None = None
    given: StrictStr | None = None
    literal: StrictStr | None = None
    name: StrictStr | None = None

    @model_validator(mode="after")
    def _has_a_name(self) -> _PersonIn:
        if not any((x or "").strip() for x in (self.family, self.literal, self.name)):
            raise ValueError("a name object needs 'family', 'literal' or 'name'")
        return self


class MetadataIn(BaseModel):
    """The ``metadata`` object of a ``references`` item: each field optional, each of one type."""

    model_config = ConfigDict(extra="allow", strict=True)
    title: StrictStr | None = None
    authors: StrictStr | list[StrictStr | _PersonIn] | None = None
    year: StrictInt | StrictStr | None = None
    venue: StrictStr | None = None
    doi: StrictStr | None = None
    pmid: StrictStr | StrictInt | None = None
    pmcid: StrictStr | StrictInt | None = None
    arxiv: StrictStr | None = None
    url: StrictStr | None = None

    @field_validator("year")
    @classmethod
    def _is_a_year(cls, year: int | str | None) -> int | str | None:
        # a value of the right type that is not a year ("abc") would otherwise be read as no year
        # and the item judged without it
        if isinstance(year, int) and year not in YEAR_RANGE:
            raise ValueError(NOT_A_YEAR)
        if isinstance(year, str) and not is_year_text(year):
            raise ValueError(NOT_A_YEAR)
        return year


#: Why a ``metadata.year`` of the right type is refused.
NOT_A_YEAR = (
    f"a year is an integer from {YEAR_RANGE.start} to {YEAR_RANGE.stop - 1}, or a string that "
    "holds one ('2019', '2019a', 'May 2019') or says there is none ('in press', 'n.d.')"
)


class ReferencesItemIn(BaseModel):
    """A ``references`` item as read: a wrong type is a per-item input error naming the field."""

    model_config = ConfigDict(extra="allow", strict=True)
    claim: StrictStr | None = None
    full_citation: StrictStr | dict[str, Any] | None = None
    metadata: MetadataIn | None = None


def item_type_error(data: dict[str, Any]) -> tuple[str, str] | None:
    """(field path, message) of the first wrongly typed field of a ``references`` item, or None."""
    try:
        ReferencesItemIn.model_validate(data)
    except ValidationError as exc:
        # the most specific error: a union reports one error per member type
        err = max(
            exc.errors(),
            key=lambda e: sum(1 for x in e["loc"] if isinstance(x, int)) * 10 + len(e["loc"]),
        )
        loc = [str(x) for x in err["loc"]]
        # a union reports one error per member type: name the field, not the member type
        path = ".".join(x for x in loc if x.isdigit() or x in _FIELDS)
        path = re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", path)
        value = _at(data, tuple(x for x in err["loc"] if isinstance(x, int) or x in _FIELDS))
        if err["type"] == "value_error" and path == "metadata.year":
            return path, f"'{path}' is not a year ({_shown(value)}): {NOT_A_YEAR}"
        return path, f"'{path}' has the wrong type ({type(value).__name__}): {_expected(path)}"
    return None


_FIELDS = frozenset(
    {"claim", "full_citation", "metadata", *MetadataIn.model_fields, *_PersonIn.model_fields}
)


def _at(data: Any, loc: tuple[Any, ...]) -> Any:
    cur = data
    for k in loc:
        if (isinstance(cur, dict) and k in cur) or (
            isinstance(cur, list) and isinstance(k, int) and k < len(cur)
        ):
            cur = cur[k]
        else:
            break
    return cur


def _shown(value: Any) -> str:
    """A value for an error message: its repr, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(path: str) -> str:
    if path.startswith("metadata.authors"):
        return "authors are a string ('A and B') or a list of names (strings or {family, given} objects)"
    if path in ("metadata.year",):
        return "a year is an integer or a string"
    if path in ("metadata.pmid", "metadata.pmcid"):
        return "an identifier is a string or an integer"
    if path == "full_citation":
        return "a citation is a string or a CSL-JSON object"
    if path == "metadata":
        return "metadata is an object"
    return "expected a string"


def abstention_result(name: str) -> dict[str, str]:
    """The fixed result for an abstention statement."""
    return {
        "reference_name": name,
        "reference_grounding": ABSTENTION,
        "content_grounding": ABSTENTION,
        "hallucination": "No",
        "abstention": "Yes",
        "verification_error": "No",
    }


def _conflicts(primary: CitedWork, meta: CitedWork) -> list[FieldResult]:
    """Fields stated by both ``full_citation`` and ``metadata`` that disagree."""
    out: list[FieldResult] = []
    if primary.doi and meta.doi and not set(primary.doi) & set(meta.doi):
        out.append(
            FieldResult(
                "doi",
                False,
                meta.doi[0],
                primary.doi[0],
                f"metadata DOI {meta.doi[0]} differs from full_citation DOI {primary.doi[0]}",
            )
        )
    for kind in ("arxiv", "pmid", "pmcid", "openalex"):
        a, b = getattr(primary, kind), getattr(meta, kind)
        if a and b and a != b:
            out.append(
                FieldResult(
                    kind, False, b, a, f"metadata {kind} {b} differs from full_citation {kind} {a}"
                )
            )
    if primary.year is not None and meta.year is not None and primary.year != meta.year:
        out.append(
            FieldResult(
                "year",
                False,
                meta.year,
                primary.year,
                f"metadata year {meta.year} differs from full_citation year {primary.year}",
            )
        )
    if primary.title and meta.title and not compare_title(meta.title, primary.title).ok:
        out.append(
            FieldResult(
                "title",
                False,
                meta.title,
                primary.title,
                "metadata title differs from the full_citation title",
            )
        )
    if primary.authors and meta.authors:
        from citejudge.records import Author

        chk = compare_authors(
            meta.authors, meta.et_al or primary.et_al, [Author(n) for n in primary.authors]
        )
        if not chk.ok:
            out.append(
                FieldResult(
                    "authors",
                    False,
                    meta.authors,
                    primary.authors,
                    f"metadata authors differ from full_citation authors ({chk.reason})",
                )
            )
    if (
        primary.venue
        and meta.venue
        and compare_venue(meta.venue, [primary.venue]).status != "match"
    ):
        out.append(
            FieldResult(
                "venue",
                False,
                meta.venue,
                primary.venue,
                f"metadata venue '{meta.venue}' differs from full_citation venue '{primary.venue}'",
            )
        )
    return out


def merge_citations(
    primary: CitedWork | None, meta: CitedWork | None
) -> tuple[CitedWork | None, list[FieldResult]]:
    """One citation from both sources: ``full_citation`` first, metadata fills what it lacks."""
    if primary is None or meta is None:
        return primary or meta, []
    conflicts = _conflicts(primary, meta)
    merged = CitedWork(
        raw=primary.raw,
        form=primary.form,
        title=primary.title or meta.title,
        authors=primary.authors or meta.authors,
        et_al=primary.et_al if primary.authors else meta.et_al,
        year=primary.year if primary.year is not None else meta.year,
        year_raw=primary.year_raw or meta.year_raw,
        venue=primary.venue or meta.venue,
        doi=primary.doi or meta.doi,
        pmid=primary.pmid or meta.pmid,
        pmcid=primary.pmcid or meta.pmcid,
        arxiv=primary.arxiv or meta.arxiv,
        openalex=primary.openalex or meta.openalex,
        urls=primary.urls + [u for u in meta.urls if u not in primary.urls],
        is_preprint=primary.is_preprint or meta.is_preprint,
        volume=primary.volume or meta.volume,
        pages=primary.pages or meta.pages,
        publisher=primary.publisher or meta.publisher,
        entry_type=primary.entry_type or meta.entry_type,
        warnings=primary.warnings + meta.warnings,
        bad_ids=primary.bad_ids + [b for b in meta.bad_ids if b not in primary.bad_ids],
    )
    return merged, conflicts


def _reference_name(item: dict[str, Any]) -> str:
    """The verbatim citation (or claim) the item gave, as the spec's ``reference_name``."""
    fc = item.get("full_citation")
    if isinstance(fc, str) and fc.strip():
        name = fc
    elif isinstance(fc, dict):
        import json

        name = json.dumps(fc, ensure_ascii=False, sort_keys=True)
    else:
        meta = item.get("metadata")
        if isinstance(meta, dict) and meta:
            parts = []
            for k in ("authors", "year", "title", "venue", "doi", "arxiv", "pmid", "pmcid", "url"):
                v = meta.get(k)
                if v:
                    parts.append(", ".join(map(str, v)) if isinstance(v, list) else str(v))
            name = ". ".join(parts)
        else:
            name = str(item.get("claim") or "")
    return name if len(name) <= _MAX_NAME else name[:_MAX_NAME] + " […]"


@dataclass
class ReferencesTask:
    """Deterministic part of the ``references`` evaluator, applied item by item."""

    world: WorldLookup
    today_year: int = _dt.date.today().year
    strict_identifiers: bool = False
    strict_venues: bool = False
    #: the source store (``--fulltext DIR``): a web page cited by its address alone is found there
    store: SourceStore | None = None

    def check(self, item: Item) -> OutputLine:
        """Evaluate one item (with content grounding left to the judge stage)."""
        data = item.data
        name = _reference_name(data)
        claim = data.get("claim")
        extra = {
            k: v for k, v in data.items() if k not in {"id", "claim", "metadata", "full_citation"}
        }
        details: dict[str, Any] = {}
        if extra:
            details["input_extra"] = extra
        if claim is not None and not isinstance(claim, str):
            return input_error(
                item,
                TASK,
                f"'claim' must be a string, got {type(claim).__name__}",
                "claim",
                details,
            )

        bad = item_type_error(data)
        if bad is not None:
            return input_error(item, TASK, bad[1], bad[0], details)
        abst = detect_abstention(claim)
        details["abstention_check"] = {"status": abst.status, "phrase": abst.phrase}
        if abst.status == "yes":
            return OutputLine(item.id, TASK, abstention_result(name or (claim or "")), details)

        primary, meta = parse_item_citation(data)
        cited, conflicts = merge_citations(primary, meta)
        if cited is None:
            return input_error(
                item,
                TASK,
                "the item has neither 'full_citation' nor 'metadata'",
                "full_citation",
                details,
            )
        details["cited"] = _cited_summary(cited)
        verdict = check_citation(
            cited,
            self.world,
            today_year=self.today_year,
            strict_identifiers=self.strict_identifiers,
            strict_venues=self.strict_venues,
        )
        details.update(verdict.details())
        if conflicts:
            details["conflicts"] = [c.to_dict() for c in conflicts]
        if not conflicts and (
            (verdict.resolution.status == "nothing_stated" and cited.urls)
            or (verdict.resolution.status == "not_found" and is_web_page(cited))
        ):
            # a web page: the page saved in the source store is the page; without it, opening
            # the address is the only check, and an offline run cannot
            details["web_page"] = True
            for url in cited.urls:
                page = self.store.text_for_url(url) if self.store is not None else None
                if page is not None:
                    details["match"] = {"status": "source_store", "url": url, "file": page.origin}
                    details["grounded"] = True
                    return OutputLine(item.id, TASK, stored_page_result(name, page.origin), details)
            details["grounded"] = False
            named = bool(_URL_TEXT.sub("", name).strip(" ,.;:<>[]()0123456789"))
            return OutputLine(
                item.id, TASK, web_only_result(name, cited.urls[0], named=named), details
            )
        grounded = verdict.grounded and not conflicts
        if conflicts:
            expl = "Citation is inconsistent: " + "; ".join(c.reason for c in conflicts)
            if not verdict.grounded:
                expl += "; also " + verdict.explanation[0].lower() + verdict.explanation[1:]
            else:
                expl += "."
        else:
            expl = verdict.explanation
        result = {
            "reference_name": name,
            "reference_grounding": ("Yes. " if grounded else "No. ") + expl,
            "content_grounding": CONTENT_NOT_JUDGED if grounded else DEPENDENCY_CONTENT,
            "hallucination": "No" if grounded else "Yes",
            "abstention": "No",
            "verification_error": "No",
        }
        details["grounded"] = grounded
        if abst.status == "unclear":
            details["abstention_check"]["note"] = (
                "abstention phrase inside a factual statement; left to the judge"
            )
        return OutputLine(item.id, TASK, result, details)


_URL_TEXT = re.compile(r"\S+://\S*")


def is_web_page(cited: CitedWork) -> bool:
    """True when ``cited`` is a web page's citation, not a paper's.

    It gives a web address that is not a scholarly record's (:func:`~citejudge.ids.is_scholarly_url`)
    and nothing a paper has: no scholarly identifier, venue, volume or pages ("The GNOME desktop,
    http://www.gnome.org"; "Key words for use in RFCs…, http://www.ietf.org/rfc/rfc2119.txt").
    A paper cited with an address the world does not hold stays "not found".
    """
    return bool(
        cited.urls
        and not any(is_scholarly_url(u) for u in cited.urls)
        and not (cited.doi or cited.arxiv or cited.pmid or cited.pmcid or cited.openalex)
        and not cited.bad_ids
        and not (cited.venue or cited.volume or cited.pages)
    )


def web_only_result(name: str, url: str, *, named: bool = False) -> dict[str, str]:
    """The result of a citation of a web page whose page is not at hand.

    Not a DOI, arXiv or PubMed link (those are looked up): the page cannot be opened offline,
    which is a verification error, not a hallucination. ``named``: the citation also gives a
    title or author, which no scholarly record of the local world matches.
    """
    why = (
        "no scholarly record of the local world matches it"
        if named
        else "it states no DOI, arXiv id, PMID, title or author to look up in the local world"
    )
    return {
        "reference_name": name,
        "reference_grounding": (
            f"N/A. The citation {'cites the web page' if named else 'names only a web address'} "
            f"({url}); it cannot be opened offline, and {why}."
        ),
        "content_grounding": "N/A. Cannot verify content: the cited web page cannot be opened offline.",
        "hallucination": "No",
        "abstention": "No",
        "verification_error": "Yes",
    }


def stored_page_result(name: str, origin: str) -> dict[str, str]:
    """The result of a web address whose page the source store holds (content left to the judge)."""
    return {
        "reference_name": name,
        "reference_grounding": (
            f"Yes. The cited web page is saved in the local source store ({origin.removeprefix('store:')}); "
            "a web page has no scholarly record, so its address is all there is to check."
        ),
        "content_grounding": CONTENT_NOT_JUDGED,
        "hallucination": "No",
        "abstention": "No",
        "verification_error": "No",
    }


def _cited_summary(c: CitedWork) -> dict[str, Any]:
    out: dict[str, Any] = {"form": c.form}
    for k in ("title", "year", "year_raw", "venue", "pmid", "pmcid", "arxiv", "openalex"):
        v = getattr(c, k)
        if v not in (None, ""):
            out[k] = v
    if c.authors:
        out["authors"] = c.authors
        out["et_al"] = c.et_al
    if c.doi:
        out["doi"] = c.doi
    if c.is_preprint:
        out["is_preprint"] = True
    if c.warnings:
        out["warnings"] = c.warnings
    return out


NO_TEXT = "N/A. Cannot verify content: no abstract or full text of {wid} is available offline."
NO_TEXT_INDEX = (
    "N/A. Cannot verify content: the index was built with --fields matching (it holds no "
    "abstracts) and no full text of {wid} is available offline."
)
NO_CLAIM = "N/A. The item states no claim about the work's content."


@dataclass
class ContentStage:
    """The judged part of ``references``: content grounding (and unclear abstentions).

    Applied to a batch of deterministic output lines at once so that every sub-claim of every
    item goes to the model in one call.
    """

    world: WorldLookup
    judge: Judge
    fulltext_dir: Path | None = None
    _source_store: SourceStore | None = None

    def _store(self) -> SourceStore | None:
        """The source store of ``fulltext_dir`` (opened once), for web pages cited by address."""
        if self._source_store is None and self.fulltext_dir is not None:
            from citejudge.sources import SourceStore

            self._source_store = SourceStore.open(self.fulltext_dir)
        return self._source_store

    def apply(self, pairs: list[tuple[Item, OutputLine]]) -> None:
        """Fill in ``content_grounding`` (and abstention for unclear cases) in place."""
        # (here, once a batch: a run without a model never loads the passage code and numpy's
        # share of it)
        from citejudge.tasks.content import ContentCase, Evidence, find_evidence, judge_content

        unclear = [
            (it, ln)
            for it, ln in pairs
            if ln.result is not None
            and ln.details.get("abstention_check", {}).get("status") == "unclear"
        ]
        if unclear:
            prompts = [
                render("abstention.v1", statement=str(it.data.get("claim") or ""))
                for it, _ in unclear
            ]
            for (_, ln), out in zip(
                unclear, self.judge.ask(prompts, AbstentionJudgement), strict=True
            ):
                ln.details["abstention_check"]["judge"] = {
                    "answer": out.answer.abstention if out.answer else None,
                    "request_hash": out.request_hash,
                    "error": out.error,
                }
                if out.answer is not None and out.answer.abstention == "yes":
                    assert ln.result is not None
                    ln.result = abstention_result(ln.result["reference_name"])
                    ln.details["grounded"] = None
        cases: list[ContentCase] = []
        targets: list[OutputLine] = []
        for it, ln in pairs:
            if ln.result is None or not ln.details.get("grounded"):
                continue
            claim = it.data.get("claim")
            if not isinstance(claim, str) or not claim.strip():
                ln.result["content_grounding"] = NO_CLAIM
                continue
            match = ln.details.get("match", {})
            if match.get("status") == "source_store":
                # a web page: the text the store holds, judged like a full text
                store = self._store()
                page = store.text_for_url(match["url"]) if store is not None else None
                if page is not None:
                    # its sentences and lines of text, never its menus, headings or banners
                    text = "\n".join(evidence_units(page.text)) or page.text
                    cases.append(
                        ContentCase(claim, Work(id=match["url"]), Evidence(text, page.origin))
                    )
                    targets.append(ln)
                    ln.details["content"] = {"evidence": page.origin}
                    continue
            wid = match.get("work_id")
            work = self.world.get(wid) if wid else None
            evidence = find_evidence(work, self.fulltext_dir) if work else None
            if work is None or evidence is None:
                text_less = not getattr(self.world, "has_text", True)
                ln.result["content_grounding"] = (NO_TEXT_INDEX if text_less else NO_TEXT).format(
                    wid=wid
                )
                ln.result["verification_error"] = "Yes"
                ln.details["content"] = {"evidence": None}
                continue
            cases.append(ContentCase(claim, work, evidence))
            targets.append(ln)
            ln.details["content"] = {"evidence": evidence.source}
        for ln, verdict in zip(targets, judge_content(cases, self.judge), strict=True):
            assert ln.result is not None
            ln.details["content"]["subclaims"] = verdict.subclaims
            if verdict.label == "error":
                ln.error = {
                    "kind": "judge",
                    "message": verdict.error or "no valid answer",
                    "field": "claim",
                }
                ln.details["partial_result"] = ln.result
                ln.result = None
                continue
            ln.result["content_grounding"] = verdict.explanation
            if verdict.label == "No":
                ln.result["hallucination"] = "Yes"


# ------------------------------------------------------------------------- task entry points


def validate_options(opts: TaskOptions) -> None:
    """Usage errors of ``check references`` before any work starts."""
    _index_path(opts)


def _index_path(opts: TaskOptions) -> Path:
    from citejudge.errors import ConfigError

    if opts.index is None:
        raise ConfigError(
            "the references task needs --index PATH", hint="build one with 'citejudge index build'"
        )
    if not Path(opts.index).exists():
        raise ConfigError(
            f"index {opts.index} does not exist", hint="build one with 'citejudge index build'"
        )
    return opts.index


def make_checker(opts: TaskOptions) -> Checker:
    """The deterministic stage (opens the index read-only in this process)."""
    from citejudge.index import WorldIndex

    world = WorldIndex.open(_index_path(opts))
    fulltext = opts.fulltext_dir
    store = None
    if fulltext is not None and fulltext.is_dir():
        from citejudge.sources import SourceStore

        store = SourceStore.open(fulltext)
    task = ReferencesTask(
        world,
        strict_identifiers=bool(getattr(opts, "strict_identifiers", False)),
        strict_venues=bool(getattr(opts, "strict_venues", False)),
        store=store,
    )
    if opts.today_year is not None:
        task.today_year = opts.today_year
    return task.check


def make_stage(opts: TaskOptions, make_judge: JudgeFactory) -> ContentStage:
    """The judged stage: content grounding and unclear abstentions."""
    from citejudge.index import WorldIndex
    from citejudge.judge.schemas import ClaimSupport
    from citejudge.tasks.content import TEMPLATE

    index = _index_path(opts)
    judge = make_judge([TEMPLATE, "abstention.v1"], [ClaimSupport, AbstentionJudgement])
    return ContentStage(WorldIndex.open(index), judge, opts.fulltext_dir)
