"""One form row per template field: the widget that fits its type, and reading its value back as text.

| field type | widget |
|---|---|
| text, email, url, tel, time, month, datetime-local, color | `Input` with the field's check as a validator |
| number | `Input(type="number")` with min / max / step checks |
| date | `Input` restricted to digits and dashes, checked as YYYY-MM-DD |
| textarea | `TextArea` (Enter adds a line; Tab moves on) |
| select | `Select` over the options |
| checkbox | `Checkbox` |

Every check comes from `TemplateField.check` in the engine, so the form says exactly what a script would be
told. Labels, descriptions and options may come from an MCP server: they are cleaned of terminal control
sequences and never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.suggester import Suggester
from textual.validation import ValidationResult, Validator
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, Static, TextArea

from visindigo.engine.templates import TemplateField
from visindigo.tui.common.sanitize import clean

if TYPE_CHECKING:
    from visindigo.engine.mcp_server import MCPServer

#: Characters a date or a number input accepts; anything else is refused as it is typed.
_RESTRICT = {"date": r"[0-9-]*", "month": r"[0-9-]*", "time": r"[0-9:]*"}


class FieldCheck(Validator):
    """Textual's validator interface over the engine's `TemplateField.check`."""

    def __init__(self, spec: TemplateField) -> None:
        super().__init__()
        self.spec = spec

    def validate(self, value: str) -> ValidationResult:
        problem = self.spec.check(value)
        return self.success() if problem is None else self.failure(problem)


class FieldRow(Vertical):
    """Title, description, the input widget and the line where its error appears."""

    DEFAULT_CSS = """
    FieldRow {
        height: auto;
        margin-bottom: 1;
    }
    FieldRow > .field-title {
        text-style: bold;
    }
    FieldRow > .field-description {
        color: $text-muted;
    }
    FieldRow > .field-error {
        color: $text-error;
        display: none;
    }
    FieldRow.-has-error > .field-error {
        display: block;
    }
    FieldRow > Input, FieldRow > TextArea, FieldRow > Select > SelectCurrent {
        background: $boost;
    }
    FieldRow > Input:focus, FieldRow > TextArea:focus, FieldRow > Select:focus > SelectCurrent {
        background: $primary 25%;
    }
    FieldRow > Input:focus:ansi, FieldRow > TextArea:focus:ansi, FieldRow > Select:focus:ansi > SelectCurrent {
        background: $block-cursor-background;  /* an ANSI colour has no 25% */
        color: $block-cursor-foreground;
    }
    FieldRow > Input.-invalid:ansi {
        background: $background;
        color: $text-error;
    }
    FieldRow > Input.-invalid {
        background: $error 20%;
    }
    FieldRow > TextArea {
        height: 5;
    }
    /* A hint is dim and italic, with a marker, so "Product name" never reads as a value that is filled in. */
    FieldRow > Input > .input--placeholder, FieldRow > TextArea > .text-area--placeholder {
        color: $text-disabled;
        text-style: italic;
    }
    """

    def __init__(self, spec: TemplateField, index: int, initial: str) -> None:
        super().__init__(id=f"field-{index}")
        self.spec = spec
        self.index = index
        self.initial = initial

    def compose(self) -> ComposeResult:
        spec = self.spec
        if spec.type != "checkbox":
            title = clean(spec.title) + (" *" if spec.required else "")
            yield Static(Content(title), classes="field-title")
        if spec.description:
            yield Static(Content(clean(spec.description)), classes="field-description")
        yield make_widget(spec, self.index, self.initial)
        yield Static("", classes="field-error", id=f"error-{self.index}")

    @property
    def widget(self) -> Widget:
        return self.query_one(f"#input-{self.index}")

    def value(self) -> str:
        """The widget's value as the text the template gets."""
        return widget_value(self.widget)

    def show_error(self, message: str | None) -> None:
        self.query_one(f"#error-{self.index}", Static).update(Content(message or ""))
        self.set_class(bool(message), "-has-error")


def hint_text(spec: TemplateField) -> str:
    """The field's hint as the empty widget shows it: in ‹ › (and dim, italic), so it never reads as a value."""
    hint = " ".join(clean(spec.hint).split())
    return f"‹{hint}›" if hint else ""


def make_widget(spec: TemplateField, index: int, initial: str) -> Widget:
    widget_id = f"input-{index}"
    if spec.type == "textarea":
        return EditingArea(
            initial, id=widget_id, soft_wrap=True, tab_behavior="focus", compact=True, placeholder=hint_text(spec)
        )
    if spec.type == "select":
        options = [(Content(clean(option)), option) for option in spec.options]
        value = initial if initial in spec.options else Select.NULL
        prompt = clean(spec.placeholder) or "Choose…"
        return Select(options, prompt=prompt, value=value, allow_blank=True, id=widget_id, compact=True)
    if spec.type == "checkbox":
        label = clean(spec.title)
        return Checkbox(Content(label), value=initial == "true", id=widget_id, compact=True)
    return Input(
        initial,
        placeholder=hint_text(spec),
        type="number" if spec.type == "number" else "text",
        restrict=_RESTRICT.get(spec.type),
        validators=[FieldCheck(spec)],
        id=widget_id,
        compact=True,
    )


def widget_value(widget: Widget) -> str:
    if isinstance(widget, Input):
        return widget.value
    if isinstance(widget, TextArea):
        return widget.text
    if isinstance(widget, Checkbox):
        return "true" if widget.value else "false"
    if isinstance(widget, Select):
        value = widget.value
        return "" if value is Select.NULL else str(value)
    raise TypeError(f"not a template field widget: {widget!r}")


# A multi-line editor where Ctrl+J makes a new line, as it does in the composer.
#
# Enter already does in a plain `TextArea`, but users learn Ctrl+J in the composer (where Enter sends) and press
# it everywhere; in a bare TextArea it did nothing. Ctrl+J is a distinct byte (LF) on every terminal, SSH too.
#


class EditingArea(TextArea):
    """`TextArea` plus Ctrl+J for a new line."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+j", "newline", "New line", show=False)]

    def action_newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)


# Suggestions from an MCP server (`completion/complete`) for a form field, as Textual's inline suggestion.
#
# The suggestion appears greyed after what is typed and → accepts it, as anywhere in Textual. Used for the
# arguments of server prompts in the template form and for the variables of resource templates.
#


@runtime_checkable
class Completing(Protocol):
    """What suggests an argument's values: an MCP server's completion (`engine.mcp.MCPManager.complete`)."""

    async def complete(
        self, server: MCPServer, kind: str, name: str, argument: str, value: str, context: dict[str, str] | None = None
    ) -> list[str]: ...


class ServerSuggester(Suggester):
    """Asks `source.complete(server, kind, name, argument, value, context)` for the first match."""

    def __init__(
        self,
        source: Completing,
        server: MCPServer,
        kind: str,
        name: str,
        argument: str,
        context: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.source = source
        self.server = server
        self.kind = kind
        self.name = name
        self.argument = argument
        self.context = context

    async def get_suggestion(self, value: str) -> str | None:
        context = self.context() if self.context is not None else {}
        try:
            values = await self.source.complete(self.server, self.kind, self.name, self.argument, value, context)
        except Exception:  # a server failing to complete only means no suggestion
            return None
        return next((v for v in values if v.startswith(value) and v != value), None)
