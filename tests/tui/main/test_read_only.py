"""A tab of `visindigo serve` beside the one that saves: it reads the same dialogs, works, and writes nothing."""

from __future__ import annotations

from pathlib import Path

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text, wait_until
from visindigo.engine import Center, Role
from visindigo.engine.providers import scripted_provider


async def test_a_read_only_app_opens_the_saved_dialogs_answers_in_memory_and_changes_nothing(tmp_path: Path) -> None:
    writer = Center.open(tmp_path)
    try:
        saved = writer.create_dialog()
        saved.append_message(Role.USER, "Saved question")
        saved.append_message(Role.ASSISTANT, "Saved answer")
        reader = Center.open(tmp_path, read_only=True)
        assert reader.read_only and not writer.read_only
        reader.add_provider(scripted_provider([answer("an answer only this tab has")]))
        app = make_app(center=reader)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = main_screen(app)
            # the last dialog, opened again just after the first frame
            assert await wait_until(pilot, lambda: screen.dialog.id == saved.id)
            assert "read-only" in str(screen.status_line.content)
            await pilot.press("ctrl+n")
            await type_text(pilot, "new here")
            await pilot.press("enter")
            await settle(pilot)
            fresh = screen.dialog
            assert fresh.message_at(1).content == "an answer only this tab has"
            assert screen.sidebar.dialog_tree.node_for(fresh.id) is not None  # listed, though not saved
            assert reader.rename_dialog(saved.id, "Renamed here") is True  # in this tab only
            assert reader.remove_dialog(saved.id) is False  # nothing is deleted from the writer's store
        assert [s.id for s in writer.dialog_summaries()] == [saved.id]
        assert writer.store is not None and writer.store.summary(saved.id).title == "Saved question"  # type: ignore[union-attr]
        reader.close()
    finally:
        writer.close()
