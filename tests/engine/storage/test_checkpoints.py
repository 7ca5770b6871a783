"""A streaming reply is checkpointed about once a second; what a crash leaves becomes an interrupted message."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
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


class ManualClock:
    """The tracker's clock and timer, moved by the test: no sleeping, nothing a loaded machine can delay."""

    def __init__(self) -> None:
        self.now = 1000.0
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._cancelled: set[int] = set()
        self._count = 0

    def __call__(self) -> float:
        return self.now

    def schedule(self, delay: float, callback: Callable[[], None]) -> Callable[[], object]:
        self._count += 1
        number = self._count
        self._timers.append((self.now + delay, number, callback))
        return lambda: self._cancelled.add(number)

    def advance(self, seconds: float) -> None:
        """Move time on, running each timer that falls due on the way, in order."""
        end = self.now + seconds
        while True:
            due = sorted(t for t in self._timers if t[0] <= end and t[1] not in self._cancelled)
            if not due:
                break
            when, _number, callback = due[0]
            self._timers.remove(due[0])
            self.now = max(self.now, when)
            callback()
        self.now = end


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, fast_checkpoints: float) -> ManualClock:
    manual = ManualClock()
    monkeypatch.setattr(DialogTracker, "clock", staticmethod(manual))
    monkeypatch.setattr(DialogTracker, "schedule", staticmethod(manual.schedule))
    return manual


def test_the_first_text_is_saved_at_once_and_later_text_within_the_interval(
    center: Center, clock: ManualClock, fast_checkpoints: float
) -> None:
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "question")
    dialog.begin_assistant_message()
    assert draft(center, dialog.id) is None  # nothing to save before text arrives
    dialog.append_reasoning("thinking")
    dialog.append_delta("Hel")
    assert draft(center, dialog.id) == (1, "", "thinking")  # the first fragment wrote a checkpoint...
    dialog.append_delta("lo")
    clock.advance(fast_checkpoints * 0.9)
    assert draft(center, dialog.id) == (1, "", "thinking")  # ...and the next ones wait for the interval
    clock.advance(fast_checkpoints * 0.2)  # no more text: the timer writes what arrived meanwhile
    assert draft(center, dialog.id) == (1, "Hello", "thinking")
    dialog.append_delta(", world")
    clock.advance(fast_checkpoints * 2)
    assert draft(center, dialog.id) == (1, "Hello, world", "thinking")
    dialog.end_assistant_message()
    assert draft(center, dialog.id) is None
    assert center.get_dialog(dialog.id) is dialog
    assert [m.content for m in dialog.messages] == ["question", "Hello, world"]


def test_checkpoints_while_text_keeps_arriving_are_at_most_an_interval_apart(
    center: Center, home: Path, clock: ManualClock, fast_checkpoints: float
) -> None:
    dialog = center.create_dialog()
    dialog.begin_assistant_message()
    writes: list[float] = []
    assert center.store is not None
    original = center.store.write_draft

    def recording(*args: object, **kwargs: object) -> None:
        writes.append(clock.now)
        original(*args, **kwargs)  # type: ignore[arg-type]

    center.store.write_draft = recording  # type: ignore[method-assign]
    step = 0.01
    for _ in range(100):  # one second of text, a fragment every 10 ms
        dialog.append_delta("x")
        clock.advance(step)
    gaps = [b - a for a, b in itertools.pairwise(writes)]
    assert len(writes) == 5  # at 0, 0.2, 0.4, 0.6, 0.8 s
    assert all(gap >= fast_checkpoints - 1e-9 for gap in gaps)  # never more often than the interval
    assert max(gaps) <= fast_checkpoints + step + 1e-9  # and never later than the next fragment after it


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
