"""The main screen's context actions and their screens: the choice before a request that will not fit (and after a
server refused one for its size), compaction into a branch, the ledger of a summary, one answer's figures.

The rules are the workbench's (`workbench.context`, over `engine.context`); this module only asks the user and
shows the result: a compacted branch is opened like an edited one, and the question that did not fit is sent
there (or, when the server refused it, the branch — which keeps it as its last turn — runs).
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine.context.compaction import ledger_of
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import Refused
from visindigo.tui.workbench.context import fit_message

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from visindigo.engine import Dialog
    from visindigo.tui.chat.composer import Composer
    from visindigo.tui.chat.message_pane import MessagePane
    from visindigo.tui.workbench import Workbench

__all__ = ["AnswerDetailsScreen", "ContextActions", "FitChoiceScreen", "LedgerScreen"]

COMPACT, MOVE_OUT, SEND = "compact", "move", "send"


class Host(Protocol):
    """What the context actions use of the main screen (named here, so this module does not import it)."""

    @property
    def app(self) -> App[Any]: ...

    workbench: Workbench
    pane: MessagePane
    composer: Composer

    def in_worker(self, flow: Coroutine[Any, Any, None], group: str = "modal") -> Worker[None]: ...
    async def open_dialog(self, dialog: Dialog, *, focus_index: int | None = None) -> None: ...


class FitChoiceScreen(ModalFrame[str | None]):
    """Compact into a branch (c), move the oldest turns out into a branch (m), or send anyway (s); esc: none."""

    BINDINGS: ClassVar[list[BindingType]] = [
        close_on_escape("choose('')", "Cancel"),
        Binding("c", f"choose('{COMPACT}')", "Compact into a branch"),
        Binding("m", f"choose('{MOVE_OUT}')", "Move the oldest turns out"),
        Binding("s", f"choose('{SEND}')", "Send anyway"),
        Binding("left,up", "app.focus_previous", "Previous button", show=False),
        Binding("right,down", "app.focus_next", "Next button", show=False),
    ]

    DEFAULT_CSS = """
    FitChoiceScreen #why { margin: 1 0 0 0; }
    FitChoiceScreen .buttons { layout: vertical; align-horizontal: left; }
    FitChoiceScreen .buttons Button { width: 100%; margin: 0; }
    """

    def __init__(self, title: str, why: str, send_label: str = "Send anyway") -> None:
        super().__init__()
        self._title, self._why, self._send_label = title, why, send_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = safe(self._title)
            frame.border_subtitle = "esc: keep the question and do nothing"
            yield Static(safe(self._why), id="why")
            with Vertical(classes="buttons"):
                yield Button("Compact into a branch, with a summary (c)", variant="primary", id=COMPACT)
                yield Button("Move the oldest turns out into a branch (m)", id=MOVE_OUT)
                yield Button(f"{self._send_label} (s)", id=SEND)

    def on_mount(self) -> None:
        self.query_one(f"#{COMPACT}", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)


class LedgerScreen(ModalFrame[tuple[str, int] | None]):
    """The messages a summary replaced: enter shows one in the parent dialog, b puts it back into this branch."""

    BINDINGS: ClassVar[list[BindingType]] = [
        close_on_escape("close"),
        Binding("b", "put_back", "Put back into this branch"),
    ]

    DEFAULT_CSS = """
    LedgerScreen OptionList { height: auto; max-height: 14; margin: 1 0 0 0; }
    """

    def __init__(self, ledger: dict[str, Any]) -> None:
        super().__init__()
        self.ledger = ledger

    def compose(self) -> ComposeResult:
        entries = [e for e in self.ledger.get("replaced", []) if isinstance(e, dict)]
        with Vertical(classes="frame") as frame:
            word = "moved out" if self.ledger.get("moved_out") else "replaced by the summary"
            frame.border_title = f"{len(entries)} messages {word}"
            frame.border_subtitle = "enter: show in the parent · b: put back · esc"
            model = clean_line(str(self.ledger.get("summary_model") or ""), 60)
            about = [f"summary by {model}" if model else "no summary: the turns were moved out"]
            if self.ledger.get("tokens_before"):
                about.append(f"{self.ledger['tokens_before']:,} tokens before")
            if self.ledger.get("tokens_after"):
                about.append(f"{self.ledger['tokens_after']:,} after")
            pinned = self.ledger.get("pinned", [])
            if pinned:
                about.append(f"{len(pinned)} pinned kept word for word")
            yield Static(safe(" · ".join(about)), classes="hint")
            yield CursorOptionList(*[self._option(e) for e in entries], id="replaced")

    @staticmethod
    def _option(entry: dict[str, Any]) -> Option:
        position = int(entry.get("position", 0))
        words = clean_line(str(entry.get("first_words", "")), 50) or "(no text)"
        back = " · put back" if entry.get("restored") else ""
        line = f"#{position + 1} {entry.get('role', '?')} · {entry.get('tokens', 0)} tok · {words}{back}"
        return Option(safe(line), id=str(position))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _selected(self) -> int | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        option_id = options.get_option_at_index(options.highlighted).id
        return int(option_id) if option_id is not None else None

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(("jump", int(event.option.id)))

    def action_put_back(self) -> None:
        position = self._selected()
        if position is not None:
            self.dismiss(("back", position))

    def action_close(self) -> None:
        self.dismiss(None)


class AnswerDetailsScreen(ModalFrame[None]):
    """One answer's tokens in (cache read and written), out (reasoning), its cost and where the cost came from."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,i", "close", "Close")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self._title, self._lines = title, lines

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = self._title
            yield Static(safe("\n".join(self._lines)), id="figures")
            with Horizontal(classes="buttons"):
                yield Button("Close (esc)", id="close")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class ContextActions:
    """What the main screen does about the context: given the screen, it runs each flow in the screen's
    workers (a modal is waited for there)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    @property
    def workbench(self) -> Workbench:
        return self.screen.workbench

    # --- before sending, and after a refusal ------------------------------------------------------------------

    def may_send(self, text: str) -> bool:
        """Whether `text` can go now; when it will not fit (or automatic compaction is due) the choice or the
        compaction starts in a worker, the text stays in the composer, and False is returned."""
        dialog = self.workbench.shown
        if self.workbench.runs.is_running(dialog.id):
            return True  # the workbench refuses it with its own words
        fit = self.workbench.context.fit_for(dialog, text)
        if fit is None:
            return True
        settings = self.workbench.center.settings.get("context")
        if isinstance(settings, dict) and settings.get("auto_compact") and fit.window:
            self.screen.in_worker(self._auto_compact(dialog, text), group="context")
            return False
        if fit.status != "over":
            return True
        self.screen.in_worker(
            self._choose(dialog, text, "This question will not fit", fit_message(fit)), group="context"
        )
        return False

    def after_refusal(self, dialog: Dialog, error: str) -> None:
        """The server refused the request for its size: the same choice, for the question kept in the dialog."""
        why = f"{error}\n\nYour question is kept in the dialog."
        self.screen.in_worker(
            self._choose(dialog, None, "The server refused: context exceeded", why, "Send again as it is"),
            group="context",
        )

    async def _choose(self, dialog: Dialog, text: str | None, title: str, why: str, send: str = "Send anyway") -> None:
        choice = await self.screen.app.push_screen_wait(FitChoiceScreen(title, why, send))
        if choice is None:
            return
        try:
            if choice == SEND:
                self._send_in(dialog, text)
            else:
                await self._compact_and_go(dialog, text, moved=choice == MOVE_OUT)
        except Refused as refused:
            self.screen.app.notify(str(refused), severity="warning", markup=False)

    async def _auto_compact(self, dialog: Dialog, text: str) -> None:
        branch, why = await self.workbench.context.auto_compact(dialog, text)
        if why:
            self.screen.app.notify(why, severity="warning" if "failed" in why else "information", markup=False)
        if branch is None:
            self._send_in(dialog, text)
            return
        await self.screen.open_dialog(branch)
        self.screen.app.notify("The dialog was compacted automatically into a branch; your question goes there.")
        self._send_in(branch, text)

    def _send_in(self, dialog: Dialog, text: str | None) -> None:
        if text is None:
            self.screen.pane.follow()
            self.workbench.start_run(dialog)
        else:
            self.workbench.send(text, dialog)
            self.screen.composer.clear()

    async def _compact_and_go(self, dialog: Dialog, text: str | None, *, moved: bool) -> None:
        if not moved:
            self.screen.app.notify("Writing the summary of the earlier turns…", markup=False)
        branch = await self.workbench.context.compact(dialog, moved=moved)
        await self.screen.open_dialog(branch)
        self._send_in(branch, text)

    # --- keys --------------------------------------------------------------------------------------------------

    def compact(self, *, moved: bool = False) -> None:
        """Compact the shown dialog into a branch (or move its oldest turns out) and open the branch."""

        async def flow() -> None:
            dialog = self.workbench.shown
            try:
                if not moved:
                    self.screen.app.notify("Writing the summary of the earlier turns…", markup=False)
                branch = await self.workbench.context.compact(dialog, moved=moved)
            except Refused as refused:
                self.screen.app.notify(str(refused), severity="warning", markup=False)
                return
            await self.screen.open_dialog(branch)
            ledger = ledger_of(next(m for m in branch.messages if ledger_of(m) is not None)) or {}
            count = len(ledger.get("replaced", []))
            verb = "moved out of" if moved else "summarised in"
            before, after = ledger.get("tokens_before", 0), ledger.get("tokens_after", 0)
            sizes = f"; the request {before:,} → {after:,} tokens" if before and after else ""
            self.screen.app.notify(f"A new branch: {count} earlier messages {verb} it{sizes} (l on it shows them).")

        self.screen.in_worker(flow(), group="context")

    def pin(self, index: int) -> None:
        pinned = self.workbench.context.toggle_pin(self.workbench.shown, index)
        self.screen.app.notify(
            f"Message {index + 1} is pinned: kept word for word through compactions."
            if pinned
            else f"Message {index + 1} is no longer pinned."
        )

    def details(self, index: int) -> None:
        """The message's figures (an answer's tokens and cost), then the dialog's and its branch family's totals."""
        dialog = self.workbench.shown
        context = self.workbench.context
        lines = [*context.answer_lines(dialog, index), "", *context.totals_lines(dialog)]
        self.screen.in_worker(self._show(AnswerDetailsScreen(f"Message {index + 1}", lines)), group="context")

    async def _show(self, screen: AnswerDetailsScreen) -> None:
        await self.screen.app.push_screen_wait(screen)

    def ledger(self, index: int) -> None:
        """The ledger of the summary at `index`: jump to a replaced message in the parent, or put it back."""
        branch = self.workbench.shown
        ledger = ledger_of(branch.message_at(index))
        if ledger is None:
            self.screen.app.notify("This message is not a compaction summary: it has no ledger.")
            return

        async def flow() -> None:
            chosen = await self.screen.app.push_screen_wait(LedgerScreen(ledger))
            if chosen is None:
                return
            what, position = chosen
            if what == "jump":
                found = self.workbench.context.find_replaced(branch, position)
                if found is None:
                    self.screen.app.notify("The parent dialog no longer holds that message.", severity="warning")
                    return
                parent, where = found
                await self.screen.open_dialog(parent, focus_index=where)
                self.screen.pane.focus()
                return
            try:
                where = self.workbench.context.put_back(branch, position)
            except Refused as refused:
                self.screen.app.notify(str(refused), severity="warning", markup=False)
                return
            await self.screen.open_dialog(branch, focus_index=where)
            self.screen.app.notify(f"Message {position + 1} of the parent is back in this branch.")

        self.screen.in_worker(flow(), group="context")
