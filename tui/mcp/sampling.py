"""A server asks to use the client's model (MCP sampling): shown in full before anything runs.

The user sees which server asks, every message it wants sent (and its system prompt), its model
preferences, the model and provider that would answer, and the token limit (with a warning when the server
asked for more than the client allows). Deny has the focus and Esc denies; "Allow for this server" stops
asking for the rest of the session.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from visindigo.engine.mcp.client_side import capped_tokens
from visindigo.engine.mcp.host import SamplingDecision, SamplingRequest
from visindigo.tui.common.modal import ModalFrame, clip, safe, sanitize

TEXT_LIMIT = 20_000


def preferences_text(request: SamplingRequest) -> str:
    parts = []
    if request.model_hints:
        parts.append("hints " + ", ".join(sanitize(h) for h in request.model_hints))
    for label, value in (
        ("cost", request.cost_priority),
        ("speed", request.speed_priority),
        ("intelligence", request.intelligence_priority),
    ):
        if value is not None:
            parts.append(f"{label} {value:g}")
    if request.temperature is not None:
        parts.append(f"temperature {request.temperature:g}")
    return " · ".join(parts) or "none"


def messages_text(request: SamplingRequest) -> str:
    lines = []
    if request.system_prompt:
        lines.append(f"[system] {request.system_prompt}")
    for message in request.messages:
        images = f" (+{len(message.images)} image(s))" if message.images else ""
        lines.append(f"[{message.role}] {message.text}{images}")
    return clip(sanitize("\n\n".join(lines)), TEXT_LIMIT)


class SamplingScreen(ModalFrame[SamplingDecision]):
    BINDINGS = [
        Binding("y", "answer('allow_once')", "Allow once"),
        Binding("a", "answer('allow_for_server')", "Allow for this server"),
        Binding("n,escape", "answer('deny')", "Deny"),
    ]

    DEFAULT_CSS = """
    SamplingScreen #messages {
        height: auto;
        max-height: 40vh;
        border: round $border-blurred;
        background: $background;
        padding: 0 1;
    }
    SamplingScreen #limit.-capped {
        color: $text-warning;
    }
    """

    def __init__(self, request: SamplingRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        limit, capped = capped_tokens(request)
        with Vertical(classes="frame") as frame:
            frame.border_title = f"{sanitize(request.server)} wants to use your model"
            frame.border_subtitle = "y once · a this server · n deny"
            model = f"{sanitize(request.model_id) or '?'} on {sanitize(request.provider_id) or 'the default provider'}"
            yield Static(Content(f"Model: {model}"), id="model")
            yield Static(Content(f"Server's preferences: {preferences_text(request)}"), id="preferences")
            note = f" (it asked for {request.max_tokens:,}; capped)" if capped else ""
            limit_line = Static(Content(f"Token limit: {limit:,}{note}"), id="limit")
            limit_line.set_class(capped, "-capped")
            yield limit_line
            yield Static(Content("Messages it wants sent:"), classes="hint")
            with VerticalScroll(id="messages"):
                yield Static(safe(messages_text(request)), id="messages-text")
            yield Static(Content("The answer goes back to the server; usage counts for this dialog."), classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Allow once", variant="primary", id="allow_once")
                yield Button("Allow for this server", variant="warning", id="allow_for_server")
                yield Button("Deny", variant="error", id="deny")

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(str(event.button.id))

    def action_answer(self, answer: str) -> None:
        self.dismiss(SamplingDecision(answer))
