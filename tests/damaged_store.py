"""A real big store (over the 32 MB that are checked at open) with damaged pages, for the background check.

Built once per test session (a few seconds) and copied for each test that damages it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from visindigo.engine import Center, Role
from visindigo.engine.storage import database

PAGE = 4096
DIALOGS = 40


def db_file(home: Path) -> Path:
    return home / "data" / "dialogs.sqlite3"


def build_big_store(home: Path) -> list[str]:
    """40 dialogs of two messages of about 450 KB each: 37 MB, so the store is not checked at open."""
    center = Center.open(home)
    try:
        ids = []
        for number in range(DIALOGS):
            dialog = center.create_dialog()
            dialog.append_message(Role.USER, f"question {number} " + f"words{number} " * 60_000)
            dialog.append_message(Role.ASSISTANT, f"answer {number} " + "more text " * 45_000)
            ids.append(dialog.id)
            center._dialogs.pop(dialog.id)  # keep memory flat
        return ids
    finally:
        center.close()


def damage(path: Path, *, pages: int = 3) -> None:
    """Overwrite a few pages in the middle of the file, as a failing disk or a bad copy does."""
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        for where in (size // 3, size // 2, 2 * size // 3)[:pages]:
            handle.seek(where - where % PAGE)
            handle.write(b"\xa5" * PAGE * 2)


@pytest.fixture(scope="session")
def big_store_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    home = tmp_path_factory.mktemp("big-store") / "home"
    ids = build_big_store(home)
    assert db_file(home).stat().st_size > database.CHECK_AT_OPEN_BYTES
    return home, ids


@pytest.fixture
def damaged_big_home(tmp_path: Path, big_store_template: tuple[Path, list[str]]) -> tuple[Path, list[str]]:
    """A copy of the big store with damaged pages; its dialog ids."""
    template, ids = big_store_template
    home = tmp_path / "home"
    shutil.copytree(template, home)
    damage(db_file(home))
    return home, ids
