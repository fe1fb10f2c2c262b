"""Where the hand-written parser's reading replaces the CRF's (``_parser._rules_win``), and where not.

Each string has the shape of a citation that ``scripts/bench_rendered.py`` renders from a real
OpenAlex work (faithful, expected "Yes") and that the CRF alone misread; the negatives are
shapes where the CRF's reading must stay (a held-out CSL style, an AnyStyle-like book).
"""

from __future__ import annotations

import pytest

from citejudge.match.parse import parse_citation_string
from citejudge.readers.freetext import _parser
from citejudge.records import CitedWork


def test_elsevier_without_titles_reads_names_venue_year() -> None:
    w = parse_citation_string(
        "[21] V. Foster, T. Yepes, World Bank, Washington, DC eBooks (2006). "
        "https://doi.org/10.1596/1813-9450-3943."
    )
    assert w.authors == ["V. Foster", "T. Yepes"]
    assert w.title is None
    assert w.venue == "World Bank, Washington, DC eBooks"
    assert w.year == 2006


def test_elsevier_without_titles_a_repository_is_the_venue_not_a_title() -> None:
    w = parse_citation_string(
        "[10] D. Vreugdenhil, Data Archiving and Networked Services (DANS) (2003). "
        "https://doi.org/10.18174/43129."
    )
    assert w.authors == ["D. Vreugdenhil"]
    assert w.title is None
    assert w.venue == "Data Archiving and Networked Services (DANS)"


def test_numbered_entry_with_a_title_keeps_the_crf_reading() -> None:
    # the Elsevier shape ("[n] I. Family, …, (year).") but with a title: a held-out CSL style
    w = parse_citation_string(
        "[1] Y. Yang, B. Lai, and S. Soatto, DyStaB: Unsupervised Object Segmentation via "
        "Dynamic-Static Bootstrapping, in CVPR (2021)."
    )
    assert w.title == "DyStaB: Unsupervised Object Segmentation via Dynamic-Static Bootstrapping"
    assert w.venue == "CVPR"


@pytest.mark.parametrize(
    ("text", "author", "title", "venue"),
    [
        (
            "Jonas Lemel. Editorial. Wildlife Biology. 2003.",
            "Jonas Lemel",
            "Editorial",
            "Wildlife Biology",
        ),
        ("S Goh. Malaria. PubMed. 1977.", "S Goh", "Malaria", "PubMed"),
    ],
)
def test_a_one_word_title_is_not_read_as_a_name(
    text: str, author: str, title: str, venue: str
) -> None:
    w = parse_citation_string(text)
    assert w.authors == [author]
    assert w.title == title
    assert w.venue == venue


def test_title_and_container_without_numbers_are_split() -> None:
    w = parse_citation_string("Book Reviews. Development Policy Review. 1995.")
    assert w.title == "Book Reviews"
    assert w.venue == "Development Policy Review"
    assert w.year == 1995


def test_a_year_ending_the_title_stays_in_the_title() -> None:
    w = parse_citation_string(
        "World Development Indicators 2006. (2006). The World Bank eBooks. "
        "https://doi.org/10.1596/978-0-8213-6470-3"
    )
    assert w.title == "World Development Indicators 2006"
    assert w.year == 2006


def test_a_year_inside_the_title_is_not_the_publication_year() -> None:
    w = parse_citation_string(
        "39. Huang L, Luo X, Shao J, Yan H, Yu-chang Q, Kågedal K, et al. Epidemiology and "
        "characteristics of the dengue outbreak in Guangdong, Southern China, in 2014. European "
        "Journal of Clinical Microbiology & Infectious Diseases. 2015."
    )
    assert w.title is not None and w.title.endswith("Southern China, in 2014")
    assert w.venue == "European Journal of Clinical Microbiology & Infectious Diseases"
    assert w.year == 2015


def test_a_bracketed_qualifier_stays_in_the_venue() -> None:
    w = parse_citation_string(
        "Grieg‐Gran, M. et al. (2008) ‘Sustainable financing of protected areas in Cambodia: "
        "Phnom Aural and Phnom Samkos wildlife sanctuaries’, AgEcon Search (University of "
        "Minnesota, USA)."
    )
    assert w.venue == "AgEcon Search (University of Minnesota, USA)"
    assert w.publisher is None


def test_names_are_whole() -> None:
    w = parse_citation_string(
        "Deroost, K., Pham, T., Opdenakker, G., & Van den Steen, P. E. (2015). The immunological "
        "balance between host and parasite in malaria. FEMS Microbiology Reviews. "
        "https://doi.org/10.1093/femsre/fuv046"
    )
    assert w.authors[-1] == "Van den Steen, P. E."
    w = parse_citation_string(
        "9. van Burg JAC. Westerse cultuur uit balans : naar een nieuw evenwicht in de 21e eeuw. "
        "Data Archiving and Networked Services (DANS). 2001. doi:10.18174/139413"
    )
    assert w.authors == ["van Burg JAC"]
    assert w.title == "Westerse cultuur uit balans : naar een nieuw evenwicht in de 21e eeuw"


def test_an_all_caps_title_is_not_a_name() -> None:
    w = parse_citation_string(
        "47. Ljuša M, Cero M, Grabovac Z. BOSNIA AND HERZEGOVINA IN THE CONTEXT OF REGIONAL AND "
        "GLOBAL COOPERATION FOR CONSERVATION AND SUSTAINABLE USE OF BIODIVERSITY. Radovi "
        "Šumarskog fakulteta Univerziteta u Sarajevu. 2021."
    )
    assert w.authors == ["Ljuša M", "Cero M", "Grabovac Z"]
    assert w.title is not None and w.title.startswith("BOSNIA AND HERZEGOVINA IN THE CONTEXT")


def test_a_clean_crf_reading_does_not_run_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def spy(text: str, work: CitedWork) -> None:
        calls.append(text)

    monkeypatch.setattr(_parser, "parse_by_rules", spy)
    w = parse_citation_string(
        "Quinlan, J. R. (1990). Learning logical definitions from relations. Machine Learning, 5, "
        "239-266."
    )
    assert w.title == "Learning logical definitions from relations"
    assert w.venue == "Machine Learning"
    assert calls == []


def test_rules_win_only_where_they_split_what_the_crf_glued() -> None:
    split = CitedWork(raw="x", form="string", title="A Title", venue="Journal", authors=["Doe, J."])
    glued = CitedWork(raw="x", form="string", title="A Title. Journal", authors=["Doe, J."])
    assert _parser._rules_win(glued, split)  # the CRF glued, the rules split
    assert not _parser._rules_win(split, glued)  # the CRF split, the rules glued


def test_a_title_cut_inside_its_brackets_is_whole() -> None:
    w = parse_citation_string(
        "Borel, P., 2009. Nutrigenetic Effect on Intestinal Absorption of Fat-Soluble "
        "Microconstituents (Vitamins A, E, D and K, Carotenoids and Phytosterols). Global Issues "
        "in Food Science and Technology, pp.1-10."
    )
    assert w.title is not None and w.title.endswith(
        "(Vitamins A, E, D and K, Carotenoids and Phytosterols)"
    )
    assert w.venue == "Global Issues in Food Science and Technology"


def test_degraded_double_dot_after_the_given_names() -> None:
    w = parse_citation_string(
        "Blake, Eugene M.. Orbital, Epidural and Brain Abscess. Autopsy and Microscopic Studies. "
        "American Journal of Ophthalmology. 1920. 3. 12. 876-878"
    )
    assert w.authors == ["Blake, Eugene M."]
    assert w.title == "Orbital, Epidural and Brain Abscess. Autopsy and Microscopic Studies"
    assert w.venue == "American Journal of Ophthalmology"


def test_a_container_starting_inside_a_phrase_is_whole() -> None:
    w = parse_citation_string(
        "Phillips, C.D. et al., 2018. Post-acute care for children with special health care "
        "needs. Disability and Health Journal, 11(1), pp.49–57."
    )
    assert w.title == "Post-acute care for children with special health care needs"
    assert w.venue == "Disability and Health Journal"
    assert w.authors == ["Phillips, C.D."]


@pytest.mark.parametrize(
    ("raw", "venue", "mid"),
    [
        (
            "Doe, J., 2018. A study of care. Disability and Health Journal, 11.",
            "Health Journal",
            True,
        ),
        ("Doe, J. (1992). Results. In Proceedings of AAAI, pp. 7-9.", "Proceedings of AAAI", False),
        ("Doe, J. (1992). Results. Machine Learning, 5, 239.", "Machine Learning", False),
    ],
)
def test_container_mid_phrase(raw: str, venue: str, mid: bool) -> None:
    w = CitedWork(raw=raw, form="string", title="x", venue=venue)
    assert _parser._container_mid_phrase(w) is mid


def test_harvard_title_with_two_sentences_is_whole() -> None:
    w = parse_citation_string(
        "Ober, S., 1995. The Bulletin is Dead. Long Live the Quarterly ! Business Communication "
        "Quarterly, 58(1), pp.3–4."
    )
    assert w.title == "The Bulletin is Dead. Long Live the Quarterly !"
    assert w.venue == "Business Communication Quarterly"
    w = parse_citation_string(
        "Quinlan, J. R., 1990. Learning logical definitions from relations. Machine Learning, 5, "
        "pp.239-266."
    )
    assert w.title == "Learning logical definitions from relations"
    assert w.venue == "Machine Learning"


def test_et_al_is_neither_title_nor_venue() -> None:
    w = parse_citation_string(
        "[46] M.E. Peters, M.E. Neumann, M. Iyyer, M. Gardner, C. Clark, K. Lee, et al., (2018). "
        "https://doi.org/10.18653/v1/n18-1202."
    )
    assert w.title is None
    assert w.venue is None
    assert w.authors[0] == "M.E. Peters"
    assert w.et_al


@pytest.mark.parametrize(
    "text",
    [
        "Maunder, Mike, et al. “Priorities for Conserving Global Species Richness and Endemism. "
        "WCMC Biodiversity Series 3.” 1994.",
        "[54] M. Maunder et al., “Priorities for Conserving Global Species Richness and Endemism. "
        "WCMC Biodiversity Series 3,” 1994, doi: 10.5962/bhl.title.44952.",
    ],
)
def test_a_quoted_title_ends_at_its_closing_quote(text: str) -> None:
    w = parse_citation_string(text)
    assert w.title == (
        "Priorities for Conserving Global Species Richness and Endemism. WCMC Biodiversity Series 3"
    )


def test_a_quoted_title_followed_by_its_journal_keeps_the_crf_reading() -> None:
    w = parse_citation_string(
        "Smith, John. “Colonial Trade Networks.” Journal of Economic History 12, no. 3 (1952): 1–20."
    )
    assert w.title == "Colonial Trade Networks"
    assert w.venue == "Journal of Economic History"


def test_a_bracketed_year_that_is_the_only_year_is_the_date_not_the_title() -> None:
    # a German footnote style: "Name: Title (year). In: Journal. …"; the year in brackets after
    # the title is the work's only date, so the rules' "Title (year)" does not replace the CRF's
    # title (nor their venue, which lost its first sentence)
    w = parse_citation_string(
        "Ulrike Schildmann: Stichwort „Integration“ (2004). In: Behinderte Menschen. Zeitschrift "
        "für gemeinsames Leben, Lernen und Arbeiten. 27. Jg. H. 3, S.9"
    )
    assert w.title == "Stichwort „Integration“"
    assert w.year == 2004
    assert w.venue == "Behinderte Menschen. Zeitschrift für gemeinsames Leben, Lernen und Arbeiten"


@pytest.mark.parametrize(
    ("raw", "tail", "rules_win"),
    [
        # the year is written twice: the title's own ("World Development Indicators 2006")
        ("Stichwort Teilhabe 2011. (2011). The World Bank eBooks.", " 2011", True),
        # another year is the work's: the date is the title's own ("… meeting on 30 November
        # 2007. (2008) Notes and Records …", a Harvard rendering of the throughput workload)
        (
            "Stichwort Teilhabe on 30 November 2009. (2011) Notes and Records.",
            " on 30 November 2009",
            True,
        ),
        # the only year of the string: the work's date
        ("Hanna Berger: Stichwort Teilhabe (2011). In: Welt des Kindes. 89. Jg.", " (2011)", False),
    ],
)
def test_a_date_after_the_title_is_the_titles_own_unless_it_is_the_only_one(
    raw: str, tail: str, rules_win: bool
) -> None:
    learned = CitedWork(raw=raw, form="string", title="Stichwort Teilhabe", authors=["Berger, H."])
    ruled = CitedWork(
        raw=raw, form="string", title=f"Stichwort Teilhabe{tail}", authors=["Berger, H."]
    )
    assert _parser._rules_win(learned, ruled) is rules_win


@pytest.mark.parametrize(
    ("rules_title", "rules_win"),
    [
        ("C. Turner", False),  # the rules read the rest of the name as the title
        ("Editorial", True),  # "Jonas Lemel. Editorial": a title word read as a name
    ],
)
def test_a_name_is_no_title_the_rules_can_win_with(rules_title: str, rules_win: bool) -> None:
    raw = "Tajfel, Henri and John. C. Turner. 1986. “The Social Identity Theory.” In X (eds.), Y."
    learned = CitedWork(
        raw=raw,
        form="string",
        title="The Social Identity Theory",
        venue="Y",
        authors=["Tajfel, Henri", "John. C. Turner"],
    )
    ruled = CitedWork(
        raw=raw, form="string", title=rules_title, venue="Y", authors=["Tajfel, Henri"]
    )
    assert _parser._rules_win(learned, ruled) is rules_win


def test_a_full_stop_after_a_given_name_keeps_the_quoted_title() -> None:
    # "Henri and John. C. Turner": the full stop after "John" made the names look like a
    # sentence, and the rules' reading took "C. Turner" for the title
    w = parse_citation_string(
        "Brewer, Marilynn and John. C. Turner. 1986. “The Social Identity of Groups.” In Stephan "
        "Worchel and William G. Austin (eds.), Psychology of Intergroup Relations. Chicago: "
        "Nelson/Hall."
    )
    assert w.title == "The Social Identity of Groups"
    assert w.year == 1986
