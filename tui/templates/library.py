"""The template library: find a template, fill its form, and hand the message back to the main screen.

`TemplateLibraryScreen(library, dialog)` lists the dialog's, the user's (files) and the Center's templates,
then the prompts of the dialog's MCP servers as they arrive. It dismisses with the form's `TemplateResult`
(after remembering the values typed into the form), or None when closed.

Keys (shown in the frame): enter use · / search · n new · e edit · c duplicate · d delete · ctrl+r reload ·
esc close (from the search box, esc goes back to the list). Typing in the search box filters as you type;
↓ or enter moves to the list.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.events import Key
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine import Dialog, Prompt
from visindigo.engine.templates import Clock
from visindigo.engine.templates.library import TemplateEntry, TemplateError, TemplateLibrary
from visindigo.engine.templates.mcp import MCPPromptTemplate
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, close_on_escape
from visindigo.tui.common.sanitize import clean
from visindigo.tui.templates.editor import SaveCallback, TemplateEditorScreen
from visindigo.tui.templates.form import TemplateFormScreen, TemplateResult
from visindigo.tui.templates.search import highlight, search

#: The detail pane shows at most this much of a template's text.
DETAIL_LIMIT = 4_000

_SOURCE_WORDS = {"dialog": "this dialog", "file": "your library", "center": "built in", "mcp": "MCP server"}


class TemplateLibraryScreen(ModalFrame[TemplateResult | None]):
    BINDINGS = [
        close_on_escape("close"),
        Binding("slash,ctrl+f", "search", "Search", show=False),
        Binding("n,ctrl+n", "new", "New"),
        Binding("e,f4", "edit", "Edit"),
        Binding("c,f5", "duplicate", "Duplicate"),
        Binding("d,delete,f8", "delete", "Delete"),
        Binding("ctrl+r", "reload", "Reload", priority=True),
    ]

    DEFAULT_CSS = """
    TemplateLibraryScreen > #frame {
        width: 110;
        height: 100%;
        max-height: 40;
    }
    TemplateLibraryScreen #search {
        background: $boost;
        margin-bottom: 1;
    }
    TemplateLibraryScreen #search:focus {
        background: $primary 25%;
    }
    TemplateLibraryScreen #search:focus:ansi {
        background: $block-cursor-background;  /* an ANSI colour has no 25% */
        color: $block-cursor-foreground;
    }
    TemplateLibraryScreen #body {
        height: 1fr;
    }
    TemplateLibraryScreen #list {
        width: 2fr;
        height: 100%;
        border: none;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    TemplateLibraryScreen #detail {
        width: 3fr;
        height: 100%;
        padding-left: 1;
        border-left: solid $primary-muted;
        scrollbar-size-vertical: 1;
    }
    TemplateLibraryScreen #status {
        height: auto;
        max-height: 4;
        color: $text-warning;
    }
    """

    def __init__(
        self,
        library: TemplateLibrary,
        dialog: Dialog | None = None,
        *,
        clock: Clock | None = None,
        load_mcp: bool = True,
        files_word: str = "your library",
    ) -> None:
        super().__init__()
        self.library = library
        #: What the folder's templates are called: "your library", or the demo's temporary folder.
        self.files_word = files_word
        self.dialog = dialog
        self.clock = clock
        self.load_mcp = load_mcp
        self._local: list[TemplateEntry] = []
        self._mcp: list[TemplateEntry] = []
        self._shown: list[TemplateEntry] = []

    # --- layout and listing ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="frame", classes="frame") as frame:
            frame.border_title = "Templates"
            frame.border_subtitle = "enter use · / search · n new · e edit · c duplicate · d delete · esc close"
            yield Input(placeholder="/ Search: a few letters of a name, tag or description", id="search", compact=True)
            with Horizontal(id="body"):
                yield CursorOptionList(id="list")
                with VerticalScroll(id="detail"):
                    yield Static("", id="detail-text")
            yield Static("", id="status")

    def _source_word(self, source: str) -> str:
        return self.files_word if source == "file" else _SOURCE_WORDS[source]

    def on_mount(self) -> None:
        self.library.reload()
        self._local = self.library.entries(self.dialog)
        self._refresh_list()
        self._show_problems()
        self.query_one("#list", OptionList).focus()
        servers = self.dialog.effective_mcp_servers() if self.dialog is not None else []
        if self.load_mcp and servers and self._has_mcp_source():
            self._status(f"Asking {len(servers)} MCP server{'s' if len(servers) > 1 else ''} for their prompts…")
            self.run_worker(self._load_mcp(), group="mcp", exclusive=True, exit_on_error=False)

    def _has_mcp_source(self) -> bool:
        """Whether the servers' prompts can be asked for; called only when the dialog has MCP servers.

        The Center's tool source is made on first need (`tool_source_for`), as the run loop does for tools: a
        server that only this dialog brings (no server in the config, so the app made no manager at start)
        still has its prompts listed.
        """
        if self.library.mcp is not None:
            return True
        center = self.dialog.center if self.dialog is not None else None
        if center is None:
            return False
        from visindigo.engine.mcp import tool_source_for  # only now: without servers MCP is never loaded

        return hasattr(tool_source_for(center), "list_prompts")

    async def _load_mcp(self) -> None:
        assert self.dialog is not None
        try:
            self._mcp = await self.library.mcp_entries(self.dialog.effective_mcp_servers(), center=self.dialog.center)
        except Exception as exc:  # a server's failure must not close the library; say what happened
            self._status(f"Could not list the MCP servers' prompts: {clean(str(exc))}")
            return
        self._status("")
        self._show_problems()
        self._refresh_list(keep=self.selected())

    def entries(self) -> list[TemplateEntry]:
        """Everything the library offers now: local templates, then MCP prompts."""
        return self._local + self._mcp

    def shown(self) -> list[TemplateEntry]:
        """The entries the list shows (after the search)."""
        return list(self._shown)

    def selected(self) -> TemplateEntry | None:
        index = self.query_one("#list", OptionList).highlighted
        return self._shown[index] if index is not None and 0 <= index < len(self._shown) else None

    def _refresh_list(self, keep: TemplateEntry | None = None) -> None:
        query = self.query_one("#search", Input).value
        self._shown = search(self.entries(), query, lambda e: (e.name, " ".join(e.tags), e.description))
        option_list = self.query_one("#list", OptionList)
        option_list.clear_options()
        option_list.add_options(
            Option(Content.assemble(highlight(clean(e.name), query), ("  " + self._source_word(e.source), "dim")))
            for e in self._shown
        )
        if self._shown:
            index = next((i for i, e in enumerate(self._shown) if keep is not None and e.key == keep.key), 0)
            option_list.highlighted = index
        self._show_detail(self.selected())

    def _show_detail(self, entry: TemplateEntry | None) -> None:
        detail = self.query_one("#detail-text", Static)
        if entry is None:
            query = self.query_one("#search", Input).value
            text = f"No template matches {query!r}." if query else "No templates yet: press n to write one."
            detail.update(Content(text))
            return
        parts: list[str | tuple[str, str]] = [(clean(entry.name), "bold"), "\n"]
        where = self._source_word(entry.source)
        if entry.path is not None:
            where += f" — {entry.path.name}"
        parts.append((where + "\n", "dim"))
        if entry.tags:
            parts.append(("tags: " + clean(", ".join(entry.tags)) + "\n", "dim"))
        if entry.description:
            parts.append(clean(entry.description) + "\n")
        fields = entry.fields()
        if fields:
            described = ", ".join(f"{f.name}{'*' if f.required else ''} ({f.type})" for f in fields)
            parts.append(("\nFields: " + clean(described) + "\n", "italic"))
        template = entry.template
        if isinstance(template, Prompt):
            content = template.content
            if len(content) > DETAIL_LIMIT:
                content = content[:DETAIL_LIMIT] + "\n…"
            parts.append("\n" + clean(content))
        else:
            parts.append(("\nThe server writes the text when the prompt is used.", "dim"))
        detail.update(Content.assemble(*parts))

    def _show_problems(self) -> None:
        problems = self.library.problems
        if problems:
            listed = "; ".join(str(p) for p in problems[:3]) + (" …" if len(problems) > 3 else "")
            count = len(problems)
            self._status(
                f"{count} template file{'s' if count > 1 else ''} could not be read and "
                f"{'were' if count > 1 else 'was'} skipped (fix, then ctrl+r): {clean(listed)}"
            )

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(Content(text))

    # --- searching ----------------------------------------------------------------------------------------

    @on(Input.Changed, "#search")
    def _search_changed(self) -> None:
        self._refresh_list()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_use()

    def on_key(self, event: Key) -> None:
        search = self.query_one("#search", Input)
        if self.focused is search and event.key in ("down", "up"):
            event.stop()
            option_list = self.query_one("#list", OptionList)
            option_list.focus()
            if event.key == "up":
                option_list.action_cursor_up()

    @on(OptionList.OptionHighlighted, "#list")
    def _highlighted(self) -> None:
        self._show_detail(self.selected())

    @on(OptionList.OptionSelected, "#list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_use()

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_close(self) -> None:
        search = self.query_one("#search", Input)
        if self.focused is search:
            self.query_one("#list", OptionList).focus()
            return
        self.dismiss(None)

    def action_reload(self) -> None:
        keep = self.selected()
        self._status("")
        self.library.reload()
        self._local = self.library.entries(self.dialog)
        self._show_problems()
        self._refresh_list(keep=keep)

    # --- using a template -------------------------------------------------------------------------------------

    def action_use(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        remembered = self.library.remembered(entry.key)

        def done(result: TemplateResult | None) -> None:
            if result is None:
                if isinstance(entry.template, MCPPromptTemplate):
                    # Esc from a server prompt's form goes back to the dialog, not to a list that may still be
                    # waiting on the servers.
                    self.dismiss(None)
                return
            try:
                self.library.remember(entry.key, result.values)
            except OSError as exc:
                self.notify(f"The form's values were not saved for next time: {exc}", severity="warning")
            self.dismiss(result)

        self.app.push_screen(TemplateFormScreen(entry.template, remembered, clock=self.clock), done)

    # --- managing files ----------------------------------------------------------------------------------------

    def action_new(self) -> None:
        self._open_editor(None, lambda prompt: self._save(lambda: self.library.create(prompt)))

    def action_edit(self) -> None:
        entry = self._editable("edit", "edited")
        if entry is None:
            return
        assert isinstance(entry.template, Prompt)
        name = entry.name
        self._open_editor(entry.template, lambda prompt: self._save(lambda: self.library.update(name, prompt)))

    def action_duplicate(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        if not isinstance(entry.template, Prompt):
            self._status("A server prompt cannot be copied: its text only exists on the server.")
            return
        template = entry.template
        refusal = self._save(lambda: self.library.duplicate(template))
        if refusal:
            self._status(refusal)

    def action_delete(self) -> None:
        entry = self._editable("delete", "deleted")
        if entry is None or entry.path is None:
            return
        name = entry.name
        body = f"The file {entry.path.name} moves to {self.library.folder / '.trash'}; you can put it back from there."

        def answered(confirmed: bool | None) -> None:
            if not confirmed:
                return
            try:
                self.library.delete(name)
            except TemplateError as exc:
                self._status(str(exc))
                return
            self._status(f"Deleted {name!r} (moved to .trash).")
            self._local = self.library.entries(self.dialog)
            self._refresh_list()

        self.app.push_screen(ConfirmScreen(f"Delete {clean(name)!r}?", body, "Delete", danger=True), answered)

    def _editable(self, verb: str, participle: str) -> TemplateEntry | None:
        entry = self.selected()
        if entry is None:
            return None
        if not entry.editable:
            if entry.source == "mcp":
                self._status(f"A server prompt cannot be {participle} here: it lives on its MCP server.")
            else:
                self._status(
                    f"{entry.name!r} comes from {self._source_word(entry.source)}, not from a file: "
                    f"press c to copy it into {self.files_word}, then {verb} the copy."
                )
            return None
        return entry

    def _open_editor(self, initial: Prompt | None, save: SaveCallback) -> None:
        self.app.push_screen(TemplateEditorScreen(initial, save))

    def _save(self, write: Callable[[], TemplateEntry]) -> str | None:
        """Run a library write; refresh the list on success, return the refusal otherwise."""
        try:
            entry = write()
        except TemplateError as exc:
            return str(exc)
        self._status("")
        self._local = self.library.entries(self.dialog)
        self._refresh_list(keep=entry)
        return None
