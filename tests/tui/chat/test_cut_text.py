"""Text cut at an edge ends with "…", so a cut line never passes for a whole one: tree titles, the edit banner,
the composer's placeholder, tool lines and the status line at 80 columns."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets._collapsible import CollapsibleTitle

from tests.tui.helpers import main_screen, make_app, make_center
from visindigo.engine import Message, Role
from visindigo.tui.chat.status_line import StatusInfo

LONG_TITLE = "A very long dialog title about planning three days in Kyoto and Osaka"
CALLS = (
    '[{"id":"c1","type":"function","function":{"name":"get_weather",'
    '"arguments":"{\\"city\\": \\"Kyoto, the old capital of Japan, in the Kansai region\\"}"}}]'
)


def line(widget: Widget, y: int = 0) -> str:
    return "".join(segment.text for segment in widget.render_line(y)).rstrip()


async def test_every_line_cut_at_80_columns_ends_with_an_ellipsis() -> None:
    center = make_center([])
    dialog = center.create_dialog()
    dialog.title = LONG_TITLE
    dialog.append_message(Role.USER, "What is the weather in Kyoto?")
    dialog.append_message(Message(Role.ASSISTANT, "", tool_calls=CALLS))
    result = '{"temperature": 12, "conditions": "sunny with a few clouds over the hills", "humidity": 40}'
    dialog.append_message(Message(Role.TOOL, result, tool_call_id="c1", name="get_weather"))
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.pause()
        # the composer's placeholder, one line in the box: whole at 80 columns, cut at 60
        assert line(screen.composer.input, 0).endswith("f1 keys")
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        placeholder = line(screen.composer.input, 0)
        assert placeholder.startswith("Message · enter sends") and placeholder.endswith("…"), placeholder
        # the tool call line and the collapsed tool block's title, in a pane narrower than they are
        await pilot.resize_terminal(45, 24)
        await pilot.pause()
        calls = line(screen.query(".calls").first())
        assert calls.endswith("…") and calls.startswith("→ get_weather(")
        title = line(screen.query_one(CollapsibleTitle))
        assert title.endswith("…") and "get_weather" in title
        # the edit banner
        screen.composer.start_edit(0, "What is the weather in Kyoto?")
        await pilot.pause()
        banner = line(screen.composer.query_one(".mode"))
        assert banner.startswith("editing message 1") and banner.endswith("…")
        # the status line while an answer streams
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        screen.status_line.show(
            StatusInfo("A provider", "a-model-with-a-long-name-2026", "TIFR", 123_456, 98_765, 98.0,
                       "generating… esc cancels")
        )  # fmt: skip
        await pilot.pause()
        status = line(screen.status_line)
        assert status.endswith("…") and status.startswith("A provider")
        # the dialog tree, in its 30 columns beside the messages
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        await pilot.pause()
        tree = screen.sidebar.dialog_tree
        node = tree.node_for(dialog.id)
        assert node is not None
        drawn = line(tree, node.line)
        assert drawn.endswith("…") and drawn.lstrip().startswith("A very long"), drawn
        assert len(drawn) <= tree.scrollable_content_region.width


async def test_titles_that_fit_are_not_cut() -> None:
    center = make_center([])
    dialog = center.create_dialog()
    dialog.title = "Short"
    dialog.append_message(Role.USER, "hi")
    app = make_app(center=center)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.pause()
        await pilot.pause()
        tree = screen.sidebar.dialog_tree
        node = tree.node_for(dialog.id)
        assert node is not None and line(tree, node.line).strip() == "Short"
