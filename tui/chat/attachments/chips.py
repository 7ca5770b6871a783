"""The chips over the composer: one per file (or MCP resource) waiting to go with the next message.

The row follows the workbench by itself (what is pending is `workbench.pending_files` and
`workbench.pending_resources` of the shown dialog). It takes the focus like any widget — shift+tab from the
composer — and then ←/→ pick a chip, delete or backspace removes it, and esc, ↓ or enter go back to typing.
Hidden while nothing is attached, so an empty composer looks as it always did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.style import Style
from textual.widget import Widget

from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench import events as news


class AttachmentChips(Widget, can_focus=True):
    """What the next message of the shown dialog carries; removable before sending."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous attachment", show=False),
        Binding("right", "step(1)", "Next attachment", show=False),
        Binding("delete,backspace", "remove", "Remove the attachment", show=False),
        Binding("escape,down,enter", "back", "Back to the composer", show=False),
    ]

    DEFAULT_CSS = """
    AttachmentChips {
        height: auto;
        max-height: 3;
        padding: 0 1;
        color: $text-muted;
    }
    AttachmentChips.-empty {
        display: none;
    }
    AttachmentChips:focus {
        color: $text;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")
        self.workbench: Workbench | None = None
        #: The label of each chip: the pending files first, then the pending MCP resources.
        self.labels: list[str] = []
        self._files = 0
        self.selected = 0
        self._unsubscribe: Callable[[], None] = lambda: None

    def bind(self, workbench: Workbench) -> None:
        """Follow this workbench's shown dialog (called once, by the screen that owns both)."""
        self.workbench = workbench
        self._unsubscribe = listen(self, workbench, news.AttachmentsChanged, news.ShownChanged)
        self.reload()

    def on_unmount(self) -> None:
        self._unsubscribe()

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        message.stop()
        self.reload()

    def reload(self) -> None:
        """Read what is pending for the shown dialog again."""
        if self.workbench is None:
            return
        dialog_id = self.workbench.shown.id
        files = self.workbench.pending_files.of(dialog_id)
        resources = self.workbench.pending_resources.get(dialog_id, [])
        self._files = len(files)
        self.labels = [f.label() for f in files] + [
            f"{clean_line(str(getattr(r, 'uri', '')), 60)} (MCP resource)" for r in resources
        ]
        self.selected = max(0, min(self.selected, len(self.labels) - 1))
        self.set_class(not self.labels, "-empty")
        if not self.labels and self.has_focus:
            self.action_back()
        self.refresh(layout=True)

    def render(self) -> Content:
        parts: list[Content] = []
        for index, label in enumerate(self.labels):
            chip = Content(f"▣ {label}")
            if self.has_focus and index == self.selected:
                chip = chip.stylize(Style(reverse=True))
            parts.append(chip)
        hint = "  ← → · del removes · esc back" if self.has_focus else "  shift+tab to remove"
        return Content("  ").join(parts) + Content(hint).stylize(Style(dim=True))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_step(self, step: int) -> None:
        if self.labels:
            self.selected = (self.selected + step) % len(self.labels)
            self.refresh()

    def action_remove(self) -> None:
        """Remove the selected chip: the file (or resource) no longer goes with the message."""
        workbench = self.workbench
        if workbench is None or not self.labels:
            return
        dialog_id = workbench.shown.id
        if self.selected < self._files:
            workbench.pending_files.remove(dialog_id, self.selected)
        else:
            resources = workbench.pending_resources.get(dialog_id, [])
            position = self.selected - self._files
            if 0 <= position < len(resources):
                resources.pop(position)
                workbench.emit(news.AttachmentsChanged(dialog_id))
        self.reload()  # at once: the news that follows finds the same

    def action_back(self) -> None:
        """Back to the composer's input (the chip row's next sibling)."""
        self.screen.focus_next()
