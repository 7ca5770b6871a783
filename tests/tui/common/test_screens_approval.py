"""Tool approval and confirmation modals: safe defaults, every answer by key, untrusted text shown inertly."""

from __future__ import annotations

from textual.widgets import Button, Static

from tests.tui.screens_host import ScreenHost
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.tui.common.approval import ARGUMENTS_LIMIT, ApprovalScreen, format_arguments
from visindigo.tui.common.confirm import ConfirmScreen

REQUEST = ToolCallRequest(
    call_id="call_1",
    function_id="weather__get_weather",
    function_name="get_weather",
    arguments={"city": "Kyoto", "note": "[b]bold?[/b] [@click=app.quit]x[/] \x1b]2;PWNED\x07 \u202eevil"},
)


def approval_app(request: ToolCallRequest = REQUEST) -> ScreenHost:
    return ScreenHost(lambda: ApprovalScreen(request))


async def answer_with(*keys: str) -> Approval:
    app = approval_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
    assert len(app.results) == 1
    result = app.results[0]
    assert isinstance(result, Approval)
    return result


async def test_deny_has_the_focus_so_a_reflexive_enter_denies() -> None:
    app = approval_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.focused, Button) and app.focused.id == "deny"
    assert await answer_with("enter") is Approval.DENY


async def test_each_answer_has_a_key() -> None:
    assert await answer_with("y") is Approval.ALLOW_ONCE
    assert await answer_with("a") is Approval.ALLOW_FOR_DIALOG
    assert await answer_with("n") is Approval.DENY
    assert await answer_with("escape") is Approval.DENY


async def test_buttons_are_reachable_with_arrows_and_tab() -> None:
    assert await answer_with("left", "left", "enter") is Approval.ALLOW_ONCE
    assert await answer_with("left", "enter") is Approval.ALLOW_FOR_DIALOG
    # Deny is last: tab wraps to the scrollable arguments (so long ones can be read), then to "Allow once".
    app = approval_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("tab", "enter")
        assert app.focused is not None and app.focused.id == "arguments"
        assert app.results == []
    assert await answer_with("tab", "tab", "enter") is Approval.ALLOW_ONCE


async def test_arguments_are_pretty_printed_sanitized_and_never_markup() -> None:
    app = approval_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = str(app.screen.query_one("#arguments-text", Static).render())
        tool = str(app.screen.query_one("#tool", Static).render())
    assert '  "city": "Kyoto",' in shown  # indented JSON, one key per line
    assert "[b]bold?[/b] [@click=app.quit]x[/]" in shown  # literal, not styling or an action link
    assert "\x1b" not in shown and "\u202e" not in shown and "PWNED\x07" not in shown
    assert "get_weather" in tool and "weather__get_weather" in tool


def test_huge_arguments_are_clipped_with_a_note() -> None:
    text = format_arguments({"blob": "x" * (ARGUMENTS_LIMIT * 3)})
    assert len(text) < ARGUMENTS_LIMIT + 100
    assert "more characters not shown" in text
    assert format_arguments({}) == "(no arguments)"


async def test_a_hostile_tool_name_is_shown_literally() -> None:
    request = ToolCallRequest("c", "x__y", "[red]name[/red]\x1b[2J", {})
    app = approval_app(request)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        tool = str(app.screen.query_one("#tool", Static).render())
        await pilot.press("y")
    assert tool.startswith("[red]name[/red]")
    assert "\x1b" not in tool
    assert app.results == [Approval.ALLOW_ONCE]


# --- ConfirmScreen ------------------------------------------------------------------------------------------


async def confirm_with(*keys: str, default_confirm: bool = False) -> bool:
    app = ScreenHost(
        lambda: ConfirmScreen(
            "Delete dialog?",
            "Delete “[b]Trip[/b]”? Its branches stay.",
            "Delete",
            danger=True,
            default_confirm=default_confirm,
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
    assert len(app.results) == 1
    return bool(app.results[0])


async def test_confirm_defaults_to_cancel() -> None:
    assert await confirm_with("enter") is False
    assert await confirm_with("escape") is False
    assert await confirm_with("n") is False


async def test_confirm_by_key_or_by_moving_to_the_button() -> None:
    assert await confirm_with("y") is True
    assert await confirm_with("left", "enter") is True
    assert await confirm_with("enter", default_confirm=True) is True


async def test_confirm_body_is_plain_text() -> None:
    app = ScreenHost(lambda: ConfirmScreen("Open [link]?", "https://example.invalid/[i]x[/i]\x1b]8;;evil\x07"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        body = str(app.screen.query_one("#body", Static).render())
    assert body == "https://example.invalid/[i]x[/i]"
