"""A server asks the user for input in the middle of a tool call (MCP elicitation).

Form mode: the requested schema becomes the template form's rows (same widgets, same checks), with Accept /
Decline / Cancel; an answer the server's schema refused comes back with the reason above the form and the
fields filled as they were. URL mode: the page is shown as a link to open (and copied with OSC 52, since over
SSH the browser is on another machine); Accept only says the user agrees to go there. When a tool call was
refused until the page is visited (error -32042), the screen says so and Accept becomes "Done — retry": the
call is made again. Nothing is ever answered without the user: Esc is Cancel, and the focus starts on the
first field (or on Decline for a URL).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Static

from visindigo.engine.mcp.elicitation import check_value, form_content, form_texts, schema_fields
from visindigo.engine.mcp.host import ElicitationAnswer, ElicitationRequest
from visindigo.tui.common.fields import FieldRow
from visindigo.tui.common.modal import ModalFrame, safe, sanitize


class ElicitationScreen(ModalFrame[ElicitationAnswer]):
    """Returns the user's `ElicitationAnswer` (accept with content, decline, or cancel)."""

    BINDINGS = [
        Binding("ctrl+s", "accept", "Accept", priority=True),
        Binding("escape", "answer('cancel')", "Cancel"),
    ]

    DEFAULT_CSS = """
    ElicitationScreen #fields {
        height: auto;
        max-height: 60vh;
    }
    ElicitationScreen #url {
        color: $text-accent;
        text-style: underline;
        margin: 1 0;
    }
    ElicitationScreen #message {
        margin: 1 0;
    }
    """

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__()
        self.request = request
        self.fields = schema_fields(request.schema) if request.mode == "form" else []
        #: The refused answer's values, shown again in their fields.
        self.refused = form_texts(request.schema, request.refused) if request.refused else {}

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(classes="frame") as frame:
            retry = request.mode == "url" and bool(request.required_by)
            if retry:
                frame.border_title = f"{sanitize(request.server)} needs you to open a page"
                frame.border_subtitle = "ctrl+s done — retry · esc cancel"
            else:
                frame.border_title = f"{sanitize(request.server)} asks"
                frame.border_subtitle = "ctrl+s accept · esc cancel"
            yield Static(safe(request.message), id="message")
            if request.mode == "url":
                if retry:
                    yield Static(
                        Content(f"The tool {sanitize(request.required_by)} runs only after you finish on this page "
                                "(the link is copied to your clipboard):"),
                        classes="hint",
                    )
                else:
                    yield Static(
                        Content("It wants you to open this page (copied to your clipboard):"), classes="hint"
                    )
                yield Static(safe(request.url), id="url")
                yield Static(
                    Content(
                        "Open it only if you trust the page. Press Done — retry when you have finished there, and "
                        "the call is made again."
                        if retry
                        else "Accept only if you trust the page; nothing is sent to the server but your choice."
                    ),
                    classes="hint",
                )
            else:
                if request.problem:
                    yield Static(
                        Content(f"Not sent: {sanitize(request.problem)} — correct it and accept again."),
                        id="refused",
                        classes="error",
                    )
                with VerticalScroll(id="fields"):
                    for index, spec in enumerate(self.fields):
                        yield FieldRow(spec, index, spec.initial_value(self.refused))
                yield Static("", id="form-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Done — retry" if retry else "Accept", variant="primary", id="accept")
                yield Button("Decline", variant="warning", id="decline")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        if self.request.mode == "url":
            self.query_one("#decline", Button).focus()
            copy = getattr(self.app, "copy_to_clipboard", None)
            if callable(copy):
                copy(self.request.url)
        elif self.fields:
            self.query_one(FieldRow).widget.focus()

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "accept":
            self.action_accept()
        else:
            self.action_answer(str(event.button.id))

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    def action_answer(self, action: str) -> None:
        self.dismiss(ElicitationAnswer("decline" if action == "decline" else "cancel"))

    def problems(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for row in self.query(FieldRow):
            value = row.value()
            problem = row.spec.check(value) or check_value(self.request.schema, row.spec.name, value.strip())
            row.show_error(problem)
            if problem:
                found[row.spec.name] = problem
        return found

    def action_accept(self) -> None:
        if self.request.mode == "url":
            self.dismiss(ElicitationAnswer("accept"))
            return
        problems = self.problems()
        if problems:
            self.query_one("#form-error", Static).update(Content(f"{len(problems)} field(s) need attention."))
            return
        values = {row.spec.name: row.value() for row in self.query(FieldRow)}
        self.dismiss(ElicitationAnswer("accept", form_content(self.request.schema, values)))
