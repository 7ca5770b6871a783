"""Tools from installed packages (entry-point group `visindigo.tools`): see them, and switch them on.

Every tool is off until the user enables it — for this dialog (until the app closes) or for every dialog
(saved as `[tools] enabled` in config.toml). Like an MCP tool, each call asks first unless the user allows
the tool to run without asking (`[tools] allow`). A package's code is imported only when one of its tools is
enabled; one that fails to load is reported here, with its package, and changes nothing.

Keys (shown in the frame): d this dialog · g every dialog · a ask / run without asking · esc close.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine.center import Center
from visindigo.engine.config import ConfigError, set_package_tool
from visindigo.engine.dialog import Dialog
from visindigo.engine.plugins import DiscoveredTools, PluginError, PluginTool, ToolEntry, discover_tools, load_tool
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe


class PackageToolsScreen(ModalFrame[None]):
    BINDINGS = [
        close_on_escape("close"),
        Binding("d", "toggle_dialog", "This dialog"),
        Binding("g", "toggle_global", "Every dialog"),
        Binding("a", "toggle_allow", "Ask / allow"),
    ]

    DEFAULT_CSS = """
    PackageToolsScreen > .frame {
        width: 96;
        max-height: 90%;
    }
    PackageToolsScreen #tools {
        height: auto;
        max-height: 14;
        margin-top: 1;
    }
    PackageToolsScreen #detail {
        height: auto;
        margin-top: 1;
    }
    """

    def __init__(self, center: Center, dialog: Dialog, found: DiscoveredTools | None = None) -> None:
        super().__init__()
        self.center = center
        self.dialog = dialog
        self.found = found if found is not None else discover_tools()
        self._loaded: dict[str, list[PluginTool]] = {}
        config = center.config
        self._global = set(config.enabled_tools) if config is not None else set()
        self._allowed = set(config.allowed_tools) if config is not None else set()

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Tools from packages"
            frame.border_subtitle = "d this dialog · g every dialog · a ask/allow · esc close"
            yield Static(
                "Off until you enable one. Each call asks first, as MCP tools do, unless you allow it.", classes="hint"
            )
            yield CursorOptionList(id="tools")
            yield Static("", id="detail")
            yield Static("", id="status", classes="hint")

    def on_mount(self) -> None:
        self._refresh()
        if not self.found.tools:
            self._say(
                "No installed package offers tools (entry-point group visindigo.tools); the docs' page “Tools from "
                "packages” (docs/package-tools.md) shows how."
            )
        elif self.found.problems:
            self._say("; ".join(self.found.problems))
        self.query_one(OptionList).focus()

    # --- state -----------------------------------------------------------------------------------------------

    def state_of(self, entry: ToolEntry) -> str:
        """ "every dialog", "this dialog" or "off"."""
        if entry.key in self._global:
            return "every dialog"
        tools = self._loaded.get(entry.key)
        if tools and all(self.dialog.function_ids.count(t.id) for t in tools):
            return "this dialog"
        return "off"

    def _row(self, entry: ToolEntry) -> Content:
        state = self.state_of(entry)
        mark = "○" if state == "off" else "●"
        asks = "runs without asking" if entry.key in self._allowed else "asks first"
        return Content.assemble(
            f"{mark} ",
            (f"{entry.key:<20}", "bold"),
            f" {entry.package} {entry.version}".ljust(34),
            (f" {state} · {asks}", "dim"),
        )

    def _refresh(self) -> None:
        option_list = self.query_one(OptionList)
        keep = option_list.highlighted
        option_list.clear_options()
        option_list.add_options(Option(self._row(entry)) for entry in self.found.tools)
        if self.found.tools:
            option_list.highlighted = min(keep or 0, len(self.found.tools) - 1)
        self._show_detail()

    def selected(self) -> ToolEntry | None:
        index = self.query_one(OptionList).highlighted
        return self.found.tools[index] if index is not None and 0 <= index < len(self.found.tools) else None

    @on(OptionList.OptionHighlighted)
    def _show_detail(self) -> None:
        entry = self.selected()
        detail = self.query_one("#detail", Static)
        if entry is None:
            detail.update("")
            return
        lines = [f"{entry.package} {entry.version} — {entry.target}"]
        for tool in self._loaded.get(entry.key, []):
            lines.append(f"  {tool.id}: {tool.description.splitlines()[0] if tool.description else ''}")
        detail.update(safe("\n".join(lines)))

    def _say(self, text: str) -> None:
        self.query_one("#status", Static).update(safe(text))

    def _tools(self, entry: ToolEntry) -> list[PluginTool] | None:
        if entry.key not in self._loaded:
            try:
                self._loaded[entry.key] = load_tool(entry, allowed=self._allowed)
            except PluginError as error:
                self._say(str(error))
                return None
        return self._loaded[entry.key]

    # --- actions ---------------------------------------------------------------------------------------------

    def action_toggle_dialog(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        if entry.key in self._global:
            self._say(f"{entry.key} is on for every dialog; g switches that off.")
            return
        tools = self._tools(entry)
        if tools is None:
            return
        if self.state_of(entry) == "this dialog":
            for tool in tools:
                self.dialog.remove_function(tool.id)
            self._say(f"{entry.key} is off for this dialog.")
        else:
            for tool in tools:
                self.dialog.add_function(tool)
            self._say(f"{entry.key} is on for this dialog until the app closes: " + ", ".join(t.id for t in tools))
        self._refresh()

    def action_toggle_global(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        tools = self._tools(entry)
        if tools is None:
            return
        turn_on = entry.key not in self._global
        if not self._save(entry.key, enabled=turn_on):
            return
        for tool in tools:
            if turn_on:
                self.center.add_function(tool)
            else:
                self.center.remove_function(tool.id)
                self.dialog.remove_function(tool.id)
        self._global.symmetric_difference_update({entry.key})
        where = "saved in config.toml" if self.center.paths is not None else "for this session (no config file)"
        self._say(f"{entry.key} is {'on' if turn_on else 'off'} for every dialog ({where}).")
        self._refresh()

    def action_toggle_allow(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        allow = entry.key not in self._allowed
        if not self._save(entry.key, allowed=allow):
            return
        self._allowed.symmetric_difference_update({entry.key})
        for tool in self._loaded.get(entry.key, []):
            tool.requires_approval = not allow
        self._say(f"{entry.key} {'runs without asking' if allow else 'asks before each call'}.")
        self._refresh()

    def _save(self, key: str, **change: bool) -> bool:
        if self.center.paths is None:
            return True
        try:
            set_package_tool(self.center.paths, key, **change)
        except ConfigError as error:
            self._say(str(error))
            return False
        return True

    def action_close(self) -> None:
        self.dismiss(None)
