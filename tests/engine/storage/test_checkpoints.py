"""A streaming reply is checkpointed about once a second; what a crash leaves becomes an interrupted message."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from visindigo.engine import Center, Message, Role
from visindigo.engine.storage import DialogTracker, Store
from visindigo.engine.storage.store import recovered_notice

from .conftest import raw_rows, reopen


@pytest.fixture
def fast_checkpoints(monkeypatch: pytest.MonkeyPatch) -> Iterator[float]:
    monkeypatch.setattr(DialogTracker, "checkpoint_interval", 0.2)
    yield 0.2


def draft(center: Center, dialog_id: str) -> tuple[int, str, str] | None:
    assert center.store is not None
    return center.store.draft(dialog_id)


async def test_the_first_text_is_saved_at_once_and_later_text_within_the_interval(
    center: Center, fast_checkpoints: float
) -> None:
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "question")
    dialog.begin_assistant_message()
    assert draft(center, dialog.id) is None  # nothing to save before text arrives
    dialog.append_reasoning("thinking")
    dialog.append_delta("Hel")
    assert draft(center, dialog.id) == (1, "", "thinking")  # the first fragment wrote a checkpoint...
    dialog.append_delta("lo")
    assert draft(center, dialog.id) == (1, "", "thinking")  # ...and the next ones wait for the interval
    await asyncio.sleep(fast_checkpoints * 2)  # no more text: the timer writes what arrived meanwhile
    assert draft(center, dialog.id) == (1, "Hello", "thinking")
    dialog.append_delta(", world")
    await asyncio.sleep(fast_checkpoints * 2)
    assert draft(center, dialog.id) == (1, "Hello, world", "thinking")
    dialog.end_assistant_message()
    assert draft(center, dialog.id) is None
    assert center.get_dialog(dialog.id) is dialog
    assert [m.content for m in dialog.messages] == ["question", "Hello, world"]


async def test_checkpoints_while_text_keeps_arriving_are_at_most_an_interval_apart(
    center: Center, home: Path, fast_checkpoints: float
) -> None:
    dialog = center.create_dialog()
    dialog.begin_assistant_message()
    writes: list[float] = []
    assert center.store is not None
    original = center.store.write_draft

    def recording(*args: object, **kwargs: object) -> None:
        writes.append(time.monotonic())
        original(*args, **kwargs)  # type: ignore[arg-type]

    center.store.write_draft = recording  # type: ignore[method-assign]
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        dialog.append_delta("x")
        await asyncio.sleep(0.01)
    gaps = [b - a for a, b in itertools.pairwise(writes)]
    assert len(writes) >= 4
    assert all(gap >= fast_checkpoints * 0.9 for gap in gaps)  # never more often than the interval
    assert max(gaps) < fast_checkpoints * 4  # and never much less often while text arrives


def test_the_timer_also_runs_without_an_event_loop(center: Center, fast_checkpoints: float) -> None:
    dialog = center.create_dialog()
    dialog.begin_assistant_message()
    dialog.append_delta("a")
    dialog.append_delta("b")
    time.sleep(fast_checkpoints * 3)
    assert draft(center, dialog.id) == (0, "ab", "")


def test_closing_writes_the_pending_text_and_reopening_recovers_it(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "question")
    dialog.begin_assistant_message()
    dialog.append_reasoning("because")
    dialog.append_delta("partial ")
    dialog.append_delta("answer")  # within the interval: not yet on disk
    again = reopen(center, home)
    try:
        assert again.notices == [
            "A reply in “question” was cut off when Visindigo last stopped. The text received until then is kept, "
            "marked as interrupted; regenerate for a complete answer."
        ]
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None
        last = loaded.last_message
        assert (last.role, last.content, last.reasoning, last.meta) == (
            Role.ASSISTANT,
            "partial answer",
            "because",
            {"status": "interrupted"},
        )
        assert raw_rows(home, "SELECT count(*) FROM drafts") == [(0,)]
    finally:
        again.close()


def test_a_reply_that_ends_as_a_message_leaves_no_draft(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    dialog.begin_assistant_message()
    dialog.append_delta("half")
    assert raw_rows(home, "SELECT count(*) FROM drafts") == [(1,)]
    # A failed round keeps its text as an "incomplete" message without StreamEnded (the run loop's rule).
    dialog.append_message(Message(Role.ASSISTANT, "half", meta={"status": "incomplete"}))
    assert raw_rows(home, "SELECT count(*) FROM drafts") == [(0,)]
    again = reopen(center, home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None and [m.meta for m in loaded.messages] == [{"status": "incomplete"}]
    finally:
        again.close()


def test_a_stale_checkpoint_is_not_appended_after_newer_messages(home: Path) -> None:
    store = Store.open(home / "data")
    center = Center()
    center.attach_store(store)
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "first")
    store.write_draft(dialog.id, 0, "an old reply", "", time.time())  # began before "first" was stored
    store.close()
    reopened = Store.open(home / "data")
    try:
        document = reopened.load_document(dialog.id)
        assert document is not None and [m["content"] for m in document["messages"]] == ["first"]
        assert reopened.draft(dialog.id) is None
        assert reopened.notices == []
    finally:
        reopened.close()


def test_the_recovery_notice_names_up_to_three_dialogs() -> None:
    assert recovered_notice(["a", "b"]).startswith("2 replies in “a”, “b” were cut off")
    assert recovered_notice(["a", "b", "c", "d", "e"]).startswith("5 replies in “a”, “b”, “c” and 2 more were")
