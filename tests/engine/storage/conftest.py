"""Store fixtures: a Center backed by a real SQLite file in a temporary home."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from visindigo.engine import Center


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def center(home: Path) -> Iterator[Center]:
    opened = Center.open(home)
    yield opened
    opened.close()


def reopen(center: Center, home: Path) -> Center:
    """Close the Center and open the same home again: what a restart of the app sees."""
    center.close()
    return Center.open(home)


def raw_rows(home: Path, sql: str, parameters: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Rows read with a separate connection, as another program would see the file."""
    conn = sqlite3.connect(home / "data" / "dialogs.sqlite3")
    try:
        return list(conn.execute(sql, parameters))
    finally:
        conn.close()
