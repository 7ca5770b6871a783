"""Asking the user before a tool runs: allow once, allow for this dialog, or deny."""

from __future__ import annotations

import json
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.tui.common.modal import ModalFrame, clip, safe, sanitize

ARGUMENTS_LIMIT = 20_000
"""Characters of arguments shown; a model can send megabytes, and the user only needs to judge them."""


def format_arguments(arguments: dict[str, Any]) -> str:
    """Arguments as indented JSON, sanitized and clipped, for a human to read before allowing a call."""
    if not arguments:
        return "(no arguments)"
    try:
        text = json.dumps(arguments, indent=2, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        text = repr(arguments)
    return clip(sanitize(text), ARGUMENTS_LIMIT)


class ApprovalScreen(ModalFrame[Approval]):
    """Shows which tool the model wants to run and with what, and returns the user's `Approval`.

    Deny has the focus and Esc denies: a reflexive Enter or an accidental key must never run a tool. Every
    field is shown as plain, sanitized text because all of it comes from the model or an MCP server.
    """

    BINDINGS = [
        Binding("y", "answer('allow_once')", "Allow once"),
        Binding("a", "answer('allow_for_dialog')", "Allow for this dialog"),
        Binding("n,escape", "answer('deny')", "Deny"),
        Binding("left", "app.focus_previous", "Previous", show=False),
        Binding("right", "app.focus_next", "Next", show=False),
    ]

    DEFAULT_CSS = """
    ApprovalScreen #tool {
        margin-top: 1;
        text-style: bold;
        color: $text-accent;
    }
    ApprovalScreen #arguments {
        height: auto;
        max-height: 40vh;
        border: round $border-blurred;
        background: $background;
        padding: 0 1;
    }
    ApprovalScreen #arguments:focus {
        border: round $border;
    }
    """

    def __init__(self, request: ToolCallRequest, *, title: str = "Allow this tool call?") -> None:
        super().__init__()
        self.request = request
        #: The frame's title; a comparison names the column that asks ("Column B: allow this tool call?").
        self.title_text = title

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(classes="frame") as frame:
            frame.border_title = self.title_text
            frame.border_subtitle = "y once · a this dialog · n deny"
            tool = Content.assemble(safe(request.function_name or request.function_id))
            if request.function_id and request.function_id != request.function_name:
                tool = Content.assemble(tool, ("  ", ""), (f"({sanitize(request.function_id)})", "dim"))
            yield Static(tool, id="tool")
            if request.hints:
                hints = " · ".join(sanitize(hint) for hint in request.hints)
                yield Static(Content(f"The server says this tool is: {hints} (hints, not guarantees)"), id="hints")
            yield Static(Content("Arguments:"), classes="hint")
            with VerticalScroll(id="arguments"):
                yield Static(safe(format_arguments(request.arguments)), id="arguments-text")
            yield Static(Content("If you deny, the model is told so and the tool does not run."), classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Allow once", variant="primary", id="allow_once")
                yield Button("Allow for this dialog", variant="warning", id="allow_for_dialog")
                yield Button("Deny", variant="error", id="deny")

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "deny")

    def action_answer(self, answer: str) -> None:
        self.dismiss(Approval(answer))


async def approve(app: App[Any], request: ToolCallRequest) -> Approval:
    """The engine's approval callback: a modal, inside the run's worker."""
    screen = ApprovalScreen(request)
    try:
        return await app.push_screen_wait(screen)
    except BaseException:
        if screen.is_attached and app.screen is screen:
            app.pop_screen()
        raise
