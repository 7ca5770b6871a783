"""Create or edit a template file: name, description, tags and text, with the fields it will ask for.

The screen does not write anything itself: `save(prompt)` (the library screen's) returns None on success or
the reason it refused, which is shown here — the user's text stays in the editor until it is saved or
cancelled, so a refused save (a name in use, a file changed on disk) loses nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Static, TextArea

from visindigo.engine import Prompt
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.common.fields import EditingArea
from visindigo.tui.common.modal import ModalFrame
from visindigo.tui.common.sanitize import clean

SaveCallback = Callable[[Prompt], str | None]

SYNTAX_HINT = (
    '{{name}} · {{name | text:placeholder="…":required}} · {{name | select:options=["a","b"]:default="a"}} · '
    "textarea · number:min=1:max=9:step=1 · checkbox · date · {{CURRENT_DATE}}"
)


class TemplateEditorScreen(ModalFrame[Prompt | None]):
    """Dismisses with the saved `Prompt`, or None when cancelled."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    TemplateEditorScreen > #frame {
        width: 100;
        height: 100%;
        max-height: 40;
    }
    TemplateEditorScreen .row {
        height: 1;
    }
    TemplateEditorScreen .row > Label {
        width: 13;
        color: $text-muted;
    }
    TemplateEditorScreen .row > Input {
        width: 1fr;
        background: $boost;
    }
    TemplateEditorScreen .row > Input:focus {
        background: $primary 25%;
    }
    TemplateEditorScreen .row > Input:focus:ansi {
        background: $block-cursor-background;  /* an ANSI colour has no 25% */
        color: $block-cursor-foreground;
    }
    TemplateEditorScreen #content {
        height: 1fr;
        min-height: 3;
        margin-top: 1;
    }
    TemplateEditorScreen #hint, TemplateEditorScreen #found {
        color: $text-muted;
        height: auto;
    }
    TemplateEditorScreen #problems {
        color: $text-warning;
        height: auto;
        max-height: 4;
    }
    TemplateEditorScreen #error {
        color: $text-error;
        height: auto;
    }
    TemplateEditorScreen #buttons {
        height: 1;
        align-horizontal: right;
    }
    TemplateEditorScreen #buttons Button {
        margin-left: 1;
    }
    """

    def __init__(self, initial: Prompt | None, save: SaveCallback, *, title: str = "") -> None:
        super().__init__()
        self.initial = initial or Prompt()
        self.save = save
        self.title_text = title or ("Edit template" if initial is not None and initial.name else "New template")

    def compose(self) -> ComposeResult:
        with Vertical(id="frame", classes="frame") as frame:
            frame.border_title = self.title_text
            frame.border_subtitle = "ctrl+s save · esc cancel"
            with Horizontal(classes="row"):
                yield Label("Name")
                yield Input(self.initial.name, placeholder="What the library lists it as", id="name", compact=True)
            with Horizontal(classes="row"):
                yield Label("Description")
                yield Input(self.initial.description, placeholder="Optional", id="description", compact=True)
            with Horizontal(classes="row"):
                yield Label("Tags")
                yield Input(
                    ", ".join(self.initial.tags), placeholder="Comma-separated, optional", id="tags", compact=True
                )
            yield EditingArea(
                self.initial.content,
                id="content",
                soft_wrap=True,
                tab_behavior="focus",
                placeholder="The template text, with {{placeholders}}",
            )
            yield Static(Content(SYNTAX_HINT), id="hint")
            yield Static("", id="found")
            yield Static("", id="problems")
            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button("Save", id="save", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self._describe()
        self.query_one("#name", Input).focus()

    def prompt(self) -> Prompt:
        """The template as currently typed."""
        tags = tuple(tag.strip() for tag in self.query_one("#tags", Input).value.split(",") if tag.strip())
        return Prompt(
            name=self.query_one("#name", Input).value.strip(),
            content=self.query_one("#content", TextArea).text,
            description=self.query_one("#description", Input).value.strip(),
            tags=tags,
        )

    @on(TextArea.Changed)
    def _content_changed(self) -> None:
        self._describe()

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    def _describe(self) -> None:
        """Show which fields the text asks for and which placeholders will not parse."""
        prompt = self.prompt()
        fields = prompt.fields()
        described = ", ".join(f"{f.name} ({f.type}{', required' if f.required else ''})" for f in fields)
        self.query_one("#found", Static).update(Content(clean("Fields: " + (described or "none"))))
        problems = prompt.problems()
        text = "\n".join(f"Not a placeholder, left as written — {problem}" for problem in problems[:3])
        if len(problems) > 3:
            text += f"\n… and {len(problems) - 3} more"
        self.query_one("#problems", Static).update(Content(clean(text)))

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_cancel()

    def action_save(self) -> None:
        prompt = self.prompt()
        refusal = self.save(prompt)
        if refusal:
            self.query_one("#error", Static).update(Content(clean(refusal)))
            return
        self.dismiss(prompt)

    def action_cancel(self) -> None:
        """Close; when something was typed, ask first, so a stray Esc does not throw work away."""
        if self.prompt() == _normalised(self.initial):
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        body = "What you typed in this template has not been saved."
        self.app.push_screen(ConfirmScreen("Discard changes?", body, "Discard", danger=True), answered)


def _normalised(prompt: Prompt) -> Prompt:
    """The prompt as `prompt()` would read it back from the widgets, for the "anything changed?" test."""
    return Prompt(
        name=prompt.name.strip(),
        content=prompt.content,
        description=prompt.description.strip(),
        tags=tuple(tag.strip() for tag in prompt.tags if tag.strip()),
    )
