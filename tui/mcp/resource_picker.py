"""Choosing what to attach to the next message: a file under the start folder or an MCP resource (`@` in the
composer, alt+a, or the palette) — one list for both, filtered as you type (fuzzy, as the command palette).

The list holds the dialog's servers' resources and resource templates, then the files under the start folder
(`engine.attachments.files_under`, read in a thread so a large folder never holds the list up). A template
opens its variables as template-form rows; the server's `completion/complete` suggestions for the field being
typed are shown under the form. The screen returns what to attach — a file's path, or a resource's server and
URI — and the main screen reads it, so a slow server or a large file never freezes the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine import MCPServer
from visindigo.engine.mcp.status import ResourceInfo
from visindigo.engine.templates import TemplateField
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.fields import FieldRow
from visindigo.tui.common.modal import ModalFrame, close_on_escape, sanitize

if TYPE_CHECKING:
    from visindigo.engine.mcp import MCPManager


@dataclass(frozen=True, slots=True)
class PickedResource:
    server: MCPServer
    uri: str
    label: str


@dataclass(frozen=True, slots=True)
class PickedFile:
    """A file of the `@` list: its path relative to the start folder."""

    path: str


#: Rows the list shows at once; the filter narrows the rest.
SHOWN_ROWS = 200


def _label(resource: ResourceInfo) -> Content:
    kind = "template " if resource.template else ""
    text = f"{sanitize(resource.server)}/{sanitize(resource.label)}  {kind}{sanitize(resource.uri)}"
    if resource.description:
        text += f" — {sanitize(resource.description)}"
    return Content(text[:200])


class ResourcePickerScreen(ModalFrame[PickedResource | PickedFile | None]):
    BINDINGS = [
        close_on_escape("back", "Back"),
        Binding("ctrl+s", "read_template", "Attach", priority=True, show=False),
        Binding("down", "move(1)", "Next", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
    ]

    DEFAULT_CSS = """
    ResourcePickerScreen OptionList {
        height: auto;
        max-height: 60vh;
    }
    ResourcePickerScreen #template {
        display: none;
        height: auto;
    }
    ResourcePickerScreen.-template #template {
        display: block;
    }
    ResourcePickerScreen.-template OptionList, ResourcePickerScreen.-template #filter {
        display: none;
    }
    ResourcePickerScreen #template-fields {
        height: auto;
        max-height: 50vh;
    }
    ResourcePickerScreen #suggestions {
        color: $text-accent;
    }
    """

    def __init__(
        self, manager: MCPManager | None, servers: list[MCPServer], *, start_folder: str | None = None
    ) -> None:
        super().__init__()
        self.manager = manager
        self.servers = {server.name: server for server in servers}
        self.start_folder = start_folder
        self.resources: list[ResourceInfo] = []
        #: Files under the start folder (relative paths), once listed.
        self.files: list[str] = []
        #: What each shown row stands for: an index into `resources`, or a file path.
        self.rows: list[int | str] = []
        self.template: ResourceInfo | None = None
        self.suggestions: list[str] = []
        self._note = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Attach a file or a resource to the next message"
            frame.border_subtitle = "type to filter · ↑↓ enter choose · esc back"
            yield Input(placeholder="a file or a resource: type part of its name", id="filter", select_on_focus=False)
            yield Static(Content("Listing…"), id="status", classes="hint")
            yield CursorOptionList(id="resources")
            with Vertical(id="template"):
                yield Static("", id="template-title")
                yield VerticalScroll(id="template-fields")
                yield Static("", id="suggestions")
                yield Static("", id="template-error", classes="error")
                with Horizontal(classes="buttons"):
                    yield Button("Attach", variant="primary", id="attach")
                    yield Button("Back", id="back")

    def on_mount(self) -> None:
        self.query_one("#filter", Input).focus()
        if self.start_folder is not None:
            self.list_files(self.start_folder)
        if self.servers and self.manager is not None:
            self.load()
        elif self.start_folder is None:
            self._note = "No MCP server of this dialog offers resources."

    @work(thread=True, exclusive=True, group="files", exit_on_error=False)
    def list_files(self, start_folder: str) -> None:
        from visindigo.engine.attachments import files_under

        files = files_under(start_folder)
        self.app.call_from_thread(self._files_listed, files)

    def _files_listed(self, files: list[str]) -> None:
        self.files = files
        self._refill()

    @work(exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        if self.manager is None:
            return
        try:
            self.resources = await self.manager.list_resources(list(self.servers.values()))
        except Exception as error:  # a server that fails is reported, the picker stays usable
            self._note = f"The servers could not be asked: {sanitize(str(error))}"
        else:
            self._note = "" if self.resources else "None of this dialog's MCP servers offers resources."
        self._refill()

    def _refill(self) -> None:
        """Show what matches the filter: resources first, then files; best matches first once something is typed."""
        from textual.fuzzy import Matcher

        query = self.query_one("#filter", Input).value.strip()
        entries: list[tuple[int | str, str]] = [
            (i, f"{r.server}/{r.label} {r.uri}") for i, r in enumerate(self.resources)
        ]
        entries += [(path, path) for path in self.files]
        if query:
            matcher = Matcher(query)
            scored = [(matcher.match(text), n, key) for n, (key, text) in enumerate(entries)]
            entries = [
                (key, "") for score, n, key in sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
            ]
        self.rows = [key for key, _ in entries[:SHOWN_ROWS]]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [
                Option(_label(self.resources[key]) if isinstance(key, int) else Content(f"📄 {sanitize(key)}"[:200]))
                for key in self.rows
            ]
        )
        if self.rows:
            options.highlighted = 0
        files = f"{len(self.files)} file{'s' if len(self.files) != 1 else ''}"
        found = f"{len(self.resources)} resource(s) and template(s), {files}" if self.servers else files
        shown = f"; {len(entries)} match" if query else ""
        more = f", the first {SHOWN_ROWS} shown" if len(entries) > SHOWN_ROWS else ""
        self.query_one("#status", Static).update(Content(" ".join(x for x in (self._note, found + shown + more) if x)))

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._refill()

    @on(Input.Submitted, "#filter")
    async def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            await self._choose(options.highlighted)

    def action_move(self, step: int) -> None:
        if self.template is None:
            options = self.query_one(OptionList)
            options.action_cursor_down() if step > 0 else options.action_cursor_up()

    @on(OptionList.OptionSelected)
    async def _chosen(self, event: OptionList.OptionSelected) -> None:
        await self._choose(event.option_index)

    async def _choose(self, index: int) -> None:
        if not 0 <= index < len(self.rows):
            return
        key = self.rows[index]
        if isinstance(key, str):
            self.dismiss(PickedFile(key))
            return
        resource = self.resources[key]
        server = self.servers[resource.server]
        if not resource.template:
            self.dismiss(PickedResource(server, resource.uri, resource.label))
            return
        from visindigo.engine.mcp.resources import template_variables

        self.template = resource
        self.query_one("#template-title", Static).update(Content(f"{sanitize(resource.uri)}: fill in its parts"))
        fields = self.query_one("#template-fields", VerticalScroll)
        await fields.remove_children()
        specs = [TemplateField(name, required=True) for name in template_variables(resource.uri)]
        await fields.mount_all([FieldRow(spec, index, "") for index, spec in enumerate(specs)])
        self.add_class("-template")
        rows = list(self.query(FieldRow))
        from visindigo.tui.common.fields import ServerSuggester

        for row in rows:
            if isinstance(row.widget, Input) and self.manager is not None:
                row.widget.suggester = ServerSuggester(
                    self.manager, server, "resource", resource.uri, row.spec.name, self._values
                )
        if rows:
            rows[0].widget.focus()

    def _values(self) -> dict[str, str]:
        return {row.spec.name: row.value() for row in self.query(FieldRow)}

    @on(Input.Changed, "#template-fields Input")
    def _changed(self, event: Input.Changed) -> None:
        row = next((r for r in self.query(FieldRow) if r.widget is event.input), None)
        if row is not None and self.template is not None:
            self.complete(row.spec.name, event.value)

    @work(exclusive=True, group="complete", exit_on_error=False)
    async def complete(self, argument: str, value: str) -> None:
        template = self.template
        if template is None or self.manager is None:
            return
        server = self.servers[template.server]
        context = {k: v for k, v in self._values().items() if k != argument and v}
        self.suggestions = await self.manager.complete(server, "resource", template.uri, argument, value, context)
        shown = ", ".join(sanitize(s) for s in self.suggestions[:8])
        self.query_one("#suggestions", Static).update(Content(f"suggestions: {shown}" if shown else ""))

    @on(Input.Submitted, "#template-fields Input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_read_template()

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "attach":
            self.action_read_template()
        else:
            self.action_back()

    def action_read_template(self) -> None:
        template = self.template
        if template is None:
            return
        values = self._values()
        missing = [name for name, value in values.items() if not value.strip()]
        if missing:
            self.query_one("#template-error", Static).update(Content(f"Fill in {', '.join(missing)}."))
            return
        from visindigo.engine.mcp.resources import expand_template

        uri = expand_template(template.uri, values)
        self.dismiss(PickedResource(self.servers[template.server], uri, uri))

    def action_back(self) -> None:
        if self.template is not None:
            self.template = None
            self.remove_class("-template")
            self.query_one("#filter", Input).focus()
            return
        self.dismiss(None)
