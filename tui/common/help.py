"""The key map, generated from the BINDINGS of the app, its screens and widgets, so it can never go stale."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.widgets import DataTable, Input, Static

from visindigo.tui.common.modal import ModalFrame
from visindigo.tui.platform.bindings import inherits_bindings

KEY_COLUMN = 18
"""Width of the key column; longer key lists wrap."""
ACTION_COLUMN = 50
"""Width of the description column, so both columns fit 80 columns; longer descriptions wrap."""

HelpSection = tuple[str, Iterable[BindingType]]
"""A titled group of bindings, such as ("Main screen", MainScreen.BINDINGS)."""


@dataclass(frozen=True, slots=True)
class HelpRow:
    """One line of the key map: every key that does the same thing, and what it does."""

    keys: tuple[str, ...]
    description: str


def bindings_of(source: type[DOMNode] | DOMNode) -> list[Binding]:
    """The bindings a class (or a node's class) has, inherited ones included, later classes overriding keys.

    Mirrors how Textual merges BINDINGS along the MRO, so the help shows what the keys really do.
    """
    cls = source if isinstance(source, type) else type(source)
    by_key: dict[str, list[Binding]] = {}
    for base in reversed(cls.__mro__):
        if not (isinstance(base, type) and issubclass(base, DOMNode)):
            continue
        if not inherits_bindings(base):
            by_key.clear()
        own: dict[str, list[Binding]] = {}
        for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
            own.setdefault(binding.key, []).append(binding)  # one class may bind a key twice (tried in order)
        by_key.update(own)
    return [binding for bindings in by_key.values() for binding in bindings]


def sections_for(sources: Iterable[tuple[str, type[DOMNode] | DOMNode]]) -> list[HelpSection]:
    """Help sections from (title, class-or-node) pairs, e.g. [("Everywhere", app), ("Chat", MainScreen)]."""
    return [(title, bindings_of(source)) for title, source in sources]


def _describe(binding: Binding) -> str:
    if binding.description:
        return binding.description
    action = binding.action.split("(", 1)[0].rsplit(".", 1)[-1]
    return action.replace("_", " ").capitalize()


def help_rows(bindings: Iterable[BindingType], keymap: Mapping[str, str] | None = None) -> list[HelpRow]:
    """Rows in first-seen order; keys for the same action and description share a row.

    `keymap` maps binding ids to the user's keys (as `App.set_keymap` takes them), so remapped keys show.
    """
    grouped: dict[tuple[str, str], list[Binding]] = {}
    for binding in Binding.make_bindings(bindings):
        if binding.system and not binding.description:
            continue  # Textual's internal keys (ctrl+c "how to quit" hint)
        if keymap and binding.id and binding.id in keymap:
            chosen = [key.strip() for key in keymap[binding.id].split(",") if key.strip()]
            variants = [binding.with_key(key) for key in chosen]
        else:
            variants = [binding]
        for variant in variants:
            grouped.setdefault((variant.action, _describe(variant)), []).append(variant)
    rows = []
    for (_action, description), group in grouped.items():
        keys: list[str] = []
        for binding in group:
            if binding.key not in keys:
                keys.append(binding.key)
        rows.append(HelpRow(tuple(keys), description))
    return rows


class HelpScreen(ModalFrame[None]):
    """A scrollable, filterable table of every key, one section per source of bindings.

    Type to filter; Enter or Tab moves to the table; Esc or F1 closes it.
    """

    BINDINGS = [
        Binding("escape,f1", "close", "Close"),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
    ]

    DEFAULT_CSS = """
    HelpScreen > .frame {
        width: 90;
        height: 100%;
        max-height: 40;
    }
    HelpScreen #filter {
        margin-top: 1;
    }
    HelpScreen DataTable {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(
        self,
        sections: Sequence[HelpSection],
        *,
        keymap: Mapping[str, str] | None = None,
        title: str = "Keys",
        footer: str = "",
    ) -> None:
        super().__init__()
        #: A line under the table (the app's log file); nothing when empty.
        self._footer = footer
        self._sections: list[tuple[str, list[HelpRow]]] = []
        seen: set[HelpRow] = set()
        for name, bindings in sections:
            # Keys every screen inherits (tab, shift+tab, ...) are listed once, in the first section with them.
            rows = [row for row in help_rows(bindings, keymap) if row not in seen]
            seen.update(rows)
            self._sections.append((name, rows))
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = self._title
            frame.border_subtitle = "type to filter · tab table · esc close"
            yield Input(placeholder="Filter keys and actions", id="filter")
            table: DataTable[Text] = DataTable(id="keys", cursor_type="none", zebra_stripes=False, show_header=False)
            yield table
            yield Static("", id="empty", classes="hint")
            if self._footer:
                yield Static(Content(self._footer), id="files", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Key", key="key", width=KEY_COLUMN)
        table.add_column("Action", key="action", width=ACTION_COLUMN)
        self._fill("")

    def _fill(self, query: str) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear()
        needle = query.strip().lower()
        shown = 0
        for index, (section, rows) in enumerate(self._sections):
            matching = [
                row
                for row in rows
                if not needle or needle in row.description.lower() or any(needle in k.lower() for k in row.keys)
            ]
            if not matching:
                continue
            if table.row_count:
                table.add_row(Text(""), Text(""), key=f"gap-{index}")
            table.add_row(Text(section, style="bold underline"), Text(""), key=f"section-{index}")
            for number, row in enumerate(matching):
                keys = " ".join(self.app.get_key_display(Binding(key, "")) for key in row.keys)
                # Several keys for one action wrap onto more lines instead of widening the key column.
                height = 1 if len(keys) <= KEY_COLUMN and len(row.description) <= ACTION_COLUMN else None
                table.add_row(
                    Text(keys, style="bold"), Text(row.description), key=f"row-{index}-{number}", height=height
                )
                shown += 1
        self.query_one("#empty", Static).update("No key matches the filter." if not shown else "")

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#filter")
    def _to_table(self) -> None:
        self.query_one(DataTable).focus()

    @property
    def visible_descriptions(self) -> list[str]:
        """What the table lists now (section titles excluded); for tests and for the command palette."""
        table: DataTable[Text] = self.query_one(DataTable)
        return [
            table.get_cell(row_key, "action").plain for row_key in table.rows if str(row_key.value).startswith("row-")
        ]

    def action_page(self, direction: int) -> None:
        table = self.query_one(DataTable)
        if direction > 0:
            table.action_page_down()
        else:
            table.action_page_up()

    def action_close(self) -> None:
        self.dismiss(None)
