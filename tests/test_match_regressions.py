"""Regressions found with the rendered-citation benchmark (``scripts/bench_rendered.py``).

Each test pins one parser or matcher bug: venue prefixes, numbers in titles, inverted first
authors, ACS titles glued to the last author, generic venues, title-less strings, duplicate
records without authors and the publisher field. The fixtures are written here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citejudge.index import WorldIndex, build_index_from_works
from citejudge.match import (
    check_citation,
    compare_authors,
    compare_venue,
    parse_citation_string,
    parse_metadata,
)
from citejudge.records import Author, Work

# --------------------------------------------------------------------------- 1. "In" prefix


@pytest.mark.parametrize(
    ("text", "venue"),
    [
        (
            "Smith, J. (2020). A study of things. International Journal of Stuff, 3, 4-5.",
            "International Journal of Stuff",
        ),
        (
            "Smith, J. (2020). A study of things. Information Sciences, 3, 4-5.",
            "Information Sciences",
        ),
        ("Smith, J. (2020). A study of things. Innovation, 3, 4-5.", "Innovation"),
        (
            "Smith, J. (2020). A study of things. In: Proceedings of Foo, 3, 4-5.",
            "Proceedings of Foo",
        ),
        (
            "Smith, J. (2020). A study of things. In Proceedings of Foo (pp. 3-5).",
            "Proceedings of Foo",
        ),
        (
            "Smith, J. (2020). A study of things. InProceedings of Foo, 3, 4-5.",
            "Proceedings of Foo",
        ),
    ],
)
def test_in_prefix_is_a_word_not_a_word_start(text: str, venue: str) -> None:
    assert parse_citation_string(text).venue == venue


# --------------------------------------------------------------------------- 2. numbers in titles


def test_year_in_quoted_title_is_not_the_year() -> None:
    w = parse_citation_string(
        "Doe, Jane. “Meeting of 12–14 May 2008, Geneva.” Bulletin of Things, 2009."
    )
    assert w.year == 2009
    assert w.title == "Meeting of 12–14 May 2008, Geneva"


@pytest.mark.parametrize(
    "text",
    [
        "Doe J, Roe R. A SURVEY OF PATIENTS FROM MARCH TO AUGUST 2006. Journal of Surveys. 2008.",
        "Doe, J.; Roe, R. A SURVEY OF PATIENTS FROM MARCH TO AUGUST 2006. Journal of Surveys 2008.",
    ],
)
def test_month_year_inside_title_is_kept(text: str) -> None:
    w = parse_citation_string(text)
    assert w.year == 2008
    assert w.title == "A SURVEY OF PATIENTS FROM MARCH TO AUGUST 2006"


def test_title_ending_with_the_year_keeps_it() -> None:
    w = parse_citation_string("Doe J. World Indicators 2006. Bank Books. 2006.")
    assert w.title == "World Indicators 2006"
    assert w.year == 2006


@pytest.mark.parametrize(
    "text",
    [
        "Fari MA. Meeting on Malaria Control, Lima, Peru, 10–15 December 1975. Environmental Conservation. 1976.",
        "Fari, M. A. Meeting on Malaria Control, Lima, Peru, 10–15 December 1975. Environmental Conservation 1976.",
    ],
)
def test_dated_event_title_keeps_its_date(text: str) -> None:
    w = parse_citation_string(text)
    assert w.title == "Meeting on Malaria Control, Lima, Peru, 10–15 December 1975"
    assert w.year == 1976


def test_numbers_inside_titles() -> None:
    w = parse_citation_string(
        "Doe, J. (2021). COVID-19 in 2020: 3 lessons. Journal of Things, 4, 1-9."
    )
    assert w.title == "COVID-19 in 2020: 3 lessons"
    assert w.year == 2021


def test_nested_quotes_and_bracketed_titles() -> None:
    w = parse_citation_string(
        'Mey, S. “A strategy for the project "100 fields for biodiversity".” Plant Science, 2010.'
    )
    assert w.title == 'A strategy for the project "100 fields for biodiversity"'
    assert w.venue == "Plant Science"
    w = parse_citation_string(
        "Eh, B. and Wéry, M. (1985) ‘[Seroepidemiology of malaria in Algeria].’, PubMed."
    )
    assert w.title == "[Seroepidemiology of malaria in Algeria]"
    assert w.venue == "PubMed"


def test_leading_year_is_not_a_list_number() -> None:
    w = parse_citation_string("2009. “In brief.” Nature Reviews Drug Discovery.")
    assert (w.year, w.title, w.venue) == (2009, "In brief", "Nature Reviews Drug Discovery")
    assert parse_citation_string("12. Smith J. A title. Nature. 2020.").authors == ["Smith J"]


def test_ordinal_does_not_end_the_venue() -> None:
    w = parse_citation_string(
        "Doe, J. (2020). A title of a paper. Proceedings of the 16th International Workshop on Semantics, 3, 1-9."
    )
    assert w.venue == "Proceedings of the 16th International Workshop on Semantics"


def test_initials_nd_are_not_no_date() -> None:
    w = parse_citation_string(
        "A. Roe, S. Zak, and N. D. Djadi, “In vitro activity of extracts,” Malaria Journal (2010)."
    )
    assert w.authors == ["A. Roe", "S. Zak", "N. D. Djadi"]
    assert w.title == "In vitro activity of extracts"


# --------------------------------------------------------------------------- 5. ACS titles


@pytest.mark.parametrize(
    ("text", "authors", "title"),
    [
        ("Roe, W. K. Malaria. Elsevier eBooks 2009.", ["Roe, W. K."], "Malaria"),
        (
            "Nossal, G. J. V. Drugs versus biologicals. The Medical Journal 1984.",
            ["Nossal, G. J. V."],
            "Drugs versus biologicals",
        ),
        (
            "Mihal, R.; Tarau, P. TextRank: Bringing Order into Text. Methods in Language 2004.",
            ["Mihal, R.", "Tarau, P."],
            "TextRank: Bringing Order into Text",
        ),
        (
            "Naro, E.; Sterling, E. J.; Rao, M. Protected Areas and Conservation I: Planning. Lessons 2008.",
            ["Naro, E.", "Sterling, E. J.", "Rao, M."],
            "Protected Areas and Conservation I: Planning",
        ),
        (
            "Diam, J. A. A systematic approach. Journal of Nursing 1995.",
            ["Diam, J. A."],
            "A systematic approach",
        ),
        (
            "Cort, A.; Anders, R. F. Allele Specificity. Infection and Immunity 2004.",
            ["Cort, A.", "Anders, R. F."],
            "Allele Specificity",
        ),
        (
            "Esty, D. C. Climate Change and Global Governance. Global Review 2008.",
            ["Esty, D. C."],
            "Climate Change and Global Governance",
        ),
        (
            "Duda, A. M.; El–Ashry, M. T. Addressing Water Crises. Water International 2000.",
            ["Duda, A. M.", "El–Ashry, M. T."],
            "Addressing Water Crises",
        ),
    ],
)
def test_acs_title_is_not_glued_to_the_last_author(
    text: str, authors: list[str], title: str
) -> None:
    w = parse_citation_string(text)
    assert w.authors == authors
    assert w.title == title


# --------------------------------------------------------------------------- 6. MLA / Chicago names


@pytest.mark.parametrize(
    ("text", "authors"),
    [
        (
            "von Schirn, Yasmin. 2005. “The Summit.” Globalization and Health.",
            ["von Schirn, Yasmin"],
        ),
        (
            "de la Porte, Cheryl André. “Water management.” Infoscience, 2006.",
            ["de la Porte, Cheryl André"],
        ),
        ("Okwa, Mary J. N. 2007. “Foreword.” African Journal of Ecology.", ["Okwa, Mary J. N."]),
        (
            "De Marco, Massimo, Martino Cass, and D. R. Nott. 2005. “Poultry.” Animal Resources.",
            ["De Marco, Massimo", "Martino Cass", "D. R. Nott"],
        ),
        (
            "Gozo, Mary Margaret G., William J. O’Sully, and Aldo S. Bagna. 1992. “Mitochondria.” Parasitology.",
            ["Gozo, Mary Margaret G.", "William J. O’Sully", "Aldo S. Bagna"],
        ),
        (
            "Pagio, Stefano, José Gobi, C. de Haan, and Juan Pablo Pizarro Ruiz. 2004. “Paying.” Journal X.",
            ["Pagio, Stefano", "José Gobi", "C. de Haan", "Juan Pablo Pizarro Ruiz"],
        ),
        (
            "Wout, Roel M., Arjan Stro, and Jordy G. van der Beek. 2024. “Local.” Journal X.",
            ["Wout, Roel M.", "Arjan Stro", "Jordy G. van der Beek"],
        ),
        (
            "Setu, S., Chora, Â. F., & Mota, M. M. (2020). Disrupting parasites. Nature.",
            ["Setu, S.", "Chora, Â. F.", "Mota, M. M."],
        ),
        (
            "Xavi, A. T., do Bonfim, C. V., & Medo, Z. (2021). Social things. Journal X.",
            ["Xavi, A. T.", "do Bonfim, C. V.", "Medo, Z."],
        ),
    ],
)
def test_inverted_first_author_lists(text: str, authors: list[str]) -> None:
    assert parse_citation_string(text).authors == authors


@pytest.mark.parametrize(
    ("text", "authors", "title"),
    [
        (
            "Baird, J. Kevin. “Single dose for travel?” Journal of Travel Medicine, 2021.",
            ["Baird, J. Kevin"],
            "Single dose for travel?",
        ),
        (
            "Grum, R. Edward and Jian Xu. “China Shakes the World.” Conservation Biology, 2009.",
            ["Grum, R. Edward", "Jian Xu"],
            "China Shakes the World",
        ),
        (
            "World Bank. 2003. “Nature Tourism in Natal.” The World Bank eBooks.",
            ["World Bank"],
            "Nature Tourism in Natal",
        ),
        (
            "World Bank. (2003). Nature Tourism in Natal. The World Bank eBooks.",
            ["World Bank"],
            "Nature Tourism in Natal",
        ),
    ],
)
def test_mla_initial_then_given_and_corporate_authors(
    text: str, authors: list[str], title: str
) -> None:
    w = parse_citation_string(text)
    assert w.authors == authors
    assert w.title == title


@pytest.mark.parametrize(
    ("text", "authors", "title"),
    [
        (
            "10. Buck R. Environmental Opportunities and Risks in Finance. Environmental Health. 1992.",
            ["Buck R"],
            "Environmental Opportunities and Risks in Finance",
        ),
        (
            "Wh J. Malaria and the traveller. Journal of Stuff. 1990.",
            ["Wh J"],
            "Malaria and the traveller",
        ),
        (
            "John A. Smith and Jane Doe. A title of things. Journal. 2020.",
            ["John A. Smith", "Jane Doe"],
            "A title of things",
        ),
    ],
)
def test_vancouver_title_with_and_is_not_an_author(
    text: str, authors: list[str], title: str
) -> None:
    w = parse_citation_string(text)
    assert w.authors == authors
    assert w.title == title


def test_mononym_authors() -> None:
    w = parse_citation_string(
        "[5] V. K. Katy, H. Singh, Jagdish, S. Lahri, and M. Basu, “Malaria profile,” PubMed, 1997."
    )
    assert w.authors == ["V. K. Katy", "H. Singh", "Jagdish", "S. Lahri", "M. Basu"]
    assert parse_citation_string(
        "[1] J. S. Kirt and Shipali, “SEM study,” Entomology, 2016."
    ).authors == ["J. S. Kirt", "Shipali"]
    assert parse_citation_string("[1] Y. LeCun, Y. Bengio, Biometrika (2015) 436.").authors == [
        "Y. LeCun",
        "Y. Bengio",
    ]


def test_journal_is_not_a_last_author() -> None:
    w = parse_citation_string(
        "[17] R. Abey, G.N.L. Gala, R. Feach, PLoS ONE (2012). https://doi.org/10.1371/x.y"
    )
    assert w.authors == ["R. Abey", "G.N.L. Gala", "R. Feach"]
    assert (
        parse_citation_string("[6] PLoS Medicine (2011). https://doi.org/10.1371/x.y").authors == []
    )


def test_particles_inside_given_names() -> None:
    rec = [Author("Maria das Graças Vale Barbosa"), Author("Juan de Dios Figueroa-Cárdenas")]
    for cited in (
        ["Barbosa, M. G. V.", "Figueroa-Cárdenas, J. D."],
        ["Barbosa MGV", "Figueroa-Cárdenas JD"],
        ["M. G. V. Barbosa", "J. D. Figueroa-Cárdenas"],
    ):
        assert compare_authors(cited, False, rec).ok, cited
    assert not compare_authors(["Vale, M.", "Figueroa-Cárdenas, J. D."], False, rec).ok
    w = parse_citation_string(
        "Barbosa, Maria das Graças Vale, and Juan de Dios Figueroa-Cárdenas. 2008. “Registro.” Rev."
    )
    assert w.authors == ["Barbosa, Maria das Graças Vale", "Juan de Dios Figueroa-Cárdenas"]
    assert compare_authors(w.authors, w.et_al, rec).ok


def test_natural_lists_stay_natural() -> None:
    assert parse_citation_string(
        "Anna Rani, S. Singh. Seasonal prevalence of things. Journal X. 2011."
    ).authors == ["Anna Rani", "S. Singh"]
    assert parse_citation_string(
        "Jacob Devlin, Ming-Wei Chang, Kenton Lee. BERT: pre-training. NAACL 2019."
    ).authors == ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee"]
    assert parse_citation_string(
        "Devlin, Jacob, Chang, Ming-Wei, Lee, Kenton. 2019. BERT. NAACL."
    ).authors == ["Devlin, Jacob", "Chang, Ming-Wei", "Lee, Kenton"]


# --------------------------------------------------------------------------- 7. '*', volumes, empty names


def test_star_inside_a_venue_is_not_markdown() -> None:
    w = parse_citation_string(
        "Reag, M. T. (1979). Radiotherapy. Journal of Oncology*Biology*Physics, 5, 1-2."
    )
    assert w.venue == "Journal of Oncology*Biology*Physics"
    assert compare_venue(w.venue, ["Journal of Oncology*Biology*Physics"]).ok
    assert (
        parse_citation_string("Smith, J. (2020). *A title in italics*. *Nature*, 3, 4-5.").title
        == "A title in italics"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Jane Doe*, Richard Roe*. A title here now. Nature. 2020.",
        "Doe J*, Roe R. A title here now. Nature. 2020.",
        "Doe, J.*, Roe, R. (2020). A title here now. Nature, 3, 4-5.",
        "[1] J. Doe*, R. Roe†, “A title here now,” Nature, 2020.",
    ],
)
def test_corresponding_author_star(text: str) -> None:
    w = parse_citation_string(text)
    assert w.title == "A title here now"
    assert compare_authors(w.authors, w.et_al, [Author("Jane Doe"), Author("Richard Roe")]).ok
    m = parse_metadata({"title": "T", "authors": ["Jane Doe*", "Richard Roe"]})
    assert compare_authors(m.authors, m.et_al, [Author("Jane Doe"), Author("Richard Roe")]).ok


def test_volume_suffix_of_a_venue() -> None:
    assert compare_venue("The China Yearbook", ["The China Yearbook, Volume 4"]).ok
    assert compare_venue("The China Yearbook, Vol. 4", ["The China Yearbook"]).ok


def test_empty_letter_names_are_no_authors() -> None:
    rec = [Author("Jane Doe"), Author(""), Author("."), Author("Richard Roe")]
    assert compare_authors(["Jane Doe", "Richard Roe"], False, rec).ok
    assert compare_authors(["Jane Doe", ".", "", "Richard Roe"], False, rec).ok
    assert not compare_authors(["Jane Doe"], False, rec).ok
    assert compare_authors([".", "*"], False, rec).reason == "no authors cited"


# --------------------------------------------------------------------------- 4. generic venues


@pytest.mark.parametrize(
    "venue", ["Journal", "Proceedings of the", "International Conference", "Proc."]
)
def test_generic_venue_is_not_a_match(venue: str) -> None:
    check = compare_venue(venue, ["Journal of Graph Theory"])
    assert check.status == "ambiguous"
    assert "no particular venue" in check.reason


# --------------------------------------------------------------------------- resolve: 3, 8, publisher

WORKS = [
    Work(
        id="W10",
        title="Land Reclamation in Mining Subsidence Areas",
        authors=[Author("Yu Wu"), Author("Kai Zhang")],
        year=2008,
        doi="10.9999/lrm.2008",
    ),
    Work(
        id="W11",
        title="Pollinator Networks in Dry Forests",
        authors=[Author("Carla King"), Author("Rob Lewis")],
        year=2024,
    ),
    # the same report twice: once with its corporate author, once without authors (OpenAlex duplicate)
    Work(
        id="W12",
        title="World Development Figures 2006",
        authors=[Author("World Bank")],
        year=2006,
        venue="The World Bank eBooks",
        doi="10.9999/wdf.2006",
    ),
    Work(
        id="W13",
        title="World Development Figures 2006",
        year=2006,
        venue="The World Bank eBooks",
        doi="10.9999/wdf.2006",
    ),
    Work(
        id="W14",
        title="Tropical Forest Protection: Who Pays",
        authors=[Author("Randall Kramer")],
        year=1997,
        venue="Oxford University Press eBooks",
        venue_alt=["Oxford University Press"],
        doi="10.9999/tfp.1997",
    ),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    path: Path = tmp_path_factory.mktemp("regr") / "world.index"
    build_index_from_works(WORKS, path)
    return WorldIndex.open(path)


def test_untitled_string_with_real_title_is_yes(world: WorldIndex) -> None:
    v = check_citation(
        parse_citation_string(
            "Wu Y, Zhang K. Land Reclamation in Mining Subsidence Areas. 2008. doi:10.9999/lrm.2008"
        ),
        world,
    )
    assert v.grounded, v.explanation


def test_untitled_string_with_fabricated_title_is_no(world: WorldIndex) -> None:
    v = check_citation(
        parse_citation_string(
            "Wu Y, Zhang K. Integrated assessment of glacier mass balance. 2008. doi:10.9999/lrm.2008"
        ),
        world,
    )
    assert not v.grounded
    assert "title" in v.explanation.lower()


def test_untitled_string_with_fabricated_subtitled_title_is_no(world: WorldIndex) -> None:
    # "Title: subtitle" with no venue reads like "City: Publisher"
    v = check_citation(
        parse_citation_string(
            "Wu, Y.; Zhang, K. Robust profiling of networks: lessons from three decades. 2008, DOI: 10.9999/lrm.2008."
        ),
        world,
    )
    assert not v.grounded
    assert "title" in v.explanation.lower()


def test_whole_string_search_requires_the_title_in_the_text(world: WorldIndex) -> None:
    ok = check_citation(
        parse_citation_string("Carla King, Rob Lewis. Pollinator Networks in Dry Forests. 2024."),
        world,
    )
    assert ok.grounded, ok.explanation
    bad = check_citation(
        parse_citation_string("Carla King, Rob Lewis. Pollinator Networks in Wet Forests. 2024."),
        world,
    )
    assert not bad.grounded


def test_duplicate_without_authors_is_not_ambiguity(world: WorldIndex) -> None:
    v = check_citation(
        parse_metadata(
            {
                "title": "World Development Figures 2006",
                "authors": ["World Bank"],
                "year": 2006,
                "doi": "10.9999/wdf.2006",
            }
        ),
        world,
    )
    assert v.resolution.status == "matched", v.explanation
    assert v.grounded, v.explanation
    assert v.resolution.work is not None and v.resolution.work.id == "W12"
    untitled = check_citation(
        parse_metadata({"title": "World Development Figures 2006", "year": 2006}), world
    )
    assert untitled.resolution.status == "matched", untitled.explanation


def test_publisher_is_compared(world: WorldIndex) -> None:
    good = check_citation(
        parse_citation_string(
            "Kramer, R. (1997) ‘Tropical Forest Protection: Who Pays’, Oxford University Press."
        ),
        world,
    )
    assert good.grounded, good.explanation
    bad = check_citation(
        parse_citation_string(
            "Kramer, R. (1997) ‘Tropical Forest Protection: Who Pays’, Cambridge University Press."
        ),
        world,
    )
    assert not bad.grounded
    assert "Publisher mismatch" in bad.explanation


# --------------------------------------------------------------------------- venue speed-up


def _aligns_reference(abbr: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """Plain recursive alignment without the first-letter pre-filter (differential reference)."""
    from citejudge.match.venues import _FUNCTION_WORDS, _abbrev_word

    def go(i: int, j: int) -> bool:
        if i == len(abbr) and j == len(full):
            return True
        if j < len(full) and full[j] in _FUNCTION_WORDS and go(i, j + 1):
            return True
        if i < len(abbr) and abbr[i] in _FUNCTION_WORDS and go(i + 1, j):
            return True
        return (
            i < len(abbr) and j < len(full) and _abbrev_word(abbr[i], full[j]) and go(i + 1, j + 1)
        )

    return go(0, 0)


def test_venue_alignment_prefilter_matches_reference() -> None:
    from citejudge.match.venues import _aligns, _table, venue_tokens

    extra = [
        "J. Mach. Learn. Res.",
        "Proc. Natl. Acad. Sci. USA",
        "In Advances of Things",
        "an analysis",
        "Int'l Conf. on Things",
        "The Journal of Things",
        "Natl. Sci. Rev.",
        "A. B. C.",
    ]
    toks = (
        [t for _, t in _table()]
        + [venue_tokens(v) for v in extra]
        + [("the",), ("of",), ("of", "the"), ("an", "in")]
    )
    for a in toks:
        for b in toks:
            assert _aligns(a, b) == _aligns_reference(a, b), (a, b)
