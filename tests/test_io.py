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


def test_missing_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        list(read_items(tmp_path / "nope.jsonl"))
