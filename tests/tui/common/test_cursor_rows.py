"""The row under the cursor shows its dim hints at full strength, in every kind of list the app uses."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.strip import Strip
from textual.widgets import DataTable, OptionList, Tree
from textual.widgets.option_list import Option

from visindigo.tui.common.cursor_rows import CursorDataTable, CursorOptionList, CursorTree


def _dim_texts(strip: Strip) -> str:
    return "".join(text for text, style, _ in strip if style is not None and style.dim)


def _row(label: str) -> Content:
    return Content.assemble(label, (f"  window of {label}", "dim"))


class Lists(App[None]):
    def __init__(self, cursor: bool) -> None:
        super().__init__()
        self.cursor = cursor

    def compose(self) -> ComposeResult:
        option_list = CursorOptionList if self.cursor else OptionList
        yield option_list(*(Option(_row(name)) for name in ("one", "two", "three")), id="options")
        tree = CursorTree[str]("root") if self.cursor else Tree[str]("root")
        tree.root.expand()
        for name in ("one", "two"):
            tree.root.add_leaf(Content.assemble(name, (f"  mark of {name}", "dim")).markup)
        yield tree
        yield (CursorDataTable if self.cursor else DataTable)(id="table", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one("#table", DataTable)
        table.add_column("name")
        table.add_column("state", width=14)
        for name in ("one", "two"):
            table.add_row(name, Content.assemble((f"stopped {name}", "dim")))


async def _lines(cursor: bool) -> tuple[list[Strip], list[Strip], list[Strip]]:
    app = Lists(cursor)
    async with app.run_test(size=(60, 30)) as pilot:
        options = app.query_one("#options", OptionList)
        options.focus()
        options.highlighted = 1
        tree = app.query_one(Tree)
        tree.cursor_line = 2  # the second leaf
        table = app.query_one("#table", DataTable)
        table.move_cursor(row=0)
        await pilot.pause()
        return (
            [options.render_line(y) for y in range(options.scrollable_content_region.height)],
            [tree.render_line(y) for y in range(3)],
            [table.render_line(y) for y in range(3)],
        )


async def test_the_highlighted_row_has_no_dim_part_and_the_others_keep_theirs() -> None:
    options, tree, table = await _lines(cursor=True)
    option_dims = [_dim_texts(line) for line in options if line.text.strip()]
    assert option_dims == ["  window of one", "", "  window of three"]
    assert [_dim_texts(line) for line in tree] == ["", "  mark of one", ""]
    assert [_dim_texts(line).strip() for line in table] == ["", "", "stopped two"]  # header, cursor row, other


async def test_textuals_own_lists_dim_the_cursor_row() -> None:
    """What the cursor lists change: without them the highlighted hint is dim (about 2.5:1 on the cursor)."""
    options, tree, table = await _lines(cursor=False)
    assert [_dim_texts(line) for line in options if line.text.strip()][1] == "  window of two"
    assert _dim_texts(tree[2]) == "  mark of two"
    assert _dim_texts(table[1]).strip() == "stopped one"
