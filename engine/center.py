"""Center: the registry of dialogs and of everything shared between them.

Functions, skills, MCP servers and prompts registered here apply to every dialog unless a dialog attaches
its own item of the same id or name. Providers live here too, with the default one used by dialogs that do
not choose. A Center made with `Center()` is in memory; `Center.open(home)` gives one backed by the store.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .applog import register_secrets
from .dialog import Dialog
from .function import Function, check_function_id
from .lookup import DialogSummary, SearchHit, ToolSource
from .mcp_server import MCPServer
from .prompt import Prompt
from .provider import Provider
from .sanitize import clean_line
from .skill import Skill

if TYPE_CHECKING:
    from .approval import ApprovalCallback
    from .compare.picks import Pick
    from .config.model import Config
    from .events import Event
    from .paths import Paths
    from .storage.inbox import Entry
    from .storage.store import Store


class Center:
    """Owns dialogs and the global configuration; dialogs are destroyed through `remove_dialog`."""

    def __init__(self) -> None:
        self._dialogs: dict[str, Dialog] = {}
        self._functions: dict[str, Function] = {}
        self._skills: dict[str, Skill] = {}
        self._mcp_servers: dict[str, MCPServer] = {}
        self._prompts: dict[str, Prompt] = {}
        self._providers: dict[str, Provider] = {}
        self.default_provider_id = ""
        #: Set when MCP servers are configured; imported lazily so the SDK loads only when needed.
        self.tool_source: ToolSource | None = None
        #: Run-loop settings (for example `max_tool_rounds`).
        self.settings: dict[str, Any] = {}
        #: The dialog store when opened with `Center.open`; None keeps everything in memory.
        self.store: Store | None = None
        #: Where config and data live (set by `Center.open`).
        self.paths: Paths | None = None
        #: The configuration read by `Center.open` (None for an in-memory Center).
        self.config: Config | None = None
        #: What the user should be told after opening: config problems, a store moved aside, recovered replies.
        self.notices: list[str] = []
        self._picks: list[Pick] = []
        self._inbox_taken: list[str] = []  # see `take_inbox`

    @classmethod
    def open(
        cls,
        home: str | os.PathLike[str] | None = None,
        *,
        config_path: str | os.PathLike[str] | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        read_only: bool = False,
        on_salvage: Callable[[str, int, int], None] | None = None,
    ) -> Center:
        """A Center backed by the store, configured from the config file (see `engine.storage.open_center`).

        Raises `StoreLocked` when another instance uses the data directory and `StoreError` when the store
        cannot be used; config problems do not raise, they are listed in `notices`.
        """
        from .storage.opening import open_center

        return open_center(
            cls, home, config_path=config_path, data_dir=data_dir, read_only=read_only, on_salvage=on_salvage
        )

    @property
    def read_only(self) -> bool:
        """The store is read beside another instance that writes it: dialogs opened, changed or started here
        stay in memory, and nothing is renamed or deleted in the store."""
        return self.store is not None and self.store.read_only

    def attach_store(self, store: Store) -> None:
        """Persist every dialog from now on; dialogs already here are written to the store."""
        self.store = store
        for dialog in self._dialogs.values():
            store.track(dialog)

    def close(self) -> None:
        """Write what is pending and close the store (releasing the data directory); safe to repeat."""
        if self.store is not None:
            self.store.close()

    # --- dialogs ------------------------------------------------------------------------------------------

    def create_dialog(self, *, branch_from: Dialog | str | None = None) -> Dialog:
        """A new empty dialog registered here; `branch_from` records the dialog it replaces."""
        dialog = Dialog(self)
        if branch_from is not None:
            dialog.branch_from_id = branch_from if isinstance(branch_from, str) else branch_from.id
        self.add_dialog(dialog)
        return dialog

    def regenerate(self, dialog: Dialog) -> Dialog:
        """A new dialog that replaces `dialog` for another answer: a copy cut before the last assistant answer.

        Nothing is deleted: the old dialog keeps its answer, the new one points at it through
        `branch_from_id`, and running the new one produces the alternative. Tool results that came before
        the last answer are kept (the spec's truncation point), so regenerating never re-runs a tool.
        """
        cut = dialog.find_last_assistant_message()
        return self.branch_at(dialog, cut if cut >= 0 else dialog.message_count)

    def branch_at(self, dialog: Dialog, message_count: int) -> Dialog:
        """A new dialog holding `dialog`'s first `message_count` messages, branched from it.

        Editing an earlier question uses this: branch before the question, then append the edited one. The
        dialog's own functions are attached to the branch too: `copy_to` leaves them out because a function
        cannot be owned twice in the spec's C++, but here both dialogs share the objects and the branch must
        offer the same tools.
        """
        branch = Dialog(self)
        dialog.copy_to(branch)
        branch.truncate_to(message_count)
        branch.title = dialog.title
        branch.branch_from_id = dialog.id
        for function_id in dialog.function_ids:
            branch.add_function(dialog.get_function(function_id))
        self.add_dialog(branch)
        return branch

    def run_dialog(self, dialog: Dialog, *, approve: ApprovalCallback | None = None) -> AsyncIterator[Event]:
        """Run one of this Center's dialogs (what `Dialog.run` asks of its Center); see `engine.run_loop`."""
        from .run_loop import run_dialog

        return run_dialog(dialog, approve=approve)

    def add_dialog(self, dialog: Dialog) -> Dialog:
        """Register a dialog (with a store: write it whole and persist its changes from now on)."""
        dialog.center = self
        self._dialogs[dialog.id] = dialog
        if self.store is not None:
            self.store.track(dialog)
        return dialog

    def get_dialog(self, dialog_id: str) -> Dialog | None:
        """The dialog of that id; with a store, one not opened yet is loaded (messages and all) now. Read beside
        the writer, a dialog waiting in the store's inbox is read from there (`engine.storage.inbox`)."""
        dialog = self._dialogs.get(dialog_id)
        if dialog is None and self.read_only and self.store is not None:
            waiting = self._inbox().get(dialog_id)
            if waiting is not None:
                dialog, dialog.center = waiting.dialog, self
        if dialog is None and self.store is not None:
            dialog = self.store.load_dialog(dialog_id, self)
        if dialog is not None:
            self._dialogs[dialog_id] = dialog
        return dialog

    def has_dialog(self, dialog_id: str) -> bool:
        """Whether a dialog of that id exists, without loading it."""
        if dialog_id in self._dialogs or (self.read_only and dialog_id in self._inbox()):
            return True
        return self.store is not None and self.store.has_dialog(dialog_id)

    def remove_dialog(self, dialog_id: str) -> bool:
        """Forget a dialog; its branches now point at its parent, so none becomes unreachable.

        With a store the dialog is deleted from it, and branches not opened yet are re-pointed there too.
        """
        if self.read_only:
            return False
        dialog = self._dialogs.pop(dialog_id, None)
        parent = dialog.branch_from_id if dialog is not None else None
        if parent is None and self.store is not None:
            parent = self.store.parent_of(dialog_id)
        if parent is None:
            return False
        for other in self._dialogs.values():
            if other.branch_from_id == dialog_id:
                other.branch_from_id = parent
        if dialog is not None:
            dialog.center = None
        if self.store is not None:
            self.store.delete_dialog(dialog_id)
        return True

    def rename_dialog(self, dialog_id: str, title: str) -> bool:
        """Set a dialog's title (an empty one lets the first user message name it); False if there is none."""
        dialog = self.get_dialog(dialog_id) if self.read_only else self._dialogs.get(dialog_id)
        if dialog is not None:
            dialog.title = title
            return True
        return self.store is not None and self.store.set_title(dialog_id, title)

    @property
    def dialogs(self) -> list[Dialog]:
        """Every dialog. With a store this loads all of them: list the tree with `dialog_summaries()`."""
        if self.store is not None:
            for dialog_id in self.store.dialog_ids():
                self.get_dialog(dialog_id)
        return list(self._dialogs.values())

    def label_search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        """Messages whose label (`meta["label"]`, a short name the user put on a message) holds every word of
        `query` (a leading # is ignored), newest first, in every dialog, opened or not. The snippet is "#label"."""
        words = [word.lstrip("#") for word in query.casefold().split() if word.lstrip("#")]
        if not words or limit <= 0:
            return []
        if self.store is not None:
            rows = [(d, t, p, _label_in(m)) for d, t, p, m in self.store.labelled_rows()]
        else:
            rows = [
                (dialog.id, dialog.title, index, str(message.meta.get("label") or ""))
                for dialog in reversed(list(self._dialogs.values()))
                for index, message in enumerate(dialog.messages)
                if message.meta and message.meta.get("label")
            ]
        hits = []
        for dialog_id, title, position, label in rows:
            if label and all(word in label.casefold() for word in words):
                hits.append(SearchHit(dialog_id, title, position, f"#{clean_line(label, 40)}"))
                if len(hits) >= limit:
                    break
        return hits

    def search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        """Dialogs whose messages contain every word of `query` (any case), one hit per dialog.

        With a store this is a full-text search over every dialog, opened or not; in memory it scans.
        """
        if self.store is not None:
            return self.store.search(query, limit=limit)
        from .storage.search import content_matches, make_snippet, query_terms

        terms = query_terms(query)
        hits: list[SearchHit] = []
        for dialog in self._dialogs.values() if terms else ():
            for index, message in enumerate(dialog.messages):
                if content_matches(message.content, terms):
                    snippet, spans = make_snippet(message.content, terms)
                    hits.append(SearchHit(dialog.id, dialog.title, index, snippet, spans))
                    break
            if len(hits) >= limit:
                break
        return hits

    def dialog_summaries(self) -> list[DialogSummary]:
        """What the dialog tree shows; with a store it comes from metadata alone, no message is read."""
        if self.store is not None and not self.read_only:
            self._take_inbox()
            return self.store.summaries()
        in_memory = [
            DialogSummary(
                id=d.id,
                branch_from_id=d.branch_from_id,
                title=d.title,
                provider_id=d.provider_id,
                model_id=d.model_id,
                created_at=d.created_at,
                updated_at=d.created_at,
                message_count=d.message_count,
            )
            for d in self._dialogs.values()
        ]
        if self.store is None:
            return in_memory
        # read-only: what the writer saved, what waits in its inbox over that, and this instance's own (unsaved)
        # dialogs and changes over both
        mine = {summary.id: summary for summary in in_memory}
        waiting = {dialog_id: entry.summary() for dialog_id, entry in self._inbox().items()}
        stored = []
        for summary in [waiting.pop(s.id, s) for s in self.store.summaries()] + list(waiting.values()):
            own = mine.pop(summary.id, None)
            if own is not None:
                summary = replace(summary, title=own.title, message_count=own.message_count)
            stored.append(summary)
        return stored + list(mine.values())

    def take_inbox(self) -> list[str]:
        """Move the dialogs `visindigo ask` left in the store's inbox into it (`engine.storage.inbox`; a bad file
        is set aside and told through the store's `on_error`). The ids taken in since the last call, by it or by a
        listing (which takes the inbox in first): a caller that shows the tree knows to redraw it."""
        self._take_inbox()
        taken, self._inbox_taken = self._inbox_taken, []
        return taken

    def _take_inbox(self) -> None:
        if self.store is None or self.read_only:
            return
        from .storage.inbox import Inbox

        written, problems = Inbox(self.store.path.parent).take_into(self.store, loaded=self._dialogs)
        self._inbox_taken += written
        for problem in problems:
            self.store.report_error(problem)

    def _inbox(self) -> dict[str, Entry]:
        """The dialogs waiting in the inbox of the store read here, by id (`Inbox.latest`)."""
        from .storage.inbox import Inbox

        return Inbox(self.store.path.parent).latest() if self.store is not None else {}

    # --- picks of comparisons -------------------------------------------------------------------------------

    def record_pick(self, pick: Pick, *, in_memory: bool = False) -> Pick:
        """Keep the user's choice among a comparison's answers (in the store when there is one, where a read-only
        Center keeps it in memory); returns it with its row id. `in_memory`: for this session only (the store
        refused it), so the scores still count it until the app is closed."""
        if self.store is not None and not self.read_only and not in_memory:
            pick = replace(pick, id=self.store.record_pick(pick))
        else:
            pick = replace(pick, id=len(self._picks) + 1)
            self._picks.append(pick)
        return pick

    def picks(self) -> list[Pick]:
        """Every pick recorded, oldest first (what `engine.compare.scores` rates from)."""
        stored = self.store.picks() if self.store is not None else []
        return sorted([*stored, *self._picks], key=lambda pick: (pick.created_at, pick.id))

    # --- functions ----------------------------------------------------------------------------------------

    def add_function(self, function: Function | None) -> Center:
        if function is not None:
            check_function_id(function.id)
            self._functions[function.id] = function
        return self

    def add_functions(self, functions: Iterable[Function]) -> Center:
        for function in functions:
            self.add_function(function)
        return self

    def remove_function(self, function_id: str) -> Center:
        self._functions.pop(function_id, None)
        return self

    def get_function(self, function_id: str) -> Function | None:
        return self._functions.get(function_id)

    @property
    def function_ids(self) -> list[str]:
        return list(self._functions)

    # --- skills, MCP servers, prompts ---------------------------------------------------------------------

    def add_skill(self, skill: Skill) -> Center:
        self._skills[skill.name] = skill
        return self

    def remove_skill(self, name: str) -> Center:
        self._skills.pop(name, None)
        return self

    @property
    def skills(self) -> list[Skill]:
        return list(self._skills.values())

    def add_mcp(self, server: MCPServer) -> Center:
        self._mcp_servers[server.name] = server
        return self

    def remove_mcp(self, name: str) -> Center:
        self._mcp_servers.pop(name, None)
        return self

    @property
    def mcp_servers(self) -> list[MCPServer]:
        return list(self._mcp_servers.values())

    def add_prompt(self, prompt: Prompt) -> Center:
        self._prompts[prompt.name] = prompt
        return self

    def remove_prompt(self, name: str) -> Center:
        self._prompts.pop(name, None)
        return self

    def get_prompt(self, name: str) -> Prompt | None:
        return self._prompts.get(name)

    @property
    def prompts(self) -> list[Prompt]:
        return list(self._prompts.values())

    # --- providers ----------------------------------------------------------------------------------------

    def add_provider(self, provider: Provider) -> Center:
        register_secrets(provider.secrets())  # the app's log masks them (engine/applog.py)
        self._providers[provider.id] = provider
        if not self.default_provider_id:
            self.default_provider_id = provider.id
        return self

    def remove_provider(self, provider_id: str) -> Center:
        self._providers.pop(provider_id, None)
        if self.default_provider_id == provider_id:
            self.default_provider_id = next(iter(self._providers), "")
        return self

    def get_provider(self, provider_id: str) -> Provider | None:
        return self._providers.get(provider_id)

    @property
    def providers(self) -> list[Provider]:
        return list(self._providers.values())

    @property
    def default_provider(self) -> Provider | None:
        return self._providers.get(self.default_provider_id)

    async def aclose(self) -> None:
        """Release network clients and servers and close the store; safe to call more than once."""
        for provider in self._providers.values():
            await provider.aclose()
        if self.tool_source is not None:
            await self.tool_source.aclose()
        self.close()


def _label_in(meta: str) -> str:
    """The label in a message's stored meta JSON ("" for none, or for meta that does not read as JSON)."""
    try:
        value = json.loads(meta)
    except ValueError:
        return ""
    label = value.get("label") if isinstance(value, dict) else None
    return label if isinstance(label, str) else ""
