"""Pilot tests of the template library screen on a real folder: find, use, create, edit, copy, delete."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static, TextArea

from tests.local_page import serve_page
from tests.net_guard import fetch_server_env
from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text
from tests.tui.template_host import TemplateHost, fixed_clock
from visindigo.engine import Center, Dialog, MCPServer, Message, Prompt, Role
from visindigo.engine.mcp import MCPManager, MCPPromptInfo, PromptArgument
from visindigo.engine.templates.library import TemplateLibrary
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.templates.editor import TemplateEditorScreen
from visindigo.tui.templates.form import TemplateFormScreen, TemplateResult
from visindigo.tui.templates.library import TemplateLibraryScreen


def make_library(folder: Path) -> TemplateLibrary:
    library = TemplateLibrary(folder)
    library.create(
        Prompt(
            "Translate",
            'Translate into {{language | select:options=["French","German"]}}: {{text | textarea:required}}',
            description="Into another language",
            tags=("language",),
        )
    )
    library.create(Prompt("Code review", "Review this code:\n{{code | textarea:required}}", tags=("dev",)))
    return library


def make_dialog() -> Dialog:
    center = Center()
    center.add_prompt(Prompt("Standup", "Yesterday {{done}}, today {{todo}}."))
    dialog = center.create_dialog()
    dialog.add_prompt(Prompt("Dialog note", "Remember {{fact}}"))
    return dialog


def host(library: TemplateLibrary, dialog: Dialog | None = None) -> TemplateHost:
    return TemplateHost(lambda: TemplateLibraryScreen(library, dialog, clock=fixed_clock))


def names(app: TemplateHost) -> list[str]:
    screen = app.screen
    assert isinstance(screen, TemplateLibraryScreen)
    return [entry.name for entry in screen.shown()]


def library_screen(app: TemplateHost) -> TemplateLibraryScreen:
    screen = app.screen
    assert isinstance(screen, TemplateLibraryScreen)
    return screen


async def test_lists_every_local_source_and_searches_fuzzily(tmp_path: Path) -> None:
    app = host(make_library(tmp_path), make_dialog())
    async with app.run_test(size=(80, 24)) as pilot:
        assert names(app) == ["Code review", "Dialog note", "Standup", "Translate"]
        assert [e.source for e in library_screen(app).shown()] == ["file", "dialog", "center", "file"]
        await pilot.press("slash", *"trl")
        assert names(app) == ["Translate"]
        await pilot.press("ctrl+a", "ctrl+k", *"dev")
        assert names(app) == ["Code review"]
        await pilot.press("ctrl+a", "ctrl+k", *"zzz")
        assert names(app) == []
        detail = str(library_screen(app).query_one("#detail-text", Static).render())
        assert detail == "No template matches 'zzz'."


async def test_picking_a_template_fills_sends_and_remembers(tmp_path: Path) -> None:
    library = make_library(tmp_path)
    app = host(library)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", *"transl", "enter")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, TemplateFormScreen) and form.template.name == "Translate"
        await pilot.press("enter", "down", "enter")  # the select: French
        await pilot.press("tab", *"bonjour")
        await pilot.press("ctrl+s")
        await pilot.pause()
    [result] = app.results
    assert isinstance(result, TemplateResult)
    assert (result.message.role, result.message.name, result.message.content, result.send) == (
        Role.PROMPT,
        "Translate",
        "Translate into French: bonjour",
        True,
    )
    assert TemplateLibrary(tmp_path).remembered("prompt:Translate") == {"language": "French", "text": "bonjour"}


async def test_remembered_values_come_back_next_time(tmp_path: Path) -> None:
    library = make_library(tmp_path)
    library.remember("prompt:Code review", {"code": "print(1)"})
    app = host(library)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # "Code review" is first
        await pilot.pause()
        form = app.screen
        assert isinstance(form, TemplateFormScreen)
        assert form.values() == {"code": "print(1)"}
        await pilot.press("escape")  # closing the form returns to the library, which stays open
        await pilot.pause()
        assert isinstance(app.screen, TemplateLibraryScreen)
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_creating_a_template_writes_a_file(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    app = host(library)
    async with app.run_test(size=(80, 24)) as pilot:
        assert "press n to write one" in str(library_screen(app).query_one("#detail-text", Static).render())
        await pilot.press("n")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, TemplateEditorScreen)
        await pilot.press(*"Haiku", "enter", *"Three lines", "enter", *"poetry, short", "enter")
        await pilot.press(*"Write a haiku about {{topic | text:required}}.")
        found = str(editor.query_one("#found", Static).render())
        assert found == "Fields: topic (text, required)"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TemplateLibraryScreen)
        assert names(app) == ["Haiku"]
    text = (tmp_path / "haiku.md").read_text(encoding="utf-8")
    assert text == (
        '+++\nname = "Haiku"\ndescription = "Three lines"\ntags = ["poetry", "short"]\n+++\n\n'
        "Write a haiku about {{topic | text:required}}.\n"
    )


async def test_a_refused_save_keeps_the_editor_and_the_text(tmp_path: Path) -> None:
    library = make_library(tmp_path)
    before = (tmp_path / "translate.md").read_text()
    app = host(library)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"Translate", "enter", "enter", "enter", *"my own text", "ctrl+s")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, TemplateEditorScreen)
        assert str(editor.query_one("#error", Static).render()) == "A template named 'Translate' already exists."
        assert editor.query_one("#content", TextArea).text == "my own text"
    assert (tmp_path / "translate.md").read_text() == before


async def test_the_editor_reports_placeholders_that_do_not_parse(tmp_path: Path) -> None:
    app = host(TemplateLibrary(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, TemplateEditorScreen)
        editor.query_one("#content", TextArea).text = "Pick {{x | select}} now"
        await pilot.pause()
        problems = str(editor.query_one("#problems", Static).render())
        assert problems == (
            "Not a placeholder, left as written — line 1: {{x | select}} — "
            'a select needs options, as in select:options=["a","b"]'
        )


async def test_escape_in_a_changed_editor_asks_before_discarding(tmp_path: Path) -> None:
    app = host(TemplateLibrary(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"Draft", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, TemplateEditorScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, TemplateLibraryScreen)
    assert list(tmp_path.glob("*.md")) == []


async def test_editing_rewrites_the_file(tmp_path: Path) -> None:
    library = make_library(tmp_path)
    app = host(library)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")  # "Code review"
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, TemplateEditorScreen)
        assert editor.query_one("#name", Input).value == "Code review"
        editor.query_one("#content", TextArea).text = "Review carefully:\n{{code | textarea:required}}"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TemplateLibraryScreen)
    assert (tmp_path / "code-review.md").read_text().endswith("\n\nReview carefully:\n{{code | textarea:required}}\n")


async def test_duplicate_and_delete(tmp_path: Path) -> None:
    library = make_library(tmp_path)
    app = host(library)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert names(app) == ["Code review", "Code review (copy)", "Translate"]
        assert library_screen(app).selected().name == "Code review (copy)"  # type: ignore[union-attr]
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert names(app) == ["Code review", "Translate"]
        status = str(library_screen(app).query_one("#status", Static).render())
        assert status == "Deleted 'Code review (copy)' (moved to .trash)."
    assert not (tmp_path / "code-review-copy.md").exists()
    assert [p.name.split(".")[0] for p in (tmp_path / ".trash").iterdir()] == ["code-review-copy"]


async def test_templates_that_are_not_files_cannot_be_edited_but_can_be_copied(tmp_path: Path) -> None:
    app = host(TemplateLibrary(tmp_path), make_dialog())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")  # "Dialog note"
        await pilot.pause()
        assert isinstance(app.screen, TemplateLibraryScreen)
        status = str(library_screen(app).query_one("#status", Static).render())
        assert status == (
            "'Dialog note' comes from this dialog, not from a file: press c to copy it into your "
            "library, then edit the copy."
        )
        await pilot.press("c")
        await pilot.pause()
    assert TemplateLibrary(tmp_path).file_prompts() == [Prompt("Dialog note (copy)", "Remember {{fact}}")]


async def test_unreadable_files_are_reported(tmp_path: Path) -> None:
    (tmp_path / "broken.md").write_text("+++\nname = \n+++\nx\n", encoding="utf-8")
    app = host(TemplateLibrary(tmp_path))
    async with app.run_test(size=(80, 24)):
        status = str(library_screen(app).query_one("#status", Static).render())
        assert status.startswith("1 template file could not be read and was skipped (fix, then ctrl+r): broken.md:")


class FakeServers:
    async def list_prompts(self, servers: list[MCPServer]) -> list[MCPPromptInfo]:
        return [
            MCPPromptInfo(s.name, "explain", "Explain a topic", (PromptArgument("topic", required=True),))
            for s in servers
        ]

    async def get_prompt(self, server: MCPServer, prompt_name: str, arguments: dict[str, str]) -> list[Message]:
        return [Message(Role.PROMPT, f"Explain {arguments['topic']}", name=f"{server.name}/{prompt_name}")]


async def test_mcp_prompts_of_the_dialogs_servers_are_listed_and_used(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path, mcp=FakeServers())
    dialog = Dialog()
    dialog.add_mcp(MCPServer("docs", command="x"))
    app = host(library, dialog)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert names(app) == ["docs/explain"]
        await pilot.press("e")
        await pilot.pause()
        assert "cannot be edited here" in str(library_screen(app).query_one("#status", Static).render())
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*"TOML", "ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
    [result] = app.results
    assert (result.message.content, result.message.name) == ("Explain TOML", "docs/explain")
    assert library.remembered("mcp:docs/explain") == {"topic": "TOML"}


async def test_escape_from_a_server_prompts_form_returns_to_the_dialog(tmp_path: Path) -> None:
    from visindigo.tui.templates.form import TemplateFormScreen
    from visindigo.tui.templates.library import TemplateLibraryScreen

    dialog = Dialog()
    dialog.add_mcp(MCPServer("docs", command="x"))
    app = host(TemplateLibrary(tmp_path, mcp=FakeServers()), dialog)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TemplateFormScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TemplateFormScreen | TemplateLibraryScreen)
    assert app.results == [None]


PAGE = b"""<!doctype html><html><head><title>Note</title></head>
<body><article><h1>Note</h1><p>The word of the day is <b>quince</b>.</p></article></body></html>"""


@pytest.fixture
def page_url() -> Iterator[str]:
    with serve_page(PAGE, "/note.html") as url:
        yield url


async def test_a_real_mcp_servers_prompt_is_listed_filled_and_rendered_by_the_server(
    tmp_path: Path, page_url: str
) -> None:
    """mcp-server-fetch over stdio, reached the way the app reaches it: through the Center's tool source."""
    manager = MCPManager(tmp_path / "logs", startup_timeout=20.0)
    center = Center()
    center.tool_source = manager
    center.add_mcp(
        MCPServer(
            "fetch",
            command=sys.executable,
            timeout=30.0,
            env=fetch_server_env(),
            args=("-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"),
        )
    )
    library = TemplateLibrary(tmp_path / "prompts")
    app = host(library, center.create_dialog())
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert names(app) == ["fetch/fetch"]
            await pilot.press("enter")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, TemplateFormScreen)
            [row] = form.rows()
            assert (row.spec.name, row.spec.required, isinstance(row.widget, Input)) == ("url", True, True)
            await pilot.press("ctrl+s")  # empty: refused before the server is asked
            await pilot.pause()
            assert app.screen is form and str(form.query_one("#error-0", Static).render()) == "url is required."
            form.row_for("url").widget.focus()
            await pilot.press(*page_url, "ctrl+o")
            await app.workers.wait_for_complete()
            await pilot.pause()
    finally:
        await manager.aclose()
    [result] = app.results
    assert result.send is False
    assert result.message.role is Role.PROMPT and result.message.name == "fetch/fetch"
    assert "quince" in result.message.content
    assert library.remembered("mcp:fetch/fetch") == {"url": page_url}


async def test_arrow_keys_move_from_the_search_box_to_the_list(tmp_path: Path) -> None:
    app = host(make_library(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = library_screen(app)
        await pilot.press("slash")
        assert app.focused is screen.query_one("#search", Input)
        await pilot.press("down")
        assert app.focused is screen.query_one("#list", OptionList)
        await pilot.press("down")
        assert screen.selected().name == "Translate"  # type: ignore[union-attr]
        await pilot.press("slash", "escape")
        assert app.focused is screen.query_one("#list", OptionList)


async def test_in_the_app_f6_fills_a_template_and_sends_it_then_edit_first_fills_the_composer(tmp_path: Path) -> None:
    """The whole way through the real app: f6, pick, fill, send; then again with the values remembered."""
    make_library(tmp_path)
    center = make_center([answer("Bonjour, in English: hello."), answer("Hello world.")])
    center.settings["prompt_dir"] = str(tmp_path)
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await pilot.press("f6")
        await pilot.pause(0.3)
        assert isinstance(app.screen, TemplateLibraryScreen)
        await pilot.press("slash", *"transl", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TemplateFormScreen)
        await pilot.press("enter", "down", "enter")  # the select: French
        await pilot.press("tab")
        await type_text(pilot, "bonjour")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen
        messages = screen.dialog.messages
        assert [(m.role, m.name, m.content) for m in messages[:1]] == [
            (Role.PROMPT, "Translate", "Translate into French: bonjour")
        ]
        assert [m.role for m in messages] == [Role.PROMPT, Role.ASSISTANT]
        assert messages[1].content == "Bonjour, in English: hello."

        await pilot.press("f6")
        await pilot.pause(0.3)
        await pilot.press("slash", *"transl", "enter")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, TemplateFormScreen)
        assert form.values() == {"language": "French", "text": "bonjour"}
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.screen is screen
        assert screen.composer.text == "Translate into French: bonjour"
        assert screen.dialog.message_count == 2
        await type_text(pilot, " le monde")
        await pilot.press("enter")
        await settle(pilot)
        edited = screen.dialog.message_at(2)
        assert (edited.role, edited.name, edited.content) == (
            Role.PROMPT,
            "Translate",
            "Translate into French: bonjour le monde",
        )


async def test_in_the_app_a_server_only_this_dialog_brings_still_offers_its_prompts(tmp_path: Path) -> None:
    """No MCP server in the config, so the app made no MCP manager at start; the dialog's own server's prompts
    are listed anyway, through the tool source made on first need (as the run loop does for its tools)."""
    center = make_center([])
    center.settings["prompt_dir"] = str(tmp_path)
    app = make_app(center=center)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            screen = main_screen(app)
            assert center.tool_source is None
            screen.dialog.add_mcp(
                MCPServer(
                    "fetch",
                    command=sys.executable,
                    args=("-m", "mcp_server_fetch"),
                    timeout=30.0,
                    env=fetch_server_env(),
                )
            )
            await pilot.press("f6")
            await pilot.pause(0.3)
            library = app.screen
            assert isinstance(library, TemplateLibraryScreen)
            for _ in range(300):
                if [entry.name for entry in library.shown()] == ["fetch/fetch"]:
                    break
                await pilot.pause(0.1)
            assert [entry.name for entry in library.shown()] == ["fetch/fetch"]
    finally:
        await center.aclose()
