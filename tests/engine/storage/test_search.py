"""Full-text search: every word must occur, in any case and any script; one hit per dialog, with snippet."""

from __future__ import annotations

from pathlib import Path

import pytest

from visindigo.engine import Center, Role

from .conftest import reopen


def fill(center: Center) -> dict[str, str]:
    dialogs = {}
    for name, texts in {
        "kyoto": ["Plan three days in Kyoto", "Day 1: Fushimi Inari at dawn, then the Kyoto station area."],
        "sql": ["Review this SQL: SELECT * FROM users WHERE name LIKE '%a%'", "Use an index on users(name)."],
        "chinese": ["我们明天去京都旅行，计划三天的行程。", "第一天：伏见稻荷大社。"],
        "quotes": ['He said "hello" AND left -- NEAR(x) * ^', "ok"],
    }.items():
        dialog = center.create_dialog()
        for i, text in enumerate(texts):
            dialog.append_message(Role.USER if i % 2 == 0 else Role.ASSISTANT, text)
        dialogs[name] = dialog.id
    return dialogs


@pytest.fixture(params=["store", "memory"])
def searchable(request: pytest.FixtureRequest, home: Path) -> Center:
    center = Center.open(home) if request.param == "store" else Center()
    if center.store is not None:
        request.addfinalizer(center.close)
    return center


def test_words_match_in_any_case_and_every_word_is_required(searchable: Center) -> None:
    ids = fill(searchable)
    hits = searchable.search("kyoto")
    assert [h.dialog_id for h in hits] == [ids["kyoto"]]  # one hit per dialog, though two messages match
    hit = hits[0]
    assert hit.title == ("Plan three days in Kyoto" if searchable.store is not None else "")
    for start, end in hit.highlights:
        assert hit.snippet[start:end].lower() == "kyoto"
    assert hit.highlights
    assert [h.dialog_id for h in searchable.search("fushimi DAWN")] == [ids["kyoto"]]
    assert searchable.search("fushimi users") == []
    assert searchable.search("   ") == []


def test_chinese_text_is_found_inside_a_sentence_even_with_two_characters(searchable: Center) -> None:
    ids = fill(searchable)
    assert [h.dialog_id for h in searchable.search("京都旅行")] == [ids["chinese"]]
    short = searchable.search("京都")  # shorter than a trigram: found by the fallback scan
    assert [h.dialog_id for h in short] == [ids["chinese"]]
    start, end = short[0].highlights[0]
    assert short[0].snippet[start:end] == "京都"
    assert [h.message_index for h in searchable.search("伏见稻荷")] == [1]


def test_search_syntax_in_the_query_is_plain_text(searchable: Center) -> None:
    ids = fill(searchable)
    expected = {
        '"hello" AND': {"quotes"},
        "NEAR(x)": {"quotes"},
        "-- NEAR": {"quotes"},
        "'%a%'": {"sql"},
        '"hello': {"quotes"},
        "*": {"quotes", "sql"},
        "^": {"quotes"},
    }
    for query, names in expected.items():
        assert {h.dialog_id for h in searchable.search(query)} == {ids[n] for n in names}, query
    assert [h.dialog_id for h in searchable.search('"the kyoto station"')] == [ids["kyoto"]]


def test_limit_and_removed_text(searchable: Center) -> None:
    for _ in range(5):
        searchable.create_dialog().append_message(Role.USER, "repeated phrase here")
    assert len(searchable.search("repeated", limit=3)) == 3
    for dialog_id in [h.dialog_id for h in searchable.search("repeated")]:
        dialog = searchable.get_dialog(dialog_id)
        assert dialog is not None
        dialog.clear_messages()
    assert searchable.search("repeated") == []


def test_search_covers_dialogs_that_were_never_opened(center: Center, home: Path) -> None:
    ids = fill(center)
    edited = center.get_dialog(ids["sql"])
    assert edited is not None
    message = edited.message_at(1)
    message.content = "Use a covering index instead."
    edited.replace_message(1, message)
    again = reopen(center, home)
    try:
        assert [h.dialog_id for h in again.search("covering")] == [ids["sql"]]
        assert again.search("users(name)") == []
        assert again._dialogs == {}
    finally:
        again.close()


def test_labels_are_found_in_every_dialog_newest_first(searchable: Center) -> None:
    """Labels (meta["label"], which the full-text index does not hold) are searched apart: every word, any case,
    a leading # ignored; the snippet is the label."""
    from visindigo.engine import Message

    trip = searchable.create_dialog()
    trip.title = "Trip"
    trip.append_message(Message(Role.USER, "How much for hotels?", meta={"label": "Budget for hotels"}))
    trip.append_message(Role.ASSISTANT, "About 100 a night.")
    food = searchable.create_dialog()
    food.title = "Food"
    food.append_message(Role.USER, "Where to eat")
    food.append_message(Message(Role.ASSISTANT, "Nishiki market", meta={"label": "food budget"}))
    hits = searchable.label_search("#budget")
    assert [(h.dialog_id, h.message_index, h.snippet) for h in hits] == [
        (food.id, 1, "#food budget"),
        (trip.id, 0, "#Budget for hotels"),
    ]
    assert [h.dialog_id for h in searchable.label_search("HOTELS budget")] == [trip.id]
    assert searchable.label_search("Nishiki") == []  # words of the message are the full-text search's
    assert searchable.label_search("#") == [] and searchable.label_search("budget", limit=1)[0].dialog_id == food.id


def test_label_search_reads_dialogs_never_opened_and_skips_unreadable_meta(center: Center, home: Path) -> None:
    from visindigo.engine import Message

    center.create_dialog().append_message(Message(Role.USER, "q", meta={"label": "keep me"}))
    again = reopen(center, home)
    try:
        path = home / "data" / "dialogs.sqlite3"
        import sqlite3

        conn = sqlite3.connect(path)
        with conn:
            conn.execute("UPDATE messages SET meta = '{\"label\": broken' WHERE position = 0")  # not JSON
        conn.close()
        assert again.label_search("keep") == []
        assert again._dialogs == {}
    finally:
        again.close()
    fresh = Center.open(home)
    try:
        dialog = fresh.create_dialog()
        dialog.append_message(Message(Role.USER, "q2", meta={"label": "keep me too"}))
        assert [h.snippet for h in fresh.label_search("keep")] == ["#keep me too"]
    finally:
        fresh.close()
