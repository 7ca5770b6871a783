"""The help screen is generated from BINDINGS, follows the keymap, filters, and closes by key."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input

from tests.tui.screens_host import ScreenHost
from visindigo.tui.common.approval import ApprovalScreen
from visindigo.tui.common.help import HelpScreen, bindings_of, help_rows, sections_for


class Base(Screen[None]):
    BINDINGS = [Binding("ctrl+n", "new", "New dialog", id="new-dialog"), Binding("f2", "rename", "Rename")]


class Child(Base):
    BINDINGS = [Binding("f2", "retitle", "Retitle"), Binding("ctrl+r,f5", "regenerate", "Regenerate")]


def test_bindings_of_merges_the_mro_like_textual_does() -> None:
    by_key = {b.key: (b.action, b.description) for b in bindings_of(Child)}
    assert by_key["ctrl+n"] == ("new", "New dialog")
    assert by_key["f2"] == ("retitle", "Retitle")  # the subclass wins
    assert by_key["ctrl+r"] == by_key["f5"] == ("regenerate", "Regenerate")


def test_rows_group_keys_of_one_action_and_follow_the_keymap() -> None:
    rows = help_rows(bindings_of(Child))
    assert ("ctrl+r", "f5") in [row.keys for row in rows]
    remapped = help_rows(bindings_of(Child), keymap={"new-dialog": "ctrl+t,f9"})
    assert [row.keys for row in remapped if row.description == "New dialog"] == [("ctrl+t", "f9")]


def help_app() -> ScreenHost:
    return ScreenHost(lambda: HelpScreen(sections_for([("Chat", Child), ("Tool approval", ApprovalScreen)])))


async def test_every_binding_is_listed_and_the_filter_narrows_the_list() -> None:
    app = help_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        listed = screen.visible_descriptions
        for description in ("New dialog", "Retitle", "Regenerate", "Allow once", "Allow for this dialog", "Deny"):
            assert description in listed
        assert isinstance(app.focused, Input)
        await pilot.press(*"allow")
        assert screen.visible_descriptions == ["Allow once", "Allow for this dialog"]
        await pilot.press(*"zzz")
        assert screen.visible_descriptions == []
        assert "No key matches" in str(screen.query_one("#empty").render())
        await pilot.press("ctrl+u")  # clears the filter (Input's own key)
        await pilot.pause()
        assert screen.visible_descriptions == listed


async def test_enter_moves_to_the_table_and_escape_closes() -> None:
    app = help_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        assert isinstance(app.focused, DataTable)
        await pilot.press("pagedown", "down", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
    assert app.results == [None]


async def test_key_names_are_shown_as_the_app_displays_them() -> None:
    class KeyApp(App[None]):
        def get_key_display(self, binding: Binding) -> str:
            return f"<{binding.key}>"

    app = KeyApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(HelpScreen([("Chat", Child.BINDINGS)]))
        await pilot.pause()
        table: DataTable[object] = app.screen.query_one(DataTable)
        keys = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
    assert "<ctrl+r> <f5>" in keys


async def test_keys_every_screen_inherits_are_listed_once() -> None:
    app = ScreenHost(lambda: HelpScreen(sections_for([("Chat", Child), ("Tool approval", ApprovalScreen)])))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        listed = screen.visible_descriptions
    assert listed.count("Focus Next") == 1  # both are Screens; only the first section shows tab
    assert listed.index("Focus Next") < listed.index("Allow once")
