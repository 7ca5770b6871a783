"""Issue 25 §7 in the app: a tool call the reference server refuses until a page is visited (-32042).

The real `@modelcontextprotocol/server-everything` answers `trigger-url-elicitation` with the error; the app
shows the page (copied to the clipboard), says which tool waits for it, keeps the focus on Decline, and makes
the call again after "Done — retry". Also the form's second chance: an answer the schema refused reopens with
the reason and the values as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Button

from tests.engine.mcp.conftest import everything_js  # noqa: F401  (the session fixture, installed once)
from tests.engine.mcp.everything import everything_server
from tests.tui.helpers import answer, main_screen, make_app, make_center, settle
from tests.tui.mcp.test_mcp_features_app import tool_result, tool_turn, wait_for_screen
from visindigo.engine.mcp.host import ElicitationRequest
from visindigo.tui.common.fields import FieldRow
from visindigo.tui.mcp.elicitation import ElicitationScreen

URL_ARGUMENTS = '{"url": "https://example.com/sign", "errorPath": true}'
PREREQUISITE = "https://modelcontextprotocol.io"


def shown(screen: ElicitationScreen) -> str:
    return " ".join(str(static.render()) for static in screen.query("Static"))


async def test_a_page_required_before_a_tool_runs_is_shown_copied_and_the_call_retried(
    everything_js: Path,  # noqa: F811
) -> None:
    center = make_center([tool_turn("ev__trigger-url-elicitation", URL_ARGUMENTS), answer("done")])
    center.add_mcp(everything_server(everything_js, approval="allow", timeout=60.0))
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        await main_screen(app).send("sign me in")
        screen: Any = await wait_for_screen(pilot, ElicitationScreen)
        frame = screen.query_one(".frame")
        assert frame.border_title == "ev needs you to open a page"
        text = shown(screen)
        assert PREREQUISITE in text and "trigger-url-elicitation runs only after you finish" in text
        assert str(screen.query_one("#accept", Button).label) == "Done — retry"
        assert app.focused is not None and app.focused.id == "decline"  # nothing is agreed to by a stray enter
        assert app.clipboard == PREREQUISITE
        await pilot.press("ctrl+s")
        # the call is made again; this time the server asks with its own elicitation/create (no retry wording)
        second: Any = await wait_for_screen(pilot, ElicitationScreen)
        for _ in range(100):
            if second is not screen:
                break
            await pilot.pause(0.05)
            second = app.screen
        assert isinstance(second, ElicitationScreen) and second is not screen
        assert second.request.url == "https://example.com/sign" and not second.request.required_by
        assert second.query_one(".frame").border_title == "ev asks"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "User completed the URL elicitation flow" in tool_result(app)["content"]
        assert main_screen(app).dialog.last_message.content == "done"


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "instruments": {"type": "array", "items": {"enum": ["Guitar", "Piano", "Drums"]}, "maxItems": 2},
        "subscribe": {"type": "boolean"},
    },
    "required": ["name"],
}


async def test_a_refused_answer_reopens_with_the_reason_and_the_values_as_they_were() -> None:
    request = ElicitationRequest(
        "crm",
        "Who plays?",
        schema=SCHEMA,
        problem="instruments: choose at most 2",
        refused={"name": "Ann \x1b[31mred", "instruments": ["Guitar", "Piano", "Drums"], "subscribe": True},
    )
    app = make_app(center=make_center([]))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ElicitationScreen(request))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ElicitationScreen)
        refused = str(screen.query_one("#refused").render())
        assert "Not sent: instruments: choose at most 2" in refused
        values = {row.spec.name: row.value() for row in screen.query(FieldRow)}
        assert values == {"name": "Ann red", "instruments": "Guitar, Piano, Drums", "subscribe": "true"}
        await pilot.press("ctrl+s")  # still three instruments: the form's own check keeps it open
        await pilot.pause()
        assert app.screen is screen


def test_form_texts_are_form_content_the_other_way() -> None:
    from visindigo.engine.mcp.elicitation import form_content, form_texts

    content = {"name": "Ann", "instruments": ["Guitar"], "subscribe": False, "unknown": 1}
    texts = form_texts(SCHEMA, content)
    assert texts == {"name": "Ann", "instruments": "Guitar", "subscribe": "false"}
    assert form_content(SCHEMA, texts) == {"name": "Ann", "instruments": ["Guitar"], "subscribe": False}
    assert json.dumps(texts)  # plain strings only
