"""The MCP server manager: each server with its live status; add, edit, enable/disable, restart, remove,
and import the servers of a Claude-Desktop style JSON file.

Changes are written through the config writer first and applied to the Center only when the write
succeeded. Status comes from the MCP manager (`status(name)`, `restart(server)`, `stop(name)`); the screen
polls it once a second while open, so a server that is starting shows when it is up.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from visindigo.engine import config as config_writer
from visindigo.engine.center import Center
from visindigo.engine.config import ConfigError
from visindigo.engine.mcp.importing import claude_desktop_config_path, load_mcp_servers_file
from visindigo.engine.mcp.status import ServerState, ServerStatus
from visindigo.engine.mcp_server import MCPServer
from visindigo.engine.paths import Paths
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.common.cursor_rows import CursorDataTable
from visindigo.tui.common.modal import ModalFrame, close_on_escape, sanitize
from visindigo.tui.mcp.form import MCPServerFormScreen
from visindigo.tui.mcp.import_screen import ImportScreen
from visindigo.tui.mcp.sign_in import ManagerActions, ServerControl
from visindigo.tui.mcp.tool_lines import policy_text, tool_lines

__all__ = ["ImportScreen", "MCPServerFormScreen", "MCPServersScreen", "ServerControl"]


def _cell(text: str, style: str = "") -> Text:
    return Text(sanitize(text), style=style, no_wrap=True, overflow="ellipsis")


def _where(server: MCPServer) -> str:
    if server.kind == "stdio":
        return " ".join([server.command, *server.args])
    return server.url


_FROM_CENTER: Any = object()

STATE_STYLE = {"running": "bold", "failed": "bold reverse", "starting": "italic", "stopped": "dim", "disabled": "dim"}


class MCPServersScreen(ModalFrame[bool]):
    """Dismisses with True when the configuration changed.

    `paths` defaults to the Center's (`center.paths`); None changes the Center only, nothing is saved.
    `manager` defaults to the Center's tool source when it can report status (the `MCPManager`); None shows
    no live status.
    """

    BINDINGS = [
        close_on_escape("close"),
        Binding("a", "add", "Add"),
        Binding("e", "edit", "Edit"),
        Binding("space", "toggle_selected", "Enable / disable"),
        Binding("r", "restart", "Restart"),
        Binding("o", "sign_in", "Sign in (OAuth)"),
        Binding("O", "sign_out", "Sign out", show=False),
        Binding("i", "import", "Import JSON"),
        Binding("delete,x", "remove", "Remove"),
    ]

    DEFAULT_CSS = """
    MCPServersScreen > .frame {
        width: 110;
        height: 100%;
        max-height: 32;
    }
    MCPServersScreen DataTable {
        height: 1fr;
        margin-top: 1;
    }
    MCPServersScreen #detail-box {
        height: auto;
        min-height: 5;
        max-height: 12;
        margin-top: 1;
    }
    MCPServersScreen #detail {
        height: auto;
        color: $text-secondary;
    }
    MCPServersScreen #status {
        height: auto;
    }
    """

    def __init__(
        self,
        center: Center,
        paths: Paths | None = _FROM_CENTER,
        manager: ServerControl | None = _FROM_CENTER,
        *,
        import_default: Path | None = None,
        poll_interval: float = 1.0,
    ) -> None:
        super().__init__()
        self._center = center
        self._paths: Paths | None = getattr(center, "paths", None) if paths is _FROM_CENTER else paths
        if manager is _FROM_CENTER:
            source = center.tool_source
            manager = source if isinstance(source, ServerControl) else None
        self._manager = manager
        self.manager_actions = ManagerActions(self, self, manager)
        self._import_default = import_default
        self._poll_interval = poll_interval
        self._changed = False
        self.busy: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "MCP servers"
            frame.border_subtitle = "a add · e edit · space on/off · r restart · i import · x remove"
            yield CursorDataTable(id="servers", cursor_type="row", zebra_stripes=True)
            yield VerticalScroll(Static("", id="detail"), id="detail-box", can_focus=False)
            yield Static("", id="status", classes="hint")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("", key="on", width=1)
        table.add_column("Server", key="name", width=16)
        table.add_column("State", key="state", width=9)
        table.add_column("Tools", key="tools", width=5)
        table.add_column("Command or URL", key="where", width=34)
        self._refresh()
        table.focus()
        if self._manager is not None:
            self.set_interval(self._poll_interval, self.refresh_states)

    # --- listing ------------------------------------------------------------------------------------------

    def status_of(self, server: MCPServer) -> tuple[str, ServerStatus | None]:
        """The state word shown for a server, and its status from the manager (None without one)."""
        if not server.enabled:
            return "disabled", None
        if self._manager is None:
            return "—", None
        status = self._manager.status(server.name)
        if server.name in self.busy:
            return "restarting", status
        return status.state.value, status

    def _refresh(self, select: str | None = None) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        current = select or self.selected_name
        table.clear()
        for server in self._center.mcp_servers:
            state, status = self.status_of(server)
            tools = str(status.tool_count) if status and status.state is ServerState.RUNNING else ""
            table.add_row(
                _cell("●" if server.enabled else "○", "bold"),
                _cell(server.name),
                _cell(state, STATE_STYLE.get(state, "")),
                _cell(tools),
                _cell(_where(server)),
                key=server.name,
            )
        names = [s.name for s in self._center.mcp_servers]
        if current in names:
            table.move_cursor(row=names.index(current))
        if not names:
            self.show_status("No MCP servers yet: press a to add one, or i to import Claude Desktop's.")
        self._show_detail()

    def refresh_states(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        for server in self._center.mcp_servers:
            state, status = self.status_of(server)
            tools = str(status.tool_count) if status and status.state is ServerState.RUNNING else ""
            try:
                table.update_cell(server.name, "state", _cell(state, STATE_STYLE.get(state, "")))
                table.update_cell(server.name, "tools", _cell(tools))
            except Exception:  # the row went away between two ticks
                continue
        self._show_detail()

    @property
    def selected_name(self) -> str | None:
        table: DataTable[Text] = self.query_one(DataTable)
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return str(row_key.value) if row_key.value is not None else None

    def selected(self) -> MCPServer | None:
        name = self.selected_name
        return next((s for s in self._center.mcp_servers if s.name == name), None)

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        """The selected server in full: where it runs, which variables and headers (names only), its state."""
        server = self.selected()
        detail = self.query_one("#detail", Static)
        if server is None:
            detail.update("")
            return
        state, status = self.status_of(server)
        lines = [f"{server.kind} · {_where(server)}"]
        names = [
            f"env {', '.join(server.env)}" if server.env else "",
            f"headers {', '.join(server.headers)}" if server.headers else "",
        ]
        policy = policy_text(server)
        start = " · starts with the app" if server.start_on_launch else ""
        lines.append(" · ".join(n for n in names if n) or "no environment variables or headers")
        lines.append(f"{policy}{start}")
        if status is not None:
            facts = [state]
            if status.state is ServerState.RUNNING:
                facts.append(f"{status.tool_count} tools, {status.prompt_count} prompts")
                if status.server_version:
                    facts.append(f"version {status.server_version}")
            if status.error:
                facts.append(status.error)
            elif status.log_path:
                facts.append(f"log {status.log_path}")
            lines.append(" · ".join(facts))
            if status.state is ServerState.RUNNING:
                lines += tool_lines(status)
        detail.update(Content(sanitize("\n".join(lines))))

    def show_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.set_class(error, "error")
        status.update(Content(sanitize(text)))

    # --- writing ------------------------------------------------------------------------------------------

    def _write(self, server: MCPServer, *, replace: bool, old_name: str | None = None) -> bool:
        try:
            if self._paths is not None:
                config_writer.add_mcp_server(self._paths, server, replace=replace)
                if old_name and old_name != server.name:
                    config_writer.remove_mcp_server(self._paths, old_name)
        except (ConfigError, OSError, ValueError) as error:
            self.show_status(f"Not saved: {error}", error=True)
            return False
        if old_name and old_name != server.name:
            self._center.remove_mcp(old_name)
        self._center.add_mcp(server)
        self._changed = True
        return True

    def action_add(self) -> None:
        taken = [s.name for s in self._center.mcp_servers]
        self.app.push_screen(MCPServerFormScreen(taken_names=taken), self._added)

    def _added(self, server: MCPServer | None) -> None:
        if server is not None and self._write(server, replace=False):
            self.show_status(f"Added {server.name!r}; it starts when a dialog first uses it (r starts it now).")
            self._refresh(select=server.name)

    def action_edit(self) -> None:
        old = self.selected()
        if old is None:
            return
        taken = [s.name for s in self._center.mcp_servers]

        def edited(server: MCPServer | None) -> None:
            if server is not None and self._write(server, replace=True, old_name=old.name):
                self.show_status(f"Saved {server.name!r}; the new settings apply from its next start.")
                if self._manager is not None and old.enabled:
                    self.manager_actions.stop(old.name)
                self._refresh(select=server.name)

        self.app.push_screen(MCPServerFormScreen(old, taken_names=taken), edited)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def action_toggle_selected(self) -> None:
        server = self.selected()
        if server is None:
            return
        flipped = dataclasses.replace(server, enabled=not server.enabled)
        if self._write(flipped, replace=True):
            if not flipped.enabled and self._manager is not None:
                self.manager_actions.stop(server.name)
            self.show_status(f"{server.name!r} is {'enabled' if flipped.enabled else 'disabled'}.")
            self._refresh(select=server.name)

    def action_remove(self) -> None:
        server = self.selected()
        if server is None:
            return

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            try:
                if self._paths is not None:
                    config_writer.remove_mcp_server(self._paths, server.name)
            except (ConfigError, OSError, ValueError) as error:
                self.show_status(f"Not removed: {error}", error=True)
                return
            self._center.remove_mcp(server.name)
            self._changed = True
            if self._manager is not None:
                self.manager_actions.stop(server.name)
            self.show_status(f"Removed {server.name!r}.")
            self._refresh()

        self.app.push_screen(
            ConfirmScreen(
                "Remove MCP server?", f"Remove {server.name!r} from the configuration?", "Remove", danger=True
            ),
            confirmed,
        )

    # --- import -------------------------------------------------------------------------------------------

    def action_import(self) -> None:
        default = self._import_default or claude_desktop_config_path()
        self.app.push_screen(ImportScreen(default), self._import)

    def _import(self, choice: tuple[Path, bool] | None) -> None:
        if choice is None:
            return
        path, replace = choice
        try:
            servers = load_mcp_servers_file(path)  # every entry is checked before anything is written
            present = {s.name for s in self._center.mcp_servers}
            wanted = [s for s in servers if replace or s.name not in present]
            skipped = [s.name for s in servers if s not in wanted]
            added = [s.name for s in wanted]
            if self._paths is not None and wanted:
                document = {"mcpServers": {s.name: s.to_json() for s in wanted}}
                result = config_writer.import_mcp_servers(self._paths, document, replace=replace)
                added = result.added
                skipped += result.skipped
        except (ConfigError, OSError, ValueError) as error:
            self.show_status(f"Nothing imported: {error}", error=True)
            return
        for server in servers:
            if server.name in added:
                self._center.add_mcp(server)
        self._changed = self._changed or bool(added)
        message = f"Imported {len(added)} server{'s' if len(added) != 1 else ''}"
        message += f" ({', '.join(added)})" if added else ""
        if skipped:
            message += f"; kept {len(skipped)} of the same name ({', '.join(skipped)}); tick replace to overwrite"
        self.show_status(message + ".")
        self._refresh(select=added[0] if added else None)

    # --- the manager --------------------------------------------------------------------------------------

    def action_restart(self) -> None:
        self.manager_actions.restart_selected()

    def action_sign_in(self) -> None:
        self.manager_actions.sign_in_selected()

    def action_sign_out(self) -> None:
        self.manager_actions.sign_out_selected()

    def action_close(self) -> None:
        self.dismiss(self._changed)
