"""Choosing an MCP resource to attach to the next message (`@` in the composer, or the palette).

The list holds every resource and resource template of the dialog's servers. A template opens its variables
as template-form rows; the server's `completion/complete` suggestions for the field being typed are shown
under the form. The screen returns what to read — the server and the URI —
and the main screen reads and attaches it, so a slow server never freezes the list.
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
from visindigo.tui.common.fields import FieldRow
from visindigo.tui.common.modal import ModalFrame, sanitize

if TYPE_CHECKING:
    from visindigo.engine.mcp import MCPManager


@dataclass(frozen=True, slots=True)
class PickedResource:
    server: MCPServer
    uri: str
    label: str


def _label(resource: ResourceInfo) -> Content:
    kind = "template " if resource.template else ""
    text = f"{sanitize(resource.server)}/{sanitize(resource.label)}  {kind}{sanitize(resource.uri)}"
    if resource.description:
        text += f" — {sanitize(resource.description)}"
    return Content(text[:200])


class ResourcePickerScreen(ModalFrame[PickedResource | None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+s", "read_template", "Attach", priority=True, show=False),
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
    ResourcePickerScreen.-template OptionList {
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

    def __init__(self, manager: MCPManager, servers: list[MCPServer]) -> None:
        super().__init__()
        self.manager = manager
        self.servers = {server.name: server for server in servers}
        self.resources: list[ResourceInfo] = []
        self.template: ResourceInfo | None = None
        self.suggestions: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Attach a resource to the next message"
            frame.border_subtitle = "enter choose · esc back"
            yield Static(Content("Asking the servers…"), id="status", classes="hint")
            yield OptionList(id="resources")
            with Vertical(id="template"):
                yield Static("", id="template-title")
                yield VerticalScroll(id="template-fields")
                yield Static("", id="suggestions")
                yield Static("", id="template-error", classes="error")
                with Horizontal(classes="buttons"):
                    yield Button("Attach", variant="primary", id="attach")
                    yield Button("Back", id="back")

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        status = self.query_one("#status", Static)
        try:
            self.resources = await self.manager.list_resources(list(self.servers.values()))
        except Exception as error:  # a server that fails is reported, the picker stays usable
            status.update(Content(f"The servers could not be asked: {sanitize(str(error))}"))
            return
        options = self.query_one(OptionList)
        options.add_options([Option(_label(r), id=str(i)) for i, r in enumerate(self.resources)])
        if not self.resources:
            status.update(Content("None of this dialog's MCP servers offers resources."))
        else:
            status.update(Content(f"{len(self.resources)} resource(s) and template(s)."))
            options.highlighted = 0
            options.focus()

    @on(OptionList.OptionSelected)
    async def _chosen(self, event: OptionList.OptionSelected) -> None:
        resource = self.resources[int(event.option.id or 0)]
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
            if isinstance(row.widget, Input):
                row.widget.suggester = ServerSuggester(
                    self.manager, server, "resource", resource.uri, row.spec.name, self._values
                )
        if rows:
            rows[0].widget.focus()

    def _values(self) -> dict[str, str]:
        return {row.spec.name: row.value() for row in self.query(FieldRow)}

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        row = next((r for r in self.query(FieldRow) if r.widget is event.input), None)
        if row is not None and self.template is not None:
            self.complete(row.spec.name, event.value)

    @work(exclusive=True, group="complete", exit_on_error=False)
    async def complete(self, argument: str, value: str) -> None:
        template = self.template
        if template is None:
            return
        server = self.servers[template.server]
        context = {k: v for k, v in self._values().items() if k != argument and v}
        self.suggestions = await self.manager.complete(server, "resource", template.uri, argument, value, context)
        shown = ", ".join(sanitize(s) for s in self.suggestions[:8])
        self.query_one("#suggestions", Static).update(Content(f"suggestions: {shown}" if shown else ""))

    @on(Input.Submitted)
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
            self.query_one(OptionList).focus()
            return
        self.dismiss(None)
