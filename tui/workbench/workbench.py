"""The workbench: the user's working state on the main screen, as plain Python over the engine.

Which dialog is shown, the runs of every dialog and their state, branching (regenerate, edit, the alternatives
where a family's dialogs part), the tree index and search. Widgets read it and call it; it tells them what
changed through its events (`workbench.events`), to which any number of listeners subscribe. It imports no
Textual: a run goes on in whatever `RunHost` it is given (the screen's workers in the app, asyncio tasks in
its tests), so every rule here is tested without a screen.

What the user cannot do right now (send while the dialog answers, edit a message that is not theirs, open a
dialog while the store is being repaired) raises `Refused`, whose text is what to tell them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.engine.lookup import SearchHit
from visindigo.engine.storage.errors import StoreRepairing
from visindigo.tui.workbench import branches
from visindigo.tui.workbench.attachments import Pending, PendingFiles, attach_pending, pending_problem
from visindigo.tui.workbench.context import ContextWork
from visindigo.tui.workbench.events import (
    EngineEvent,
    Sent,
    ShownChanged,
    TreeChanged,
    WorkbenchEvent,
)
from visindigo.tui.workbench.refusal import Refused
from visindigo.tui.workbench.runs import Runs, RunState
from visindigo.tui.workbench.status import StatusInfo, UsageTally, status_info

if TYPE_CHECKING:
    from visindigo.engine.approval import Approval, ApprovalCallback, ToolCallRequest
    from visindigo.engine.events import Event

log = logging.getLogger(__name__)

Listener = Callable[[WorkbenchEvent], None]
_ASKING = (Role.USER, Role.PROMPT)


@contextlib.contextmanager
def _refused_while_repairing() -> Iterator[None]:
    """A store being repaired in the background answers nothing meanwhile: say so, as for any refusal."""
    try:
        yield
    except StoreRepairing as repairing:
        raise Refused(str(repairing)) from None


class RunHost(Protocol):
    """Where runs go on, and who asks the user before a tool runs."""

    def start(self, run: Coroutine[Any, Any, None], *, name: str, group: str) -> None: ...

    def cancel(self, group: str) -> None: ...

    async def approve(self, request: ToolCallRequest) -> Approval: ...


def title_for(text: str) -> str:
    """A new dialog's title, from its first message (the store's rule)."""
    from visindigo.engine.storage.rows import make_title

    return make_title(text)


def run_group(dialog_id: str) -> str:
    """The worker group of a dialog's run (one run per dialog at a time)."""
    return f"run-{dialog_id}"


class Workbench:
    """The shown dialog, the runs, the tree index; what the main screen's widgets share."""

    def __init__(self, center: Center, *, dialog: Dialog | None = None, host: RunHost | None = None) -> None:
        self.center = center
        self.host = host
        self.runs = Runs()
        #: The dialog on the main screen (its runs, and those of other dialogs, go on in the host).
        self.shown: Dialog = dialog if dialog is not None else Dialog(center)
        self.tree_index = branches.TreeIndex.build([])
        #: The last text copied (text, what), for "save the last copy to a file".
        self.last_copied: tuple[str, str] | None = None
        #: MCP resources that go with each dialog's next message (see `attachments`).
        self.pending_resources: Pending = {}
        #: Files that go with each dialog's next message (the chips over the composer).
        self.pending_files = PendingFiles(self.emit)
        self._usage = UsageTally()
        #: The meter, compaction, pins and the ledger (`workbench.context`).
        self.context = ContextWork(self)
        self._listeners: list[Listener] = []

    # --- listeners ---------------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event from now on; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: WorkbenchEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # one broken listener must not stop the others (or a run)
                log.exception("workbench listener failed on %s", type(event).__name__)

    def forward(self, dialog: Dialog, event: Event) -> None:
        """Tell the listeners of an engine event of `dialog` that the workbench itself caused (outside a run)."""
        self.emit(EngineEvent(dialog.id, event))

    # --- the shown dialog --------------------------------------------------------------------------------

    def is_registered(self, dialog: Dialog) -> bool:
        with _refused_while_repairing():
            return self.center.has_dialog(dialog.id)

    def _register(self, dialog: Dialog) -> bool:
        """Add a dialog made on screen to the Center (so the store keeps it); True when it was new there."""
        if self.is_registered(dialog):
            return False
        self.center.add_dialog(dialog)
        return True

    def is_registered_id(self, dialog_id: str) -> bool:
        with _refused_while_repairing():
            return self.center.has_dialog(dialog_id)

    def show(self, dialog: Dialog) -> Dialog:
        """Make `dialog` the shown one; returns the one shown before."""
        previous = self.shown
        self.shown = dialog
        self.emit(ShownChanged(dialog, previous))
        return previous

    def find(self, dialog_id: str) -> Dialog | None:
        with _refused_while_repairing():
            return self.center.get_dialog(dialog_id)

    def new_dialog(self) -> Dialog | None:
        """A fresh dialog with the shown one's provider and model; None when the shown one is new and empty."""
        if self.shown.message_count == 0 and not self.is_registered(self.shown):
            return None
        fresh = Dialog(self.center)
        fresh.provider_id = self.shown.provider_id
        fresh.model_id = self.shown.model_id
        return fresh

    def set_model(self, dialog: Dialog, provider_id: str, model_id: str) -> None:
        from visindigo.engine.events import DialogChanged  # (the events load after the first frame)

        dialog.provider_id = provider_id
        dialog.model_id = model_id
        self.forward(dialog, DialogChanged("model"))

    def rename(self, dialog: Dialog, title: str) -> None:
        if not self.is_registered(dialog):
            raise Refused("Send a message first; a new dialog is named after it.")
        with _refused_while_repairing():
            self.center.rename_dialog(dialog.id, title)
        self.refresh_tree()

    # --- the tree and search -----------------------------------------------------------------------------

    def refresh_tree(self, select_id: str = "") -> branches.TreeIndex:
        """Rebuild the tree index from the Center's summaries (no messages are loaded); while the store is being
        repaired the tree stays as it was (the app rebuilds it when the repair is done)."""
        try:
            self.tree_index = branches.TreeIndex.build(self.center.dialog_summaries())
        except StoreRepairing:
            log.info("the tree is kept as it was while the store is repaired")
        self.emit(TreeChanged(select_id))
        return self.tree_index

    def parent_of(self, dialog_id: str) -> str | None:
        return self.tree_index.parent(dialog_id)

    def first_branch_of(self, dialog_id: str) -> str | None:
        children = self.tree_index.children.get(dialog_id, [])
        return children[0] if children else None

    def sibling_of(self, dialog_id: str, step: int) -> str | None:
        return self.tree_index.sibling(dialog_id, step)

    def search(self, query: str, *, limit: int = 100) -> list[SearchHit]:
        """The store's full-text search (hits with dialog_id, title, snippet, message_index), after the labels that
        match (labels live in the messages' meta, which the index does not hold; `timeline.labels_found`)."""
        from visindigo.tui.workbench.timeline import labels_found

        found = labels_found(self.center, self.family(self.shown), self.tree_index.root_of, query, limit)
        return [*found, *self.center.search(query, limit=limit)]

    # --- alternatives --------------------------------------------------------------------------------------

    def family(self, dialog: Dialog) -> list[Dialog]:
        """The dialogs of `dialog`'s tree (loaded), or just it when it is not in the tree yet."""
        if dialog.id not in self.tree_index.summaries:
            return [dialog]
        try:
            members = [self.center.get_dialog(dialog_id) for dialog_id in self.tree_index.family(dialog.id)]
        except StoreRepairing:
            return [dialog]  # the alternatives show again once the store is repaired
        return [member for member in members if member is not None]

    def alternatives(self, dialog: Dialog) -> dict[int, list[Dialog]]:
        """Where `dialog` parts from the rest of its family: message index -> the dialogs to step through."""
        return branches.alternatives(dialog, self.family(dialog))

    def positions(self, dialog: Dialog) -> dict[int, tuple[int, int]]:
        """For ◀ n/m ▶: message index -> (position of `dialog` among the alternatives there, how many)."""
        positions = {}
        for index, choices in self.alternatives(dialog).items():
            ids = [choice.id for choice in choices]
            positions[index] = (ids.index(dialog.id) + 1, len(ids))
        return positions

    def step_alternative(self, dialog: Dialog, index: int, step: int) -> Dialog | None:
        """The alternative `step` places from `dialog` at message `index` (wrapping); None if there is none."""
        choices = self.alternatives(dialog).get(index)
        if not choices:
            return None
        ids = [choice.id for choice in choices]
        return choices[(ids.index(dialog.id) + step) % len(ids)]

    # --- sending and branching ---------------------------------------------------------------------------

    def refuse_while_running(self, dialog: Dialog) -> None:
        if self.runs.is_running(dialog.id):
            raise Refused("This dialog is still answering: esc cancels it, or wait.")

    def add_messages(self, dialog: Dialog, messages: Sequence[Message], *, title_from: Message | None = None) -> None:
        """Append messages the user sent (a question, a filled template) and announce them; a dialog without a
        title is named after `title_from` (by default the last of them)."""
        new_in_tree = self._register(dialog) or not dialog.title
        named_after = title_from or (messages[-1] if messages else None)
        if not dialog.title and named_after is not None:
            files = [a.display_name for a in named_after.attachments]  # a question of files alone
            dialog.title = title_for(named_after.content) or named_after.name or ", ".join(files)[:60]
        from visindigo.engine.events import MessageAppended

        for message in messages:
            dialog.append_message(message)
            self.forward(dialog, MessageAppended(dialog.message_count - 1))
        if new_in_tree:
            self.refresh_tree()

    def send(self, text: str | Message, dialog: Dialog | None = None) -> Dialog:
        """Append the user's message (text, or a message such as a filled template) and run the dialog."""
        dialog = dialog or self.shown
        self.refuse_while_running(dialog)
        message = Message(Role.USER, text) if isinstance(text, str) else text
        if message.role is Role.USER:
            if problem := pending_problem(self.center, dialog, self.pending_files):
                raise Refused(problem)
            message = attach_pending(self.center, dialog, self.pending_resources, message, self.pending_files)
        self.add_messages(dialog, [message])
        self.emit(Sent(dialog.id))
        self.start_run(dialog)
        return dialog

    def add_template(self, messages: Sequence[Message], *, send: bool, dialog: Dialog | None = None) -> Message:
        """Add a filled template to the dialog and run it (`send`), or keep its last message back for the composer
        ("edit first"), which is returned. Only a few-shot MCP prompt gives more than one message; all but the
        last go into the dialog either way."""
        dialog = dialog or self.shown
        self.refuse_while_running(dialog)
        *earlier, last = messages
        if earlier or send:
            self.add_messages(dialog, [*earlier, *([last] if send else [])], title_from=last)
            self.refresh_tree()
        if send:
            self.emit(Sent(dialog.id))
            self.start_run(dialog)
        return last

    def send_edited_template(self, template: Message, text: str) -> Dialog:
        """Send a filled template whose text the user edited: still the template's message (named after it)."""
        return self.send(replace(template, content=text, meta=dict(template.meta)))

    def regenerate(self, index: int | None = None, dialog: Dialog | None = None) -> Dialog | None:
        """A new branch with another answer at (or after) message `index`, not started yet; None when there is no
        answer to replace (the dialog ends with the user's message), in which case it runs again in place."""
        dialog = dialog or self.shown
        if self.runs.is_running(dialog.id):
            raise Refused("Wait for the answer to finish, or esc to cancel it, before regenerating.", "information")
        if dialog.message_count == 0:
            raise Refused("Nothing to regenerate yet: send a message first.")
        self._register(dialog)
        child = branches.regenerate(self.center, dialog, index)
        if child is None:
            self.emit(Sent(dialog.id))
            self.start_run(dialog)
            return None
        self.refresh_tree(child.id)
        return child

    def editable_index(self, preferred: int | None = None, dialog: Dialog | None = None) -> int:
        """The message "edit" works on: `preferred` if it is the user's, else the user's last one."""
        dialog = dialog or self.shown
        if (
            preferred is not None
            and 0 <= preferred < dialog.message_count
            and (dialog.message_at(preferred).role in _ASKING)
        ):
            return preferred
        for index in range(dialog.message_count - 1, -1, -1):
            if dialog.message_at(index).role in _ASKING:
                return index
        raise Refused("There is no message of yours to edit yet.")

    def edit(self, index: int, text: str, dialog: Dialog | None = None) -> Dialog:
        """A branch before message `index` with `text` in its place (not started yet)."""
        dialog = dialog or self.shown
        if index >= dialog.message_count or dialog.message_at(index).role not in _ASKING:
            raise Refused("That message can no longer be edited.")
        self._register(dialog)
        child = branches.edit(self.center, dialog, index, text)
        self.refresh_tree(child.id)
        return child

    # --- runs ----------------------------------------------------------------------------------------------

    def start_run(self, dialog: Dialog, *, approve: ApprovalCallback | None = None) -> RunState:
        """Start the dialog's run in the host (refused while one is running); `approve` asks before a tool runs
        instead of the host (a comparison asks in the column that wants the tool)."""
        if self.runs.is_running(dialog.id):
            raise Refused("This dialog is already answering.")
        if self.host is None:
            raise RuntimeError("the workbench has no run host")
        from visindigo.tui.workbench.driving import (
            drive,  # with the engine's events it drives: loaded by the warm-up, not at start
        )

        state = self.runs.new(dialog.id)
        state.running = True
        self.host.start(
            drive(dialog, state, self.emit, approve or self.host.approve),
            name=f"run {dialog.title or dialog.id}",
            group=run_group(dialog.id),
        )
        return state

    def cancel_run(self, dialog_id: str) -> bool:
        """Cancel the dialog's run; the engine keeps the partial answer, marked interrupted."""
        run = self.runs.get(dialog_id)
        if run is None or not run.running or self.host is None:
            return False
        run.cancelling = True
        self.host.cancel(run_group(dialog_id))
        return True

    # --- deleting ------------------------------------------------------------------------------------------

    def delete_plan(self, dialog_id: str) -> branches.DeletePlan:
        summary = self.tree_index.summaries.get(dialog_id)
        if summary is None and not self.is_registered_id(dialog_id):
            raise Refused("That dialog is not saved yet; there is nothing to delete.", "information")
        return branches.DeletePlan(
            (summary.title if summary else "") or "New dialog",
            summary.message_count if summary else 0,
            len(self.tree_index.children.get(dialog_id, [])),
        )

    def delete(self, dialog_id: str) -> Dialog | None:
        """Delete the dialog (its branches move up to its parent); returns what to show instead when it was the
        shown one (its parent, or a new dialog)."""
        self.cancel_run(dialog_id)
        parent = self.tree_index.parent(dialog_id)
        with _refused_while_repairing():
            if not self.center.remove_dialog(dialog_id):
                raise Refused("The dialog could not be deleted (it was not found).")
        self.refresh_tree()
        if self.shown.id != dialog_id:
            return None
        target = self.find(parent) if parent else None
        return target if target is not None else Dialog(self.center)

    # --- status --------------------------------------------------------------------------------------------

    def status(self, dialog: Dialog | None = None) -> StatusInfo:
        dialog = dialog or self.shown
        usage = self._usage.of(dialog, self.center)
        return status_info(self.center, dialog, self.runs.get(dialog.id), usage, self.context.meter(dialog))
