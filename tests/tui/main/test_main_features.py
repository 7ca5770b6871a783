"""Copy, safety of untrusted text, the reasoning drawer, tools, models, links, narrow terminals, the palette."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Collapsible, Markdown, Static

from tests.tui.helpers import (
    answer,
    main_screen,
    make_app,
    make_center,
    seeded_dialog,
    settle,
    type_text,
    wait_until,
)
from visindigo.engine import Capability, Center, Function, ModelInfo, Role
from visindigo.engine.approval import DENIED_RESULT
from visindigo.engine.providers import FinishPart, Pause, ReasoningPart, TextPart, ToolCallPart, scripted_provider
from visindigo.tui.common.approval import ApprovalScreen
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.main.screen import MainScreen
from visindigo.tui.setup.model_picker import ModelPickerScreen

CODE_ANSWER = "Two blocks:\n\n```python\nprint('one')\n```\n\nand\n\n```sh\necho two\n```\n"


async def _ask(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


# --- copy ----------------------------------------------------------------------------------------------------


async def test_copy_a_message_and_a_code_block_through_osc52(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app([answer(CODE_ANSWER)])
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask(pilot, "show code")
        await pilot.press("ctrl+o")  # cursor on the last message
        await pilot.press("y")
        assert app.clipboard == CODE_ANSWER
        await pilot.press("2")
        assert app.clipboard == "echo two\n"
        await pilot.press("1")
        assert app.clipboard == "print('one')\n"
        await pilot.press("3")  # there is no third block: nothing changes, the user is told
        assert app.clipboard == "print('one')\n"
        await pilot.press("up")
        await pilot.press("y")
        assert app.clipboard == "show code"
        await pilot.press("alt+y")
        assert app.clipboard == CODE_ANSWER
        # the fallback: the same text into a file, in the working folder
        await pilot.press("alt+s")
        saved = list(tmp_path.glob("visindigo-*.md"))
        assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == CODE_ANSWER
        await pilot.press("ctrl+o", "s")
        assert len(list(tmp_path.glob("visindigo-*.md"))) == 2


# --- untrusted text ---------------------------------------------------------------------------------------------

HOSTILE = "Title\x1b]2;PWNED\x07 red \x1b[31mALERT\x1b[0m \u202eevil\u202c [b]bold?[/b] [@click=app.quit]x[/] \x9b2J"


async def test_model_and_tool_text_is_stripped_of_control_sequences_and_never_read_as_markup() -> None:
    class Echo(Function):
        id = "echo"
        name = "echo"
        description = "echoes"
        parameter_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

        def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
            return {"said": HOSTILE}

    call = ToolCallPart("call_1", "echo", json.dumps({"text": HOSTILE}))
    turns = [
        [ReasoningPart(HOSTILE), TextPart("Let me \x1b]52;c;ZXZpbA==\x07check"), call, FinishPart("tool_calls")],
        [TextPart(HOSTILE), FinishPart("stop")],
    ]
    center = make_center(turns)
    center.add_function(Echo())
    app = make_app(center=center)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "user says [red]hi[/red] \x1b[2J")
        rendered: list[str] = []  # text as the model wrote it, decoded
        literal: list[str] = []  # JSON of tool calls and results, shown as JSON (escapes stay visible text)
        for view in screen.pane.views:
            rendered += [md.source for md in view.query(Markdown)]
            target = literal if view.message.role is Role.TOOL else rendered
            target += [str(static.content) for static in view.query(Static) if not static.has_class("calls")]
            literal += [str(static.content) for static in view.query(".calls")]
            literal += [str(block.title) for block in view.query(Collapsible)]
        rendered.append(screen.drawer.text)
        text = "\n".join(rendered + literal)
        for bad in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert bad not in text, repr(bad)
        for bad in ("PWNED", "ZXZpbA"):  # the payload of a removed sequence goes with it
            assert bad not in "\n".join(rendered), bad
        assert "[b]bold?[/b]" in text  # markup shown literally
        assert "user says [red]hi[/red]" in text
        assert app.is_running  # [@click=app.quit] did nothing


async def test_links_open_only_after_confirmation(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    app = make_app([answer("See [the docs](https://example.com/docs).")])
    monkeypatch.setattr(app, "open_url", lambda url, **kw: opened.append(url))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "link?")
        markdown = screen.pane.view_for(1).query_one(Markdown)  # type: ignore[union-attr]
        markdown.post_message(Markdown.LinkClicked(markdown, "https://example.com/docs"))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert opened == []
        markdown.post_message(Markdown.LinkClicked(markdown, "https://example.com/docs"))
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert opened == ["https://example.com/docs"]


# --- reasoning drawer --------------------------------------------------------------------------------------------


async def test_the_drawer_follows_the_stream_live_and_shows_old_messages_reasoning() -> None:
    turn = [ReasoningPart("step one; "), Pause(3.0), ReasoningPart("step two"), TextPart("done"), FinishPart("stop")]
    center = make_center([turn])
    old = seeded_dialog(center, [("old question", "old answer")])
    app = make_app(center=center)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(old)
        await pilot.pause()
        assert screen.drawer.display
        assert screen.drawer.text == "thinking about old question"
        await type_text(pilot, "new")
        await pilot.press("enter")
        await until(pilot, lambda: screen.drawer.source == "stream" and screen.drawer.text == "step one; ")
        assert screen.drawer.source == "stream"
        assert screen.drawer.text == "step one; "
        await settle(pilot)
        assert screen.drawer.text == "step one; step two"
        await pilot.press("ctrl+o")
        for _ in range(2):
            await pilot.press("up")
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        assert screen.drawer.text == "thinking about old question"


async def test_short_reasoning_reads_from_the_top_and_long_live_reasoning_follows_its_end() -> None:
    """Textual's anchor puts short content at the bottom of a view; the drawer must not (it read as blank)."""
    long_thought = "".join(f"line {n} of a long thought\n" for n in range(80))
    first_seen, second_seen = asyncio.Event(), asyncio.Event()  # each turn thinks until the test has looked
    turns = [
        [ReasoningPart("a short thought"), Pause(60.0, until=first_seen), TextPart("one"), FinishPart("stop")],
        [ReasoningPart(long_thought[:400]), Pause(0.3), ReasoningPart(long_thought[400:]),
         Pause(60.0, until=second_seen), TextPart("two"), FinishPart("stop")],
    ]  # fmt: skip
    app = make_app(turns)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "first")
        await pilot.press("enter")
        thinking = lambda: screen.drawer.source == "stream" and screen.drawer.text == "a short thought"  # noqa: E731
        assert await wait_until(pilot, thinking)
        scroll = screen.drawer.query_one("VerticalScroll")  # (the drawer mounts it after the first frame)
        text_widget = screen.drawer.query_one(".text")
        assert await wait_until(pilot, lambda: text_widget.region.height > 0)  # laid out
        await pilot.pause(0.1)  # one more frame for the layout
        assert screen.drawer.source == "stream" and screen.drawer.text == "a short thought"
        assert text_widget.region.y == scroll.region.y  # at the top, right under the title
        first_seen.set()
        await settle(pilot)
        assert text_widget.region.y == scroll.region.y
        await type_text(pilot, "second")
        await pilot.press("enter")
        following = lambda: (  # noqa: E731
            screen.drawer.source == "stream" and "line 79" in screen.drawer.text
            and scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y
        )  # fmt: skip
        assert await wait_until(pilot, following)  # following the end while it streams
        second_seen.set()
        await settle(pilot)


async def until(pilot: Any, condition: Any, timeout: float = 2.5) -> None:
    """Wait for `condition()` (inside the script's pause) instead of guessing how long the app takes on a loaded
    machine."""
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)


# --- tools -------------------------------------------------------------------------------------------------------


class Dangerous(Function):
    id = "wipe"
    name = "wipe"
    description = "wipes a folder"
    parameter_schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    requires_approval = True

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(arguments)
        return {"wiped": arguments.get("path")}


def _tool_turns(n: int) -> list[list[Any]]:
    turns: list[list[Any]] = []
    for i in range(n):
        turns.append([ToolCallPart(f"call_{i}", "wipe", '{"path": "/tmp/x"}'), FinishPart("tool_calls")])
        turns.append([TextPart(f"done {i}"), FinishPart("stop")])
    return turns


async def test_tool_calls_are_collapsible_blocks_and_ask_before_dangerous_tools() -> None:
    tool = Dangerous()
    center = make_center(_tool_turns(3))
    center.add_function(tool)
    app = make_app(center=center)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        # allow once
        await type_text(pilot, "wipe it")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ApprovalScreen)
        assert app.screen.request.function_id == "wipe"
        await pilot.press("y")
        await settle(pilot)
        assert tool.calls == [{"path": "/tmp/x"}]
        dialog = screen.dialog
        tool_index = next(i for i, m in enumerate(dialog.messages) if m.role is Role.TOOL)
        view = screen.pane.view_for(tool_index)
        assert view is not None
        block = view.query_one(Collapsible)
        assert block.collapsed
        assert "wipe" in str(block.title) and "/tmp/x" in str(block.title)
        assert not block.has_class("-error")
        screen.pane.focus()
        screen.pane.select_view(view)
        await pilot.press("enter")
        assert not block.collapsed
        # deny: the model is told, the tool does not run
        await pilot.press("ctrl+l")
        await type_text(pilot, "again")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("n")
        await settle(pilot)
        assert len(tool.calls) == 1
        results = [m for m in dialog.messages if m.role is Role.TOOL]
        assert results[-1].content == DENIED_RESULT
        denied_view = screen.pane.view_for(dialog.message_count - 2)  # the denied result, before the answer
        assert denied_view is not None and denied_view.query_one(Collapsible).has_class("-error")
        # allow for the dialog: no question the next time
        await type_text(pilot, "third")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("a")
        await settle(pilot)
        assert "wipe" in dialog.approved_function_ids
        assert len(tool.calls) == 2


# --- model switch -------------------------------------------------------------------------------------------------


async def test_switching_the_model_applies_to_the_dialog_and_is_recorded_on_each_message() -> None:
    models = [
        ModelInfo("small", name="Small", capabilities=Capability.TEXT),
        ModelInfo("large", name="Large", capabilities=Capability.TEXT | Capability.TOOLS | Capability.REASONING),
    ]
    center = Center()
    center.add_provider(scripted_provider([answer("from small"), answer("from large")], models=models))
    app = make_app(center=center)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "one")
        assert screen.dialog.message_at(1).meta["model_id"] == "small"
        assert "Small" in str(screen.status_line.content)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, ModelPickerScreen)
        app.screen.query_one("#filter").focus()
        await type_text(pilot, "large")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert screen.dialog.model_id == "large"
        status = str(screen.status_line.content)
        assert "Large" in status and "TFR" in status
        await pilot.press("ctrl+l")
        await _ask(pilot, "two")
        assert screen.dialog.message_at(3).meta["model_id"] == "large"
        assert screen.dialog.message_at(1).meta["model_id"] == "small"


# --- layout ----------------------------------------------------------------------------------------------------


async def test_narrow_terminals_hide_the_sidebar_and_drawer_and_open_them_on_demand() -> None:
    center = make_center([])
    seeded_dialog(center, [("q", "a")], title="Only dialog")
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        assert screen.has_class("-narrow")
        assert not screen.sidebar.display and not screen.drawer.display
        assert screen.pane.region.width >= 78
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert screen.sidebar.display and screen.sidebar.region.width >= 78
        assert screen.focused is screen.sidebar.dialog_tree
        await pilot.press("enter")  # opening a dialog closes the sidebar again
        await pilot.pause()
        assert not screen.sidebar.display
        assert screen.dialog.title == "Only dialog"
        await pilot.press("f9")
        await pilot.pause()
        assert screen.drawer.display and screen.drawer.region.width >= 78
        await pilot.press("f9")
        await pilot.pause()
        assert not screen.drawer.display
        await pilot.resize_terminal(130, 40)
        await pilot.pause()
        assert screen.has_class("-wide") and screen.sidebar.display and screen.drawer.display


# --- palette and help -----------------------------------------------------------------------------------------------


def test_every_key_of_the_main_screen_is_in_the_palette_and_every_palette_entry_has_a_key() -> None:
    from textual.binding import Binding

    in_palette = {action for action, _title, _help in MainScreen.PALETTE}
    bound = {binding.action for binding in Binding.make_bindings(MainScreen.BINDINGS)}
    assert bound <= in_palette, bound - in_palette
    assert in_palette <= bound, in_palette - bound  # so the key list (f1) shows each one with its key


async def test_the_palette_runs_a_command() -> None:
    app = make_app([answer("x")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        assert screen.sidebar.display
        await pilot.press("ctrl+p")
        await type_text(pilot, "toggle sidebar")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert not screen.sidebar.display


async def test_help_lists_the_keys_of_every_part() -> None:
    from visindigo.tui.common.help import HelpScreen

    app = make_app([])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        descriptions = app.screen.visible_descriptions
        for expected in (
            "Regenerate",
            "Copy message",
            "Send",
            "Delete dialog",
            "Previous alternative",
            "Command palette",
            "Save the last copy to a file",
        ):
            assert any(expected in d for d in descriptions), expected
        # the composer's own f6 / f7 (select line / all) never fire: the screen's f6 / f7 come first
        assert not any(d in ("Select line", "Select all") for d in descriptions)


async def test_function_keys_work_while_typing() -> None:
    """The composer (a TextArea) binds f6/f7 itself; the screen's function keys must win."""
    from visindigo.tui.main.rename import RenameScreen
    from visindigo.tui.templates.library import TemplateLibraryScreen

    app = make_app([answer("x")])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "hello")
        assert screen.focused is screen.composer.input
        await pilot.press("f6")
        await pilot.pause(0.3)
        assert isinstance(app.screen, TemplateLibraryScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f7")
        await pilot.pause()
        assert isinstance(app.screen, RenameScreen)
        await pilot.press("end")  # the old title is selected: typing would replace it
        await type_text(pilot, " renamed")
        await pilot.press("enter")
        await pilot.pause()
        assert screen.dialog.title == "hello renamed"
        node = screen.sidebar.dialog_tree.node_for(screen.dialog.id)
        assert node is not None and "hello renamed" in node.label.plain


async def test_a_failing_screen_is_reported_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    import visindigo.tui.setup.providers as providers_module

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("cannot build the providers screen")

    monkeypatch.setattr(providers_module, "ProvidersScreen", broken)
    app = make_app([])
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("f3")
        await pilot.pause(0.3)
        assert any("cannot build the providers screen" in n.message for n in app._notifications)
        assert app.is_running


async def test_alt_keys_from_a_real_terminal_are_not_typed_into_the_composer() -> None:
    """Over SSH alt+e arrives as ESC e, which Textual reports as key "alt+e" *with* the character "e": the
    composer would insert it unless the screen's binding comes first."""
    from textual import events

    app = make_app([answer("first answer")])
    async with app.run_test() as pilot:
        screen = main_screen(app)
        await _ask(pilot, "question")
        app.post_message(events.Key("alt+e", "e"))
        await pilot.pause()
        assert screen.composer.editing_index == 0
        assert screen.composer.text == "question"
        await pilot.press("escape")
        app.post_message(events.Key("alt+y", "y"))
        await pilot.pause()
        assert app.clipboard == "first answer"
        assert screen.composer.text == ""


async def test_stored_tool_errors_still_show_as_errors() -> None:
    from visindigo.engine import Message

    center = make_center([])
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "wipe it")
    calls = '[{"id":"c1","type":"function","function":{"name":"wipe","arguments":"{}"}}]'
    dialog.append_message(Message(Role.ASSISTANT, "", tool_calls=calls))
    dialog.append_message(Message(Role.TOOL, DENIED_RESULT, tool_call_id="c1", name="wipe"))
    dialog.append_message(Message(Role.TOOL, '{"error": "x", "detail": 1}', tool_call_id="c2", name="other"))
    app = make_app(center=center)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.pause()
        denied = screen.pane.view_for(2).query_one(Collapsible)  # type: ignore[union-attr]
        assert denied.has_class("-error") and "wipe" in str(denied.title)
        assert not screen.pane.view_for(3).query_one(Collapsible).has_class("-error")  # type: ignore[union-attr]


async def test_a_stored_tool_result_shows_its_duration_before_the_result() -> None:
    """Durations are kept in the tool message's meta (engine.run_loop), so a reopened dialog shows them too; they
    come before the result in the block's title, where a long result cannot push them off the edge."""
    from visindigo.engine import Message

    center = make_center([])
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "look it up")
    calls = '[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{}"}}]'
    dialog.append_message(Message(Role.ASSISTANT, "", tool_calls=calls))
    dialog.append_message(
        Message(
            Role.TOOL,
            '{"text": "' + "long " * 40 + '"}',
            tool_call_id="c1",
            name="lookup",
            meta={"duration": 1.25, "is_error": False},
        )
    )
    dialog.append_message(
        Message(Role.TOOL, "fine", tool_call_id="c2", name="other", meta={"duration": 0.042, "is_error": True})
    )
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.pause()
        first = screen.pane.view_for(2).query_one(Collapsible)  # type: ignore[union-attr]
        title = str(first.title)
        assert "lookup()  1.2 s  → " in title
        assert title.index("1.2 s") < title.index("long")
        second = screen.pane.view_for(3).query_one(Collapsible)  # type: ignore[union-attr]
        assert "42 ms  ✗ fine" in str(second.title) and second.has_class("-error")  # the stored flag counts


async def test_live_tool_blocks_show_the_duration_and_a_reused_call_id_gets_its_own_block() -> None:
    class Slow(Function):
        id = "nap"
        name = "nap"
        description = "sleeps"
        parameter_schema = {"type": "object", "properties": {}}

        def invoke(self, arguments: dict[str, Any]) -> str:
            import time

            time.sleep(0.3)
            return "rested"

    turns = [  # some servers number calls per answer: "c1" again in the second round
        [ToolCallPart("c1", "nap", "{}"), FinishPart("tool_calls")],
        [ToolCallPart("c1", "nap", "{}"), FinishPart("tool_calls")],
        [TextPart("done"), FinishPart("stop")],
    ]
    center = make_center(turns)
    center.add_function(Slow())
    app = make_app(center=center)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "nap twice")
        blocks = [view.query_one(Collapsible) for view in screen.pane.views if view.message.role is Role.TOOL]
        assert len(blocks) == 2
        for block in blocks:
            title = str(block.title)
            assert "→ rested" in title and "running" not in title
            took = re.search(r"(\d+(?:\.\d+)?) (ms|s)\b", title)  # "300 ms", or "1.2 s" on a loaded machine
            assert took is not None, title
            milliseconds = float(took[1]) * (1 if took[2] == "ms" else 1000)
            assert 250 <= milliseconds < 5000


async def test_a_tool_block_is_mounted_once_even_when_the_dialog_is_shown_while_it_runs() -> None:
    """`show` mounts running calls from the run's state; the ToolStarted message that follows must not add a
    second block (the approval snapshot once showed two)."""
    app = make_app([])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await screen.pane.tool_started("call_1", "wipe", {"path": "x"})
        await screen.pane.tool_started("call_1", "wipe", {"path": "x"})
        await pilot.pause()
        assert [view.call_id for view in screen.pane.views] == ["call_1"]


@pytest.mark.parametrize(
    ("reason", "mark"),
    [
        ("length", "cut short: output limit reached"),
        ("max_tokens", "cut short: output limit reached"),
        ("model_context_window_exceeded", "cut short: context window full"),  # issue 25 item 3, as the engine reads it
        ("content_filter", "stopped by a content filter"),
        ("refusal", "stopped: the model refused"),
    ],
)
async def test_an_answer_the_provider_cut_short_is_marked(reason: str, mark: str) -> None:
    app = make_app([[TextPart("The first half of"), FinishPart(reason)], answer("a whole answer")])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "long please")
        view = screen.pane.view_for(1)
        assert view is not None and view.has_class("-cut-short")
        assert mark in str(view.query_one(".status", Static).content)
        await pilot.press("ctrl+l")
        await _ask(pilot, "short please")
        whole = screen.pane.view_for(3)
        assert whole is not None and not whole.has_class("-cut-short")
        assert str(whole.query_one(".status", Static).content) == ""
        await screen.open_dialog(screen.dialog)  # as stored: the mark comes from the message's meta
        await pilot.pause()
        assert mark in str(screen.pane.view_for(1).query_one(".status", Static).content)  # type: ignore[union-attr]
