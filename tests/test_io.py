from pathlib import Path

import pytest

from citejudge.errors import InputError
from citejudge.io import Item, ItemError, read_items


def test_jsonl_items_and_errors(tmp_path: Path) -> None:
    p = tmp_path / "items.jsonl"
    p.write_text(
        '{"id": "a", "claim": "x"}\nnot json\n\n[1, 2]\n{"claim": "no id"}\n', encoding="utf-8"
    )
    got = list(read_items(p))
    assert isinstance(got[0], Item) and got[0].id == "a"
    assert isinstance(got[1], ItemError) and got[1].line == 2 and "not valid JSON" in got[1].message
    assert isinstance(got[2], ItemError) and got[2].line == 4
    assert isinstance(got[3], Item) and got[3].id == "line-5"


def test_csv_items_with_metadata_columns(tmp_path: Path) -> None:
    p = tmp_path / "items.csv"
    p.write_text(
        'id,claim,metadata.title,metadata.year\nx1,"a claim","A title",2019\n', encoding="utf-8"
    )
    (item,) = list(read_items(p))
    assert isinstance(item, Item)
    assert item.data["metadata"] == {"title": "A title", "year": "2019"}


def test_bib_items_keep_entry_text(tmp_path: Path) -> None:
    p = tmp_path / "refs.bib"
    p.write_text(
        "@article{k1,\n title={A},\n year={2019}\n}\n\n@comment{x}\n@inproceedings{k2, title={B}}\n"
    )
    items = list(read_items(p))
    assert [i.id for i in items] == ["k1", "k2"]
    assert isinstance(items[0], Item) and items[0].data["full_citation"].startswith("@article{k1")
    assert items[1].line == 7


# A Zotero export (T2 for the journal, DA and PY, an abstract wrapped onto a second line), an
# EndNote one (JF, "PY  - 2015///", an ID), a record without its ER line, one stating nothing
RIS = """TY  - JOUR
TI  - Deep learning
AU  - LeCun, Yann
AU  - Bengio, Yoshua
AU  - Hinton, Geoffrey
T2  - Nature
AB  - Deep learning allows computational models that are composed of multiple processing layers
      to learn representations of data with multiple levels of abstraction.
DA  - 2015/05/28/
PY  - 2015
DO  - 10.1038/nature14539
UR  - https://www.nature.com/articles/nature14539
ER  -

TY  - CONF
AU  - Kingma, Diederik P.
AU  - Ba, Jimmy
T1  - Adam: A Method for Stochastic Optimization
JF  - International Conference on Learning Representations
JO  - ICLR
PY  - 2015///
ID  - kingma2015
ER  -

TY  - JOUR
A1  - Hochreiter, Sepp
TI  - Long short-term memory
JO  - Neural Comput.
Y1  - 1997/11/15
TY  - GEN
N1  - a note and nothing else
ER  -
"""


def test_ris_records_are_metadata_items(tmp_path: Path) -> None:
    p = tmp_path / "library.ris"
    # (exports end a record with "ER  - ", its trailing space included)
    p.write_text("\ufeff" + RIS.replace("ER  -\n", "ER  - \n"), encoding="utf-8")
    got = list(read_items(p))
    assert [(g.id, g.line) for g in got] == [
        ("line-1", 1),
        ("kingma2015", 15),
        ("line-25", 25),
        ("line-30", 30),
    ]
    assert isinstance(got[0], Item) and got[0].data["metadata"] == {
        "title": "Deep learning",
        "authors": ["LeCun, Yann", "Bengio, Yoshua", "Hinton, Geoffrey"],
        "year": 2015,
        "venue": "Nature",
        "doi": "10.1038/nature14539",
        "url": "https://www.nature.com/articles/nature14539",
    }
    assert isinstance(got[1], Item)
    assert (
        got[1].data["metadata"]["venue"] == "International Conference on Learning Representations"
    )
    assert got[1].data["metadata"]["year"] == 2015
    assert isinstance(got[2], Item) and got[2].data["metadata"] == {
        "title": "Long short-term memory",
        "authors": ["Hochreiter, Sepp"],
        "year": 1997,
        "venue": "Neural Comput.",
    }
    assert (
        isinstance(got[3], ItemError) and got[3].line == 30 and "states no title" in got[3].message
    )


def test_missing_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        list(read_items(tmp_path / "nope.jsonl"))
