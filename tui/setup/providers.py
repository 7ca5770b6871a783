"""The provider manager: list, add, edit and remove providers, and choose the default one.

Every change is written through the config writer (`engine.config`) first and applied to the Center only when
the write succeeded, so what the screen shows is what the next start will read. Keys go to credentials.toml;
the list shows only where a key comes from.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from visindigo.engine import config as config_writer
from visindigo.engine.center import Center
from visindigo.engine.config import ConfigError
from visindigo.engine.paths import Paths
from visindigo.engine.provider import Provider
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.common.cursor_rows import CursorDataTable
from visindigo.tui.common.modal import ModalFrame, close_on_escape, sanitize
from visindigo.tui.setup.provider_form import ProviderDraft, ProviderFormScreen, key_status

__all__ = ["ProviderDraft", "ProviderFormScreen", "ProvidersScreen", "key_status"]


def _cell(text: str, style: str = "") -> Text:
    """A table cell that is never parsed as markup (DataTable parses plain strings)."""
    return Text(sanitize(text), style=style, no_wrap=True, overflow="ellipsis")


_FROM_CENTER: Any = object()


class ProvidersScreen(ModalFrame[bool]):
    """Dismisses with True when anything changed.

    `paths` defaults to the Center's (`center.paths`); None changes only the Center (nothing is saved).
    """

    BINDINGS = [
        close_on_escape("close"),
        Binding("a", "add", "Add"),
        Binding("e", "edit", "Edit"),
        Binding("d", "make_default", "Make default"),
        Binding("delete,x", "remove", "Remove"),
    ]

    DEFAULT_CSS = """
    ProvidersScreen > .frame {
        width: 100;
        height: 100%;
        max-height: 30;
    }
    ProvidersScreen DataTable {
        height: 1fr;
        margin-top: 1;
    }
    ProvidersScreen #detail {
        height: 3;
        margin-top: 1;
        color: $text-secondary;
    }
    ProvidersScreen #status {
        height: auto;
        margin-top: 1;
    }
    """

    def __init__(self, center: Center, paths: Paths | None = _FROM_CENTER) -> None:
        super().__init__()
        self._center = center
        self._paths: Paths | None = getattr(center, "paths", None) if paths is _FROM_CENTER else paths
        self._changed = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Providers"
            frame.border_subtitle = "a add · e/enter edit · d default · x remove · esc close"
            yield CursorDataTable(id="providers", cursor_type="row", zebra_stripes=True)
            yield Static("", id="detail")
            yield Static("", id="status", classes="hint")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("", key="default", width=1)
        table.add_column("Provider", key="id", width=16)
        table.add_column("Base URL", key="url", width=24)
        table.add_column("Key", key="key", width=18)
        table.add_column("Models", key="models", width=6)
        self._refresh()
        table.focus()

    # --- listing ------------------------------------------------------------------------------------------

    def _refresh(self, select: str | None = None) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        current = select or self.selected_id
        table.clear()
        for provider in self._center.providers:
            default = provider.id == self._center.default_provider_id
            table.add_row(
                _cell("★" if default else "", "bold"),
                _cell(provider.id),
                _cell(provider.base_url),
                _cell(key_status(provider)),
                _cell(str(len(provider.models)) if provider.models else "listed"),
                key=provider.id,
            )
        ids = [p.id for p in self._center.providers]
        if current in ids:
            table.move_cursor(row=ids.index(current))
        if not ids:
            self._status("No providers yet: press a to add one.")
        self._show_detail()

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        """Everything about the provider under the cursor, in full (the table truncates)."""
        provider = self._selected()
        if provider is None:
            self.query_one("#detail", Static).update("")
            return
        kind = {"openai": "OpenAI-compatible", "anthropic": "Anthropic"}.get(provider.kind, provider.kind)
        lines = [
            f"{provider.name} · {kind}" + (" · default" if provider.id == self._center.default_provider_id else ""),
            provider.base_url or "(no base URL)",
            f"key: {key_status(provider)}"
            + (f" · default model: {provider.default_model}" if provider.default_model else ""),
        ]
        self.query_one("#detail", Static).update(Content(sanitize("\n".join(lines))))

    @property
    def selected_id(self) -> str | None:
        """The id of the provider under the cursor."""
        table: DataTable[Text] = self.query_one(DataTable)
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return str(row_key.value) if row_key.value is not None else None

    def _selected(self) -> Provider | None:
        selected = self.selected_id
        return self._center.get_provider(selected) if selected else None

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.set_class(error, "error")
        status.update(Content(sanitize(text)))

    # --- actions ------------------------------------------------------------------------------------------

    def action_add(self) -> None:
        taken = [p.id for p in self._center.providers]
        self.app.push_screen(ProviderFormScreen(taken_ids=taken), self._save)

    def action_edit(self) -> None:
        provider = self._selected()
        if provider is not None:
            self.app.push_screen(ProviderFormScreen(provider), self._save)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def _save(self, draft: ProviderDraft | None) -> None:
        if draft is None:
            return
        provider = draft.provider
        try:
            if self._paths is not None:
                config_writer.save_provider(self._paths, provider, api_key=draft.api_key)
        except (ConfigError, OSError, ValueError) as error:
            self._status(f"Not saved: {error}", error=True)
            return
        old = self._center.get_provider(provider.id)
        self._center.add_provider(provider)
        if old is not None and old is not provider:
            self._close_adapter(old)
        self._changed = True
        self._status(f"Saved provider {provider.id!r}." + ("" if self._paths else " (not written to a file)"))
        self._refresh(select=provider.id)

    def action_make_default(self) -> None:
        provider = self._selected()
        if provider is None:
            return
        try:
            if self._paths is not None:
                config_writer.set_default_provider(self._paths, provider.id)
        except (ConfigError, OSError, ValueError) as error:
            self._status(f"Not saved: {error}", error=True)
            return
        self._center.default_provider_id = provider.id
        self._changed = True
        self._status(f"{provider.id!r} is now the default provider for new dialogs.")
        self._refresh(select=provider.id)

    def action_remove(self) -> None:
        provider = self._selected()
        if provider is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove(provider)

        self.app.push_screen(
            ConfirmScreen(
                "Remove provider?",
                f"Remove {provider.id!r} and its stored key? Dialogs that used it keep their messages.",
                "Remove",
                danger=True,
            ),
            confirmed,
        )

    def _remove(self, provider: Provider) -> None:
        try:
            if self._paths is not None:
                config_writer.remove_provider(self._paths, provider.id)
        except (ConfigError, OSError, ValueError) as error:
            self._status(f"Not removed: {error}", error=True)
            return
        self._center.remove_provider(provider.id)
        self._close_adapter(provider)
        self._changed = True
        self._status(f"Removed provider {provider.id!r}.")
        self._refresh()

    @work(exit_on_error=False, group="close-adapter")
    async def _close_adapter(self, provider: Provider) -> None:
        """A replaced provider's HTTP client is closed, or its connections would linger."""
        await provider.aclose()

    def action_close(self) -> None:
        self.dismiss(self._changed)
