"""The timeline panel (every question of the family, type to filter, enter jumps), and the one-line question the
tail-fork and label keys ask. The rules are `workbench.timeline`'s; this is only what shows them. The main screen
opens these through `main.launchers.FeatureScreens` (filled in `tui/features.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe
from visindigo.tui.workbench.timeline import TimelineEntry, filter_timeline


def entry_row(entry: TimelineEntry) -> Content:
    """ "② m1  Plan 3 days in Kyoto…  #budget", and under a question its labelled answer or tool message:
    "②   ↳ tool call: get_weather  #forecast" (every part already one clean line)."""
    parts: list[tuple[str, str] | str] = [f"{entry.branch} "]
    if entry.kind == "question":
        parts += [(entry.model[:20] or "—", "bold"), "  ", entry.first_words]
    else:
        parts += ["  ↳ ", (f"{entry.kind}:", "italic"), " ", entry.first_words]
    if entry.label:
        parts += ["  ", (f"#{entry.label}", "bold italic")]
    return Content.assemble(*parts)


class TimelineScreen(ModalFrame[tuple[str, int] | None]):
    """Dismisses with (dialog id, message index) of the chosen question, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        close_on_escape("close"),
        Binding("down", "to_list", "To the list", show=False),
    ]

    DEFAULT_CSS = """
    TimelineScreen > .frame {
        width: 100;
        height: 100%;
        max-height: 30;
    }
    TimelineScreen OptionList {
        height: 1fr;
        margin-top: 1;
    }
    """

    def __init__(self, entries: Sequence[TimelineEntry], *, current: tuple[str, int] | None = None) -> None:
        super().__init__()
        self.entries = list(entries)
        self.shown: list[TimelineEntry] = []
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Timeline of your questions"
            frame.border_subtitle = "type to filter · ↓ list · enter jump · esc close"
            yield Input(placeholder="Filter: words, #label, branch, model", id="timeline-filter")
            yield Static(Content(""), classes="hint", id="timeline-count")
            yield CursorOptionList(id="timeline-list")

    def on_mount(self) -> None:
        self._show("")
        self.query_one(Input).focus()

    def _show(self, query: str) -> None:
        self.shown = filter_timeline(self.entries, query.replace("#", " "))
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(entry_row(entry), id=str(n)) for n, entry in enumerate(self.shown)])
        count = len(self.shown)
        total = len(self.entries)
        questions = sum(entry.kind == "question" for entry in self.entries)
        whole = f"{questions} question{'s' if questions != 1 else ''}"
        if others := total - questions:
            whole += f" and {others} labelled message{'s' if others != 1 else ''}"
        hint = f"{count} of {whole}" if query.strip() else whole
        self.query_one("#timeline-count", Static).update(safe(hint if total else "No question in this dialog yet."))
        if count:
            wanted = next((n for n, e in enumerate(self.shown) if (e.dialog_id, e.index) == self._current), count - 1)
            options.highlighted = wanted

    @on(Input.Changed, "#timeline-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._show(event.value)

    @on(Input.Submitted, "#timeline-filter")
    def _pick_highlighted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        if options.highlighted is not None and self.shown:
            self._jump(options.highlighted)

    @on(OptionList.OptionSelected, "#timeline-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._jump(event.option_index)

    def _jump(self, position: int) -> None:
        entry = self.shown[position]
        self.dismiss((entry.dialog_id, entry.index))

    def action_to_list(self) -> None:
        self.query_one(OptionList).focus()

    def action_close(self) -> None:
        self.dismiss(None)


class AskLineScreen(ModalFrame[str | None]):
    """One line asked (a label, a number of turns): dismisses with the text, or None on Esc.

    `check` returns a problem to show under the box (the text is kept), or None when the text will do.
    """

    BINDINGS: ClassVar[list[BindingType]] = [close_on_escape("cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        *,
        value: str = "",
        placeholder: str = "",
        hint: str = "",
        check: Callable[[str], str | None] | None = None,
        max_length: int = 40,
    ) -> None:
        super().__init__()
        self._title, self._value, self._placeholder, self._hint = title, value, placeholder, hint
        self._check = check
        self._max_length = max_length

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = self._title
            frame.border_subtitle = "enter saves · esc cancels"
            yield Input(self._value, placeholder=self._placeholder, max_length=self._max_length, id="ask-line")
            yield Static(safe(self._hint), classes="hint")
            yield Static(Content(""), classes="error", id="ask-problem")

    @on(Input.Submitted, "#ask-line")
    def _save(self, event: Input.Submitted) -> None:
        event.stop()
        text = " ".join(event.value.split())
        problem = self._check(text) if self._check is not None else None
        if problem:
            self.query_one("#ask-problem", Static).update(safe(problem))
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
