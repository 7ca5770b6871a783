"""The divergence list: every point in the shown dialog's family where the answers part, to jump to one.

`DivergenceList` is the panel (an option list): a heading per point (message number, what kind of message, how
many ways), then one row per way with its model and first words, ● on the way the shown dialog goes. Choosing a
row posts `DivergenceList.Jump(dialog_id, message_index)`: the screen that shows dialogs opens that one there.
`DivergenceScreen` shows the panel as a modal and dismisses with the same Jump (or None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine import Role
from visindigo.engine.compare.divergence import Divergence
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe, sanitize

_KINDS = {Role.ASSISTANT: "answer", Role.USER: "question", Role.PROMPT: "question", Role.TOOL: "tool result"}


@dataclass(frozen=True, slots=True)
class JumpTarget:
    dialog_id: str
    message_index: int


def heading(divergence: Divergence) -> Content:
    kinds = {_KINDS.get(a.role, "message") for a in divergence.alternatives}
    kind = kinds.pop() if len(kinds) == 1 else "message"
    count = len(divergence.alternatives)
    return Content.assemble((f"Message {divergence.index + 1}", "bold"), f" · {kind} · {count} ways")


def row(divergence: Divergence, position: int) -> Content:
    alternative = divergence.alternatives[position]
    mark = "● " if position == divergence.current else "  "
    model = alternative.model_id or alternative.provider_id or "no answer yet"
    return Content.assemble(
        f"  {mark}{position + 1} ", (sanitize(model)[:24], "bold"), "  ", (sanitize(alternative.first_words), "dim")
    )


class DivergenceList(CursorOptionList):
    """The points where the family parts and the ways at each; enter jumps to the chosen way."""

    @dataclass
    class Jump(Message):
        """Open `dialog_id` at message `message_index` (the message where this way differs)."""

        dialog_id: str
        message_index: int

    def __init__(self, divergences: Sequence[Divergence], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.divergences = list(divergences)
        self._targets: dict[str, JumpTarget] = {}

    def on_mount(self) -> None:
        self.show(self.divergences)

    def show(self, divergences: Sequence[Divergence]) -> None:
        """List these divergences (after the shown dialog changed, say)."""
        self.divergences = list(divergences)
        self._targets = {}
        self.clear_options()
        first_current: int | None = None
        for number, divergence in enumerate(self.divergences):
            self.add_option(Option(heading(divergence), id=f"h{number}", disabled=True))
            for position, alternative in enumerate(divergence.alternatives):
                option_id = f"{number}:{position}"
                self._targets[option_id] = JumpTarget(alternative.dialog_id, divergence.index)
                self.add_option(Option(row(divergence, position), id=option_id))
                if first_current is None and position == divergence.current:
                    first_current = self.option_count - 1
        if self.option_count:
            self.highlighted = first_current if first_current is not None else 1

    def target(self, option_id: str) -> JumpTarget | None:
        return self._targets.get(option_id)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        target = self._targets.get(event.option.id or "")
        if target is not None and event.control is self:
            event.stop()
            self.post_message(self.Jump(target.dialog_id, target.message_index))


class DivergenceScreen(ModalFrame[JumpTarget | None]):
    """The divergence list as a modal: dismisses with where to jump, or None."""

    BINDINGS = [close_on_escape("close")]

    DEFAULT_CSS = """
    DivergenceScreen > .frame {
        width: 90;
        height: 100%;
        max-height: 30;
    }
    DivergenceScreen DivergenceList {
        height: 1fr;
        margin-top: 1;
    }
    """

    NOTHING = "This dialog has no alternatives yet: regenerate, edit a question or compare models to make some."

    def __init__(self, divergences: Sequence[Divergence], *, title: str = "") -> None:
        super().__init__()
        self._divergences = list(divergences)
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Where the answers part" + (f" · {sanitize(self._title)}" if self._title else "")
            frame.border_subtitle = "↑/↓ choose · enter jump · esc close"
            count = len(self._divergences)
            summary = f"{count} point{'' if count == 1 else 's'} in this family; ● the way the shown dialog goes"
            yield Static(safe(summary if count else self.NOTHING), classes="hint")
            yield DivergenceList(self._divergences)

    def on_mount(self) -> None:
        self.query_one(DivergenceList).focus()

    @on(DivergenceList.Jump)
    def _jump(self, event: DivergenceList.Jump) -> None:
        event.stop()
        self.dismiss(JumpTarget(event.dialog_id, event.message_index))

    def action_close(self) -> None:
        self.dismiss(None)
