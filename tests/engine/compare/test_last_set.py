"""The last comparison set is remembered across restarts, in memory without a data folder."""

from __future__ import annotations

from pathlib import Path

from visindigo.engine import Center
from visindigo.engine.compare import ModelChoice
from visindigo.engine.compare.last_set import last_set, remember_set

SET = [ModelChoice("local", "qwen"), ModelChoice("openai", "gpt-4o"), ModelChoice("openai", "")]


def test_remembered_across_a_restart(tmp_path: Path) -> None:
    center = Center.open(tmp_path / "home")
    assert last_set(center) == []
    remember_set(center, SET)
    center.close()
    again = Center.open(tmp_path / "home")
    try:
        assert last_set(again) == SET
        assert (tmp_path / "home" / "data" / "compare.json").stat().st_mode & 0o077 == 0
    finally:
        again.close()


def test_an_unreadable_file_is_no_set_and_is_replaced_by_the_next(tmp_path: Path) -> None:
    center = Center.open(tmp_path / "home")
    try:
        path = tmp_path / "home" / "data" / "compare.json"
        path.write_text("{not json")
        assert last_set(center) == []
        path.write_text('{"last_set": [{"provider_id": "p", "model_id": 3}, {"model_id": "x"}, 7]}')
        assert last_set(center) == [ModelChoice("p", "")]  # what is usable of it
        remember_set(center, SET[:2])
        assert last_set(center) == SET[:2]
    finally:
        center.close()


def test_in_memory_without_a_data_folder() -> None:
    center, other = Center(), Center()
    remember_set(center, SET * 2)
    assert last_set(center) == (SET * 2)[:4]
    assert last_set(other) == []
