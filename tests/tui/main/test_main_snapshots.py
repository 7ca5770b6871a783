"""Snapshots of the main screen at 80×24 and 120×40: the demo, a tool approval, the help screen.

Content is deterministic: the demo model runs with no delay, and the one figure that depends on the clock
(tokens per second) is cleared before the picture is taken. Update with `pytest --snapshot-update` only after
looking at the report.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.tui.helpers import make_center
from visindigo.engine import Center, Function
from visindigo.engine.providers import FinishPart, ReasoningPart, TextPart, ToolCallPart
from visindigo.tui.app import AppOptions, VisindigoApp
from visindigo.tui.common.approval import ApprovalScreen
from visindigo.tui.workbench import Runs

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.fixture(autouse=True)
def fixed_branch_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree shows when a branch was made (the demo's is made at start-up): show a fixed time instead."""
    monkeypatch.setattr("visindigo.tui.main.dialog_tree.when_label", lambda timestamp, now=None: "09:30")


def demo_app() -> VisindigoApp:
    return VisindigoApp(Center(), AppOptions(demo=True, demo_delay=0.0, stream_fps=30))


async def _settled(pilot: Any) -> None:
    screen = pilot.app.main_screen
    for _ in range(200):  # the demo asks its live question once the screen is up: wait for the answer
        await pilot.pause(0.05)
        if screen.dialog.message_count >= 8 and not screen.runs.running_ids():
            break
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.3)  # the last full Markdown render and the scroll to the end
    screen.workbench.runs = Runs()  # forget the last run's speed: it depends on the clock
    screen.status_line.refresh_now()
    for view in screen.pane.views:  # tool durations depend on the clock too: show a fixed one
        if view.call_id:
            view.message.meta["duration"] = 0.012
            await view.set_tool_state(duration=0.012)
    screen.composer.input.cursor_blink = False  # a blinking cursor is on or off depending on timing
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_demo_main_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    """You should see the end of the demo dialog after its live question about Osaka, anchored at the bottom of
    the pane: the Markdown answer (a bullet list of temperature, conditions and humidity, a highlighted Python
    code block, a closing paragraph), then the composer with its hint, the status line "Demo · Visindigo demo ·
    TIFR · in 834 out 362 · ctx ~442/32.8k +1k" and the key footer. At 120×40 there is more: above the answer
    "you And the weather in Osaka?", "ai" with a → get_weather(city="Osaka") line, a collapsed ⚙ get_weather
    block whose title gives the call, its duration (12 ms, fixed for the picture) and the start of the result,
    and the end of the first answer with ◀ 2/2 ▶; the dialog tree on the left (the demo dialog and its branch ②,
    which is current, shown as "② 09:30 · Weather in Kyo…": the time it was made, fixed for the picture, and the
    title cut with …) and the reasoning drawer on the right ("reasoning · message 8"). At 80×24 both side panels
    are hidden.
    """
    assert snap_compare(demo_app(), terminal_size=size, run_before=_settled)


class Wipe(Function):
    id = "wipe"
    name = "wipe"
    description = "Deletes a folder."
    parameter_schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    requires_approval = True

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"wiped": arguments.get("path")}


def approval_app() -> VisindigoApp:
    turn = [
        ReasoningPart("The user wants the build folder gone; that needs the wipe tool."),
        TextPart("I will delete `build/` for you."),
        ToolCallPart("call_1", "wipe", '{"path": "build/"}'),
        FinishPart("tool_calls"),
    ]
    center = make_center([turn, [TextPart("Done."), FinishPart("stop")]])
    center.add_function(Wipe())
    return VisindigoApp(center, AppOptions(stream_fps=30))


async def _ask_for_wipe(pilot: Any) -> None:
    screen = pilot.app.main_screen
    for _ in range(100):  # the screen is up (its dialog shown and the tree filled) before the question
        if screen.sidebar.dialog_tree.is_attached and screen.pane.dialog is not None:
            break
        await pilot.pause(0.05)
    screen.composer.input.cursor_blink = False  # a blinking cursor is on or off depending on timing
    await screen.send("Please delete the build folder")
    for _ in range(100):
        await pilot.pause(0.05)
        if isinstance(pilot.app.screen, ApprovalScreen):
            break
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_tool_approval_modal(snap_compare: Any, size: tuple[int, int]) -> None:
    """You should see the main screen dimmed behind a box titled "Allow this tool call?" naming the tool
    "wipe", its arguments as JSON ({"path": "build/"}), the sentence saying a denial is told to the model, and
    three buttons: Allow once, Allow for this dialog, Deny (focused). Behind it: the question, "ai" saying it
    will delete build/ with its → wipe(path="build/") line, and one ⚙ wipe block that is still running (at
    80×24 only their gutters, y, a and ⚙, show beside the box).
    """
    assert snap_compare(approval_app(), terminal_size=size, run_before=_ask_for_wipe)


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    """You should see the "Keys" box over the main screen: a filter field, then sections "Everywhere" (^q Quit,
    f1 Keys, ^p Command palette) and "Main screen" (tab, shift+tab, esc Cancel, ^n New dialog, ^r Regenerate,
    alt+e Edit last question, f2 Model, …, f10 alt+p Parameters); at 120×40 the list goes on to ^o Go to the
    messages. The rest ("Messages (ctrl+o)", "Composer", "Dialog tree") is further down.
    """

    async def open_help(pilot: Any) -> None:
        await _settled(pilot)
        await pilot.press("f1")
        await pilot.pause()
        pilot.app.focused.cursor_blink = False  # the filter field's cursor
        await pilot.pause()

    assert snap_compare(demo_app(), terminal_size=size, run_before=open_help)


def crowded_status(size: tuple[int, int]) -> Any:
    """A run waiting for a provider with a long name while the window is nearly full: the longest line there is."""
    from visindigo.tui.workbench import StatusInfo
    from visindigo.tui.workbench.context import Meter

    async def run_before(pilot: Any) -> None:
        await _settled(pilot)
        line = pilot.app.main_screen.status_line
        line.refresh_now = lambda: None  # the figures below stay: nothing runs to redraw them from
        meter = Meter(15_700, 16_384, 1_024, True, "tight", "config")
        state = "waiting for Workstation llama.cpp… esc cancels"
        info = StatusInfo("Workstation llama.cpp", "qwen3-8b-instruct", "TR", 12_400, 3_100, state=state, meter=meter)
        line.show(info)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24")])
def test_status_line_at_80_columns_keeps_the_meter_and_the_runs_state(snap_compare: Any, size: tuple[int, int]) -> None:
    """You should see the demo's end at 80×24 with a crowded status line under the composer: on its left the
    provider's name cut short ("Workst…"), then "waiting for Workstation llama.cpp… esc cancels" whole, and at
    its right end the red meter "! ctx ~15.7k/16.4k +1k" (the "!" marks the full window) without its "alt+z
    compacts" (the reminder gives way to what the run is doing; the meter's figures never do)."""
    assert snap_compare(demo_app(), terminal_size=size, run_before=crowded_status(size))


async def test_what_gives_way_on_the_status_line_at_80_columns() -> None:
    """The figures first, then the meter's "alt+z compacts", then the end of the run's state; never the meter."""
    from visindigo.tui.workbench import StatusInfo
    from visindigo.tui.workbench.context import Meter

    app = VisindigoApp(make_center([]), AppOptions(stream_fps=30))
    async with app.run_test(size=(80, 24)) as pilot:
        line = app.main_screen.status_line
        await pilot.pause()
        line.refresh_now = lambda: None  # the figures below stay: nothing runs to redraw them from
        full = Meter(15_700, 16_384, 1_024, True, "tight", "config")
        figures = dict(provider="Workstation llama.cpp", model="qwen3-8b-instruct", input_tokens=12_400)
        for state, hint, whole in (
            ("working…", True, True),  # room for all of it: the figures are cut, the hint and the state stay
            ("waiting for Workstation llama.cpp… esc cancels", False, True),  # the hint gives way to the state
            ("waiting for " + "A very long provider name " * 3 + "… esc cancels", False, False),  # then its end
        ):
            line.show(StatusInfo(**figures, state=state, meter=full))
            await pilot.pause()
            shown = line.render().plain
            assert len(shown) <= 78 and shown.endswith("ctx ~15.7k/16.4k +1k" + (" alt+z compacts" if hint else ""))
            assert shown.startswith("Work")  # the provider's name keeps its start
            assert (state in shown) is whole and shown.count("waiting for") == state.count("waiting for")
