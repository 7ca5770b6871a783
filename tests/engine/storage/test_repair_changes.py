"""Issue 11 §3 "loses nothing": what is written to dialogs that are not open while a background repair copies the
damaged store is carried into the copy before it replaces the store (`engine.storage.carry_over`)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from visindigo.engine import Center, Role
from visindigo.engine.compare.picks import Pick, PickedModel


def close_dialog(center: Center, dialog_id: str) -> None:
    """What leaving a dialog amounts to for the store: it is no longer open (tracked) in this Center."""
    center._dialogs.pop(dialog_id, None)
    assert center.store is not None
    center.store.untrack(dialog_id)


def test_every_kind_of_write_to_dialogs_not_open_during_the_copy_is_in_the_repaired_store(
    damaged_big_home: tuple[Path, list[str]],
) -> None:
    home, _ids = damaged_big_home
    copying, may_finish = threading.Event(), threading.Event()

    def progress(stage: str, done: int, total: int) -> None:
        copying.set()
        may_finish.wait(60)  # hold the copy until the test has written

    center = Center.open(home, on_salvage=progress)
    store = center.store
    assert store is not None and not store.checked_at_open

    def made(title: str, *texts: str, branch_from: str = "") -> str:
        dialog = center.create_dialog(branch_from=branch_from or None)
        dialog.title = title
        for text in texts:
            dialog.append_message(Role.USER, text)
        close_dialog(center, dialog.id)
        return dialog.id

    try:
        # Before the repair: dialogs that are then closed (the copy holds them as they are now).
        grandparent = made("grandparent", "g")
        doomed = made("to be deleted", "d", branch_from=grandparent)
        orphan = made("branch of the deleted one", "b", branch_from=doomed)
        renamed = made("old name", "r")
        reopened = made("opened during the copy", "first")
        drafted = made("input draft", "x")
        worker = threading.Thread(target=store.verify)
        worker.start()
        assert copying.wait(120)
        started = time.monotonic()
        # During the copy, to dialogs that are not open:
        assert center.rename_dialog(renamed, "new name")
        assert center.remove_dialog(doomed)  # its branch moves up to the grandparent
        losers = (PickedModel(orphan, "p", "m2"),)
        pick = center.record_pick(Pick(renamed, PickedModel(renamed, "p", "m1"), losers, time.time(), tag="a-tag"))
        created = made("made during the copy", "one", "two")
        store.save_input_draft(drafted, "half a sentence")
        dialog = center.get_dialog(reopened)  # opened, written, closed again before the swap
        assert dialog is not None
        dialog.append_message(Role.ASSISTANT, "second")
        close_dialog(center, reopened)
        assert time.monotonic() - started < 20  # none of it waited for the copy
        may_finish.set()
        worker.join(300)
        assert not worker.is_alive() and store.repairs == 1
        assert any("unreadable" in path.name for path in (home / "data").iterdir())
    finally:
        may_finish.set()
        center.close()
    again = Center.open(home)
    try:
        summaries = {s.id: s for s in again.dialog_summaries()}
        assert summaries[renamed].title == "new name"
        assert doomed not in summaries and again.get_dialog(doomed) is None
        assert summaries[orphan].branch_from_id == grandparent
        assert summaries[created].title == "made during the copy" and summaries[created].message_count == 2
        created_dialog = again.get_dialog(created)
        assert created_dialog is not None and [m.content for m in created_dialog.messages] == ["one", "two"]
        assert again.store is not None and again.store.input_draft(drafted) == "half a sentence"
        reloaded = again.get_dialog(reopened)
        assert reloaded is not None and [m.content for m in reloaded.messages] == ["first", "second"]
        [stored_pick] = [p for p in again.picks() if p.id == pick.id]
        assert stored_pick.tag == "a-tag" and stored_pick.winner.model_id == "m1"
        assert again.search("two")  # the carried messages are in the search index
    finally:
        again.close()
