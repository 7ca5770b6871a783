"""The template form: a modal generated from a template's fields, with a live preview of the message.

Open it with `TemplateFormScreen(template, remembered_values)` where `template` is a `Prompt` or an
`MCPPromptTemplate`. It dismisses with a `TemplateResult` (or None when cancelled):

- ctrl+s  send: the caller appends `result.messages` to the dialog and runs it;
- ctrl+o  edit first: the caller puts `result.message.content` in the composer (appending any earlier
  `result.messages`, which only a few-shot MCP prompt has);
- esc     cancel.

Required fields are checked before anything is dismissed; each problem shows under its field and the first
one gets the focus. An optional field left empty keeps its `{{placeholder}}` in the message (the spec's rule):
the preview shows it highlighted and the line under the preview names it. A local template renders on every
key press; a server prompt is rendered by its server, on ctrl+r (preview) or when sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Select, Static, TextArea

from visindigo.engine import Message, Prompt
from visindigo.engine.templates import Clock, TemplateField, UserContext
from visindigo.engine.templates.mcp import MCPPromptTemplate
from visindigo.tui.common.fields import FieldRow
from visindigo.tui.common.modal import ModalFrame
from visindigo.tui.common.sanitize import clean
from visindigo.tui.templates.preview import PREVIEW_LIMIT, joined, local_preview, unfilled_note

FormTemplate: TypeAlias = Prompt | MCPPromptTemplate

#: Terminal width from which the preview goes beside the fields instead of below them.
WIDE_WIDTH = 110


@dataclass(frozen=True)
class TemplateResult:
    """What the form produced: the message(s) to add, whether to send now, and the values to remember."""

    message: Message
    send: bool
    values: dict[str, str] = field(default_factory=dict)
    #: Every message to add, in order, ending with `message`; more than one only for few-shot MCP prompts.
    messages: tuple[Message, ...] = ()
    template_name: str = ""

    def __post_init__(self) -> None:
        if not self.messages:
            object.__setattr__(self, "messages", (self.message,))


class TemplateFormScreen(ModalFrame[TemplateResult | None]):
    """Fill a template's fields, watch the message take shape, then send it or take it to the composer."""

    BINDINGS = [
        Binding("ctrl+s", "submit(True)", "Send", priority=True),
        Binding("ctrl+o", "submit(False)", "Edit first", priority=True),
        Binding("ctrl+r", "preview", "Preview", priority=True, show=False),
        Binding("escape", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    TemplateFormScreen > #frame {
        width: 100;
        height: 100%;
        max-height: 40;
    }
    TemplateFormScreen #about {
        color: $text-muted;
        height: auto;
        max-height: 3;
    }
    TemplateFormScreen #main {
        height: 1fr;
    }
    TemplateFormScreen #fields {
        height: 1fr;
        min-height: 4;
        scrollbar-size-vertical: 1;
    }
    TemplateFormScreen #preview-box {
        height: 40%;
        min-height: 5;
        border-top: solid $primary-muted;
        border-title-color: $text-muted;
        scrollbar-size-vertical: 1;
    }
    /* From WIDE_WIDTH columns up, the preview sits beside the fields, so both are visible in full. */
    TemplateFormScreen.-wide > #frame {
        width: 150;
    }
    TemplateFormScreen.-wide #main {
        layout: horizontal;
    }
    TemplateFormScreen.-wide #fields {
        width: 1fr;
        height: 100%;
        padding-right: 1;
    }
    TemplateFormScreen.-wide #preview-box {
        width: 1fr;
        height: 100%;
        border: solid $primary-muted;  /* a whole box: its right edge is not the frame's */
        padding: 0 1;
    }
    TemplateFormScreen #unfilled {
        color: $text-warning;
        height: auto;
    }
    TemplateFormScreen #form-error {
        color: $text-error;
        height: auto;
        display: none;
    }
    TemplateFormScreen #form-error.-visible {
        display: block;
    }
    TemplateFormScreen #buttons {
        height: 1;
        align-horizontal: right;
    }
    TemplateFormScreen #buttons Button {
        margin-left: 1;
    }
    """

    def __init__(
        self,
        template: FormTemplate,
        remembered_values: Mapping[str, str] | None = None,
        *,
        clock: Clock | None = None,
        user: UserContext | None = None,
    ) -> None:
        super().__init__()
        self.template = template
        self.remembered = dict(remembered_values or {})
        self.clock = clock
        #: USER_NAME, USER_LANGUAGE, USER_LOCATION and CLIPBOARD; None: from the config, read at mount.
        self.user = user
        self.fields: list[TemplateField] = template.fields()
        self._submitting = False
        self._server_preview: tuple[dict[str, str], list[Message]] | None = None

    # --- layout ------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="frame", classes="frame") as frame:
            frame.border_title = Content(clean(self.template.name))
            frame.border_subtitle = "ctrl+s send · ctrl+o edit first · esc cancel"
            if self.template.description:
                yield Static(Content(clean(self.template.description)), id="about")
            with Container(id="main"):
                with VerticalScroll(id="fields"):
                    for index, spec in enumerate(self.fields):
                        yield FieldRow(spec, index, spec.initial_value(self.remembered))
                    if not self.fields:
                        yield Static("This template has no fields: the preview is the whole message.", id="empty")
                with VerticalScroll(id="preview-box") as preview_box:
                    preview_box.border_title = "Preview"
                    yield Static("", id="preview")
                    yield Static("", id="unfilled")
            yield Static("", id="form-error")
            with Horizontal(id="buttons"):
                yield Button("Send", id="send", variant="primary", compact=True)
                yield Button("Edit first", id="edit", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE_WIDTH, "-wide")

    def on_mount(self) -> None:
        self.set_class(self.size.width >= WIDE_WIDTH, "-wide")
        self._offer_completions()
        if self.user is None:
            self.user = self._user_context()
        self._refresh_preview()
        if self.fields:
            self.rows()[0].widget.focus()
        else:
            self.query_one("#send", Button).focus()

    def _offer_completions(self) -> None:
        """A server prompt's text fields get the server's `completion/complete` suggestions (→ accepts)."""
        template = self.template
        source = getattr(template, "source", None)
        info = getattr(template, "info", None)
        if info is None or not hasattr(source, "complete"):
            return
        from visindigo.tui.common.fields import ServerSuggester

        for row in self.rows():
            if isinstance(row.widget, Input):
                row.widget.suggester = ServerSuggester(
                    source, getattr(template, "server", None), "prompt", info.name, row.spec.name, self.values
                )

    def _user_context(self) -> UserContext:
        """The user's facts from `[user]` in the config and the environment; the clipboard is read only when
        the template uses it (a subprocess), once, so the preview does not run it on every key press."""
        center = getattr(self.app, "center", None)
        config = getattr(center, "config", None)
        user = UserContext.from_environment(config.user if config is not None else None)
        if isinstance(self.template, Prompt) and "CLIPBOARD" in self.template.variables():
            from visindigo.tui.common.copying import read_clipboard

            text, problem = read_clipboard()
            user = user.with_clipboard(text, problem)
        return user

    # --- reading the form ----------------------------------------------------------------------------------

    def rows(self) -> list[FieldRow]:
        return list(self.query(FieldRow))

    def row_for(self, name: str) -> FieldRow:
        """The row of the field called `name` (tests and the host app use this to reach a widget)."""
        for row in self.rows():
            if row.spec.name == name:
                return row
        raise KeyError(name)

    def values(self) -> dict[str, str]:
        """Every field's current value, as typed (what the library remembers)."""
        return {row.spec.name: row.value() for row in self.rows()}

    def render_values(self) -> dict[str, str]:
        """The values the template is rendered with: an empty optional field is left out, so its
        placeholder stays as written — unless the field has a default, in which case clearing it means "".
        """
        chosen: dict[str, str] = {}
        for row in self.rows():
            spec, value = row.spec, row.value()
            if spec.type == "checkbox" or value.strip() or spec.default is not None:
                chosen[spec.name] = value
        return chosen

    def problems(self) -> dict[str, str]:
        """Field name -> why its value will not do."""
        found: dict[str, str] = {}
        for row in self.rows():
            problem = row.spec.check(row.value())
            if problem is not None:
                found[row.spec.name] = problem
        return found

    # --- live preview ----------------------------------------------------------------------------------------

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _changed(self, event: Input.Changed | TextArea.Changed | Select.Changed | Checkbox.Changed) -> None:
        row = next((a for a in event.control.ancestors if isinstance(a, FieldRow)), None)
        if row is not None and row.has_class("-has-error"):
            row.show_error(row.spec.check(row.value()))
        if self.query_one("#form-error", Static).has_class("-visible"):
            self._show_problems(self.problems())  # the summary follows the fields, so it never lists a fixed one
        self._refresh_preview()

    @on(Input.Blurred)
    def _blurred(self, event: Input.Blurred) -> None:
        row = next((a for a in event.control.ancestors if isinstance(a, FieldRow)), None)
        if row is not None:
            row.show_error(row.spec.check(row.value()))

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        """Enter in a one-line field moves on, as in any form; ctrl+s sends."""
        event.stop()
        self.focus_next()

    def _refresh_preview(self) -> None:
        preview = self.query_one("#preview", Static)
        note = self.query_one("#unfilled", Static)
        template = self.template
        if isinstance(template, MCPPromptTemplate):
            self._show_server_preview(preview, note)
            return
        values = self.render_values()
        preview.update(local_preview(template, values, clock=self.clock, user=self.user))
        required = {spec.name for spec in self.fields if spec.required}
        note.update(Content(unfilled_note(template, values, required, self.user)))

    def _show_server_preview(self, preview: Static, note: Static) -> None:
        assert isinstance(self.template, MCPPromptTemplate)
        values = self.values()
        cached = self._server_preview
        if cached is not None and cached[0] == values:
            preview.update(Content(clean(joined(cached[1]))[:PREVIEW_LIMIT]))
            note.update("")
            return
        server = self.template.server.name
        preview.update(Content(f"The server {server!r} writes this message. Press ctrl+r to see it now."))
        missing = self.template.missing(values)
        note.update(Content("Required before asking the server: " + ", ".join(missing)) if missing else "")

    def action_preview(self) -> None:
        if isinstance(self.template, MCPPromptTemplate):
            self.run_worker(self._ask_server(None), exclusive=True, group="server", exit_on_error=False)

    # --- submitting ---------------------------------------------------------------------------------------------

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self.action_submit(event.button.id == "send")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_submit(self, send: bool) -> None:
        if self._submitting:
            return
        problems = self.problems()
        for row in self.rows():
            row.show_error(problems.get(row.spec.name))
        self._show_problems(problems)
        if problems:
            first = self.row_for(next(iter(problems)))
            first.widget.focus()
            first.scroll_visible()
            return
        template = self.template
        if isinstance(template, MCPPromptTemplate):
            self.run_worker(self._ask_server(send), exclusive=True, group="server", exit_on_error=False)
            return
        message = template.render(self.render_values(), clock=self.clock, user=self.user)
        self.dismiss(TemplateResult(message, send, self.values(), template_name=template.name))

    async def _ask_server(self, send: bool | None) -> None:
        """Render a server prompt: for the preview (`send` None) or to dismiss with the result."""
        assert isinstance(self.template, MCPPromptTemplate)
        values = self.values()
        cached = self._server_preview
        if cached is not None and cached[0] == values:
            messages = cached[1]
        else:
            self._submitting = send is not None
            self.query_one("#preview", Static).update(
                Content(f"Asking {self.template.server.name!r} for {self.template.name!r}…")
            )
            try:
                messages = await self.template.render(values)
            except Exception as exc:  # the server's reason is what the user needs, whatever its type
                self._show_form_error(f"The server could not render this prompt: {clean(str(exc))}")
                self.query_one("#preview", Static).update("")
                return
            finally:
                self._submitting = False
            self._server_preview = (values, messages)
        if send is None:
            self._refresh_preview()
            return
        self.dismiss(
            TemplateResult(messages[-1], send, values, messages=tuple(messages), template_name=self.template.name)
        )

    def _show_problems(self, problems: Mapping[str, str]) -> None:
        """The one-line summary above the buttons: every field that will not do, or nothing."""
        count = len(problems)
        summary = f"{count} field{'s' if count > 1 else ''} need{'' if count > 1 else 's'} attention: "
        self._show_form_error(summary + " ".join(problems.values()) if problems else "")

    def _show_form_error(self, message: str) -> None:
        box = self.query_one("#form-error", Static)
        box.update(Content(message))
        box.set_class(bool(message), "-visible")

