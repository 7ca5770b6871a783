"""No meaning carried by colour alone (issue 28): under NO_COLOR, where the app paints no colour at all, every
state that the themes colour — a failed or denied tool call, an interrupted, incomplete or cut-short answer, a
failed run — still says what it is in a word or a mark on the screen."""

from __future__ import annotations

import json

import pytest

from tests.tui.helpers import main_screen, make_app, make_center, settle, type_text
from tests.tui.screens_host import screen_text
from visindigo.engine import Message, Role
from visindigo.engine.approval import DENIED_RESULT
from visindigo.engine.providers import ProviderError


def _call(call_id: str, city: str) -> dict[str, object]:
    arguments = json.dumps({"city": city})
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}


async def test_every_coloured_state_also_says_itself_in_words_under_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    center = make_center([[ProviderError("scripted: HTTP 503 service unavailable")]])
    dialog = center.create_dialog()
    dialog.title = "States"
    dialog.append_message(Role.USER, "weather?")
    calls = json.dumps([_call("c1", "Kyoto"), _call("c2", "Osaka")])
    dialog.append_message(Message(Role.ASSISTANT, "", tool_calls=calls))
    dialog.append_message(Message(Role.TOOL, '{"error":"no such city"}', tool_call_id="c1", name="get_weather"))
    dialog.append_message(Message(Role.TOOL, DENIED_RESULT, tool_call_id="c2", name="get_weather"))
    dialog.append_message(Message(Role.ASSISTANT, "Partly", meta={"status": "interrupted"}))
    dialog.append_message(Role.USER, "second")
    dialog.append_message(Message(Role.ASSISTANT, "Half an", meta={"status": "incomplete"}))
    dialog.append_message(Role.USER, "third")
    dialog.append_message(Message(Role.ASSISTANT, "A long", meta={"finish_reason": "length"}))
    app = make_app(center=center)
    async with app.run_test(size=(100, 50)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        await type_text(pilot, "fourth")
        await pilot.press("enter")
        await settle(pilot)
        assert app.no_color and app.theme == "visindigo-no-color"
        text = screen_text(app)
        lines = text.splitlines()
        # the two tool calls that did not succeed: each a ✗ on its line (a good one has →)
        failed_calls = [line for line in lines if "get_weather(" in line and "✗" in line]
        assert len(failed_calls) == 2, text
        assert any("denied" in line for line in failed_calls), failed_calls
        assert "interrupted" in text and "incomplete" in text and "cut short: output limit reached" in text
        notice = next(line for line in lines if "503 service unavailable" in line)
        assert "The run failed: scripted: HTTP 503" in notice, notice  # it says it failed, not only in red
