"""Vim keys in the real composer (Pilot): a test per group of motions and edits, the mode in the border, and in
the app: the setting, Enter sending from normal mode, Esc keeping its cancel/close meaning, the key help."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text, wait_until
from visindigo.engine.config.model import Config
from visindigo.tui.chat.composer import Composer
from visindigo.tui.common.help import HelpScreen


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Composer(id="composer", keys="vim")


def composer(app: App[None]) -> Composer:
    return app.query_one(Composer)


async def keys(pilot, *names: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*names)
    await pilot.pause()


async def test_the_mode_is_shown_in_the_border_and_esc_i_switch_it() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.focus()
        assert box.input.border_title == "vim · INSERT"
        await type_text(pilot, "hello")
        await keys(pilot, "escape")
        assert box.input.border_title == "vim · NORMAL"
        assert box.input.cursor_location == (0, 4)  # back onto the last character
        await keys(pilot, "i")
        assert box.input.border_title == "vim · INSERT"


async def test_character_and_word_motions() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.focus()
        await type_text(pilot, "one two three")
        await keys(pilot, "escape", "0")
        assert box.input.cursor_location == (0, 0)
        await keys(pilot, "w")
        assert box.input.cursor_location == (0, 4)
        await keys(pilot, "2", "w")
        assert box.input.cursor_location == (0, 12)  # "three" was the last word: w stops at the end
        await keys(pilot, "b", "b")
        assert box.input.cursor_location == (0, 4)
        await keys(pilot, "e")
        assert box.input.cursor_location == (0, 6)
        await keys(pilot, "l", "l", "h")
        assert box.input.cursor_location == (0, 7)
        await keys(pilot, "dollar_sign")
        assert box.input.cursor_location == (0, 12)
        assert box.text == "one two three"  # motions never type


async def test_line_motions_j_k_gg_and_g() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.load_text("first\nsecond\nthird")
        box.input.focus()
        await keys(pilot, "escape", "g", "g")
        assert box.input.cursor_location == (0, 0)
        await keys(pilot, "j", "l", "l")
        assert box.input.cursor_location == (1, 2)
        await keys(pilot, "j")
        assert box.input.cursor_location == (2, 2)
        await keys(pilot, "k", "k")
        assert box.input.cursor_location == (0, 2)
        await keys(pilot, "G")
        assert box.input.cursor_location == (2, 0)
        await keys(pilot, "2", "G")
        assert box.input.cursor_location == (1, 0)


async def test_deleting_changing_and_undo_redo() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.focus()
        await type_text(pilot, "one two three")
        await keys(pilot, "escape", "0", "d", "w")
        assert box.text == "two three"
        await keys(pilot, "x")
        assert box.text == "wo three"
        await keys(pilot, "u")
        assert box.text == "two three"
        await keys(pilot, "ctrl+r")
        assert box.text == "wo three"
        await keys(pilot, "c", "w")
        assert box.input.border_title == "vim · INSERT"
        await type_text(pilot, "xx")
        assert box.text == "xx three"
        await keys(pilot, "escape", "d", "d")
        assert box.text == ""


async def test_a_change_and_its_typing_are_one_undo_as_in_vim() -> None:
    """cw, the words typed, Esc: one u takes all of it back (the text area alone split it in two: u left
    "one  three", the deleted word gone); the typing of an insert is one undo however long it took."""
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.focus()
        await type_text(pilot, "one two three")
        await keys(pilot, "escape", "0", "w", "c", "w")
        await type_text(pilot, "2")
        await pilot.pause(1.5)  # the text area's own undo groups edits by time
        await type_text(pilot, "22")
        await keys(pilot, "escape")
        assert box.text == "one 222 three"
        await keys(pilot, "u")
        assert box.text == "one two three"
        await keys(pilot, "ctrl+r")
        assert box.text == "one 222 three"
        await keys(pilot, "u", "u")
        assert box.text == ""  # the first insert (typing into the empty box) is the one before it
        await keys(pilot, "ctrl+r", "x")  # back to the cursor where it was: on "two"
        assert box.text == "one wo three"
        await keys(pilot, "ctrl+r")
        assert box.text == "one wo three"  # a new change drops what could be redone


async def test_yank_put_lines_and_insert_keys_a_o() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.focus()
        await type_text(pilot, "line")
        await keys(pilot, "escape", "y", "y", "p")
        assert box.text == "line\nline"
        await keys(pilot, "o")
        await type_text(pilot, "new")
        await keys(pilot, "escape", "g", "g", "O")
        await type_text(pilot, "top")
        await keys(pilot, "escape", "A")
        await type_text(pilot, "!")
        assert box.text == "top!\nline\nline\nnew"
        await keys(pilot, "escape", "0", "a")
        await type_text(pilot, "-")
        assert box.text.startswith("t-op!")


async def test_visual_selection_then_delete_and_counts() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        box = composer(app)
        box.input.focus()
        await type_text(pilot, "alpha beta gamma")
        await keys(pilot, "escape", "0", "v", "e")
        assert box.input.border_title == "vim · VISUAL"
        assert box.input.selected_text == "alpha"
        await keys(pilot, "d")
        assert box.text == " beta gamma" and box.input.border_title == "vim · NORMAL"
        await keys(pilot, "2", "x")
        assert box.text == "eta gamma"


async def test_in_the_app_enter_sends_from_normal_mode_and_esc_keeps_its_meaning(tmp_path: Path) -> None:
    center = make_center([answer("first answer"), answer("second")])
    center.config = Config(config_file=tmp_path / "config.toml", data={"ui": {"composer_keys": "vim"}})
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        assert screen.composer.input.vim is not None
        await type_text(pilot, "question")
        await keys(pilot, "escape")
        assert screen.composer.input.border_title == "vim · NORMAL"
        await keys(pilot, "enter")
        await settle(pilot)
        assert [m.content for m in screen.dialog.messages] == ["question", "first answer"]
        assert screen.composer.input.border_title == "vim · INSERT"  # an emptied box starts in insert mode
        # editing the last question: esc goes to normal mode first, the next esc leaves the edit (its meaning)
        await keys(pilot, "up")
        assert screen.composer.editing_index == 0
        await keys(pilot, "escape")
        assert screen.composer.editing_index == 0 and screen.composer.input.border_title == "vim · NORMAL"
        await keys(pilot, "escape")
        assert screen.composer.editing_index is None
        await keys(pilot, "f1")
        assert await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.focused is not None)
        await type_text(pilot, "cancels or closes")  # the key list's filter
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        shown = " ".join(str(cell) for row in range(table.row_count) for cell in table.get_row_at(row))
        assert "esc" in shown and "insert or visual mode → normal mode; in normal mode esc cancels" in shown
        assert "Composer, vim keys (normal mode)" in shown  # the section's title row


async def test_in_normal_mode_esc_cancels_a_streaming_answer(tmp_path: Path) -> None:
    """Esc's other meaning: while an answer streams, the first esc only leaves insert mode; the next cancels."""
    from visindigo.engine.providers import FinishPart, Pause, TextPart

    center = make_center([[TextPart("The beginning "), Pause(30), TextPart("never shown"), FinishPart("stop")]])
    center.config = Config(config_file=tmp_path / "config.toml", data={"ui": {"composer_keys": "vim"}})
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "tell me")
        await keys(pilot, "enter")
        await pilot.pause(0.3)
        assert screen.runs.is_running(screen.dialog.id)
        assert screen.composer.input.border_title == "vim · INSERT"
        await keys(pilot, "escape")
        assert screen.composer.input.border_title == "vim · NORMAL"
        assert screen.runs.is_running(screen.dialog.id)  # taken by the composer: the answer goes on
        await keys(pilot, "escape")
        assert await wait_until(pilot, lambda: not screen.runs.is_running(screen.dialog.id))
        assert screen.dialog.message_at(1).meta.get("status") == "interrupted"


async def test_standard_keys_by_default() -> None:
    app = make_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        assert screen.composer.input.vim is None
        await type_text(pilot, "hi")
        await keys(pilot, "escape")
        assert screen.composer.text == "hi" and not screen.composer.input.border_title
