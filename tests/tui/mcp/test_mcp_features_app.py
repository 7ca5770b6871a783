"""Elicitation, sampling and progress through the app with Pilot, against the SDK-built features server."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from tests.engine.mcp.helpers import until
from tests.engine.mcp.test_protocol_features import FEATURES
from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text
from visindigo.engine import MCPServer, Role
from visindigo.engine.providers import FinishPart, ToolCallPart
from visindigo.tui.mcp.elicitation import ElicitationScreen
from visindigo.tui.mcp.sampling import SamplingScreen


def features_server(**settings: Any) -> MCPServer:
    settings.setdefault("approval", "allow")
    return MCPServer("f", command=sys.executable, args=(str(FEATURES),), timeout=30.0, **settings)


def tool_turn(name: str, arguments: str = "{}") -> list[Any]:
    return [ToolCallPart("c1", name, arguments), FinishPart("tool_calls")]


async def wait_for_screen(pilot: Pilot[Any], kind: type) -> Any:
    for _ in range(600):
        if isinstance(pilot.app.screen, kind):
            await pilot.pause()
            return pilot.app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"no {kind.__name__} appeared; the screen is {pilot.app.screen!r}")


def tool_result(app: Any) -> Any:
    [message] = [m for m in main_screen(app).dialog.messages if m.role is Role.TOOL]
    return json.loads(message.content)


async def test_an_elicitation_form_is_filled_and_accepted() -> None:
    center = make_center([tool_turn("f__ask"), answer("thanks")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        await main_screen(app).send("who am I?")
        screen = await wait_for_screen(pilot, ElicitationScreen)
        assert [f.name for f in screen.fields] == ["name", "age", "subscribe", "colour"]
        await pilot.press("ctrl+s")  # required fields empty: the form stays, saying so
        await pilot.pause()
        assert app.screen is screen and "need attention" in str(screen.query_one("#form-error").render())
        await type_text(pilot, "Ann")
        screen.query_one("#input-1", Input).value = "41"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert tool_result(app) == {"content": "hello Ann, 41, subscribe=False, blue"}
        assert main_screen(app).dialog.last_message.content == "thanks"


async def test_escape_cancels_an_elicitation_and_the_dialog_goes_on() -> None:
    center = make_center([tool_turn("f__ask"), answer("ok")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        await main_screen(app).send("who am I?")
        await wait_for_screen(pilot, ElicitationScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert tool_result(app) == {"content": "no answer: cancel"}
        assert app.screen is main_screen(app)


async def test_sampling_is_shown_and_runs_only_when_allowed() -> None:
    center = make_center([tool_turn("f__summarise", '{"text": "a long story"}'), answer("A story."), answer("done")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        await main_screen(app).send("summarise")
        screen = await wait_for_screen(pilot, SamplingScreen)
        shown = str(screen.query_one("#messages-text").render())
        assert "Summarise: a long story" in shown and "Be brief." in shown
        assert "100" in str(screen.query_one("#limit").render())
        assert app.focused is not None and app.focused.id == "deny"
        await pilot.press("y")
        await settle(pilot)
        assert tool_result(app)["content"].endswith("A story.")
        assert main_screen(app).dialog.last_message.content == "done"


async def test_denied_sampling_tells_the_server() -> None:
    center = make_center([tool_turn("f__summarise", '{"text": "x"}'), answer("understood")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        await main_screen(app).send("summarise")
        await wait_for_screen(pilot, SamplingScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert "declined" in tool_result(app)["error"]
        assert main_screen(app).dialog.last_message.content == "understood"


async def test_the_resource_picker_attaches_a_resource_and_a_template_to_the_next_message() -> None:
    from visindigo.tui.mcp.resource_picker import ResourcePickerScreen

    center = make_center([answer("read it")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = main_screen(app)
        screen.composer.input.focus()
        await pilot.press("@")  # at the start of a word: the picker opens
        picker = await wait_for_screen(pilot, ResourcePickerScreen)
        await until(lambda: picker.resources)
        labels = [r.uri for r in picker.resources]
        assert labels == ["note://hello", "note://live", "pic://dot", "note://{name}"]
        await pilot.pause()
        await pilot.press("enter")  # the first: note://hello
        await until(lambda: screen.pending_resources.get(screen.dialog.id))
        assert screen.composer.text == ""  # the @ that opened the picker is gone
        screen.action_attach_resource()  # the palette's entry does the same
        picker = await wait_for_screen(pilot, ResourcePickerScreen)
        await until(lambda: picker.resources)
        for _ in range(3):
            await pilot.press("down")
        await pilot.press("enter")  # the template note://{name}
        await pilot.pause()
        await type_text(pilot, "al")
        await until(lambda: picker.suggestions)
        assert picker.suggestions == ["alice", "albert"]
        await type_text(pilot, "ice")
        await pilot.press("enter")
        await until(lambda: len(screen.pending_resources.get(screen.dialog.id, [])) == 2)
        await screen.send("what do they say?")
        await settle(pilot)
        [user] = [m for m in screen.dialog.messages if m.role is Role.USER]
        assert "Hello from a resource" in user.content and "note alice" in user.content
        assert user.content.endswith("what do they say?")
        assert [r["uri"] for r in user.meta["resources"]] == ["note://hello", "note://alice"]
        assert screen.pending_resources.get(screen.dialog.id) is None


async def test_the_mcp_screen_lists_each_tool_with_its_annotations() -> None:
    from textual.widgets import Static

    from visindigo.engine.mcp import MCPManager, ServerState
    from visindigo.tui.mcp.servers import MCPServersScreen

    center = make_center([])
    center.add_mcp(features_server(start_on_launch=True, approval="read_only"))
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        manager = center.tool_source
        assert isinstance(manager, MCPManager)
        await until(lambda: manager.status("f").state is ServerState.RUNNING)
        await pilot.press("f4")
        screen = await wait_for_screen(pilot, MCPServersScreen)
        await pilot.pause()
        detail = str(screen.query_one("#detail", Static).render())
        assert "read-only tools run without asking; others ask" in detail
        assert "peek — Peek at things [read-only · closed world]" in detail
        assert "wipe [destructive · open world]" in detail
        assert "not offered (they run only as protocol tasks): task_only" in detail
        assert "4 resources and templates" in detail and "has instructions for the model" in detail


async def test_a_server_prompts_form_completes_its_arguments() -> None:
    from visindigo.tui.templates.form import TemplateFormScreen
    from visindigo.tui.templates.library import TemplateLibraryScreen

    center = make_center([answer("hello alice")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f6")
        library = await wait_for_screen(pilot, TemplateLibraryScreen)
        await until(lambda: any(entry.name == "f/greet" for entry in library.shown()))
        await type_text(pilot, "greet")  # the search box: only the server prompt is left
        await pilot.pause()
        assert [entry.name for entry in library.shown()] == ["f/greet"]
        await pilot.press("enter")
        form = await wait_for_screen(pilot, TemplateFormScreen)
        await type_text(pilot, "al")
        field = form.rows()[0].widget
        assert isinstance(field, Input)
        await until(lambda: field._suggestion)
        assert field._suggestion == "alice"
        await pilot.press("right")  # accepts the suggestion
        assert field.value == "alice"


async def test_signing_in_from_the_mcp_screen_shows_the_page_and_closes_when_the_browser_returns(
    tmp_path: Any,
) -> None:

    import httpx

    from tests.engine.mcp.helpers import ServerProcesses
    from tests.engine.mcp.test_oauth import OAUTH_SERVER
    from visindigo.engine.mcp import MCPManager, ServerState
    from visindigo.engine.paths import Paths
    from visindigo.tui.mcp.servers import MCPServersScreen
    from visindigo.tui.mcp.sign_in_page import SignInScreen

    processes = ServerProcesses(tmp_path)
    port = processes.start(OAUTH_SERVER, "{port}")
    try:
        center = make_center([])
        center.paths = Paths(config_file=tmp_path / "config.toml", data_dir=tmp_path / "data")
        center.add_mcp(MCPServer("vault", url=f"http://127.0.0.1:{port}/mcp", transport="http", timeout=20))
        app = make_app(center=center)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("f4")
            await wait_for_screen(pilot, MCPServersScreen)
            await pilot.press("o")
            sign_in = await wait_for_screen(pilot, SignInScreen)
            assert sign_in.url.startswith(f"http://127.0.0.1:{port}/authorize?") and "code_challenge=" in sign_in.url
            async with httpx.AsyncClient(follow_redirects=True) as browser:  # the user's browser
                await browser.get(sign_in.url)
            await wait_for_screen(pilot, MCPServersScreen)  # it closed by itself
            manager = center.tool_source
            assert isinstance(manager, MCPManager)
            await until(lambda: manager.status("vault").state is ServerState.RUNNING)
            assert manager.status("vault").state is ServerState.RUNNING
    finally:
        processes.stop_all()


async def test_an_attached_resource_that_changes_is_refreshed_before_it_is_sent() -> None:
    from visindigo.engine.mcp import MCPManager
    from visindigo.tui.mcp.resource_picker import ResourcePickerScreen

    center = make_center([answer("seen")])
    server = features_server()
    center.add_mcp(server)
    app = make_app(center=center)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = main_screen(app)
        screen.action_attach_resource()
        picker = await wait_for_screen(pilot, ResourcePickerScreen)
        await until(lambda: picker.resources)
        await pilot.press("down", "enter")  # note://live
        await until(lambda: screen.pending_resources.get(screen.dialog.id))
        await pilot.pause(0.5)  # the subscription is made after the read
        manager = center.tool_source
        assert isinstance(manager, MCPManager)
        functions = {f.id: f for f in await manager.functions_for([server])}
        await functions["f__touch"].invoke_async({"text": "version 2"})
        for _ in range(200):
            pending = screen.pending_resources.get(screen.dialog.id, [])
            if pending and "version 2" in pending[0].context_text():
                break
            await asyncio.sleep(0.05)
        await screen.send("and now?")
        await settle(pilot)
        [user] = [m for m in screen.dialog.messages if m.role is Role.USER]
        assert "version 2" in user.content and "version 1" not in user.content
