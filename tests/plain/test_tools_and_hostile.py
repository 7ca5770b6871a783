"""Tools in the plain mode: the call and its result as labelled lines, approval as a yes/no/always line; and
hostile model output (answer, reasoning, tool names and arguments, error bodies) reaching the terminal inert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile_text import HOSTILE, leaks
from tests.llm_server import LLMServer, error_reply, openai_stream, openai_tool_call
from tests.plain.conftest import Start, write_home
from tests.plain.terminal import control_characters

TOOLS = '\n[tools]\nenabled = ["weather"]\n'


def tool_turn(call_id: str, city: str) -> object:
    arguments = json.dumps({"city": city})
    return openai_stream(tool_calls=openai_tool_call(call_id, "get_weather", [arguments[:5], arguments[5:]]),
                         finish="tool_calls")  # fmt: skip


def tool_results(server: LLMServer) -> list[str]:
    """What the model was sent back as tool results, request by request (the last tool message of each)."""
    found = []
    for request in server.requests:
        if request.method == "POST":
            tools = [m for m in request.json["messages"] if m["role"] == "tool"]
            found.append(tools[-1]["content"] if tools else "")
    return found


@pytest.fixture
def tools_home(tmp_path: Path, llm_server: LLMServer, example_tools: Path) -> Path:
    return write_home(tmp_path / "tools-home", llm_server, tools=TOOLS)


def test_approval_is_one_line_answered_yes_no_or_always(
    start_plain: Start, llm_server: LLMServer, tools_home: Path, example_tools: Path
) -> None:
    llm_server.queue(
        tool_turn("c1", "Kyoto"), openai_stream(["Mild in Kyoto."]),
        tool_turn("c2", "Osaka"), openai_stream(["Not asked."]),
        tool_turn("c3", "Nara"), openai_stream(["Mild in Nara."]),
        tool_turn("c4", "Kobe"), openai_stream(["Mild in Kobe."]),
    )  # fmt: skip
    terminal = start_plain(home=tools_home, PYTHONPATH=str(example_tools))
    terminal.prompt()
    terminal.send("weather in Kyoto?")
    asked = terminal.expect("Answer yes, no or always (always: for this dialog): ")
    assert "Tool call: get_weather city=Kyoto\n" in asked
    assert "Allow the tool call get_weather city=Kyoto?\n" in asked
    terminal.send("yes")
    seen = terminal.expect("Answer complete")
    assert "Allowed once.\n" in seen
    assert 'Tool result: {"city": "Kyoto", "weather": "mild, 18 °C"}\n' in seen
    assert "Answer: Mild in Kyoto.\n" in seen
    terminal.prompt()

    terminal.send("and Osaka?")
    terminal.expect("Allow the tool call get_weather city=Osaka?")
    terminal.send("no")
    seen = terminal.expect("Answer complete")
    assert "Denied; the model is told so.\n" in seen and "Tool error:" in seen
    terminal.prompt()

    terminal.send("and Nara?")
    terminal.expect("Allow the tool call get_weather city=Nara?")
    terminal.send("maybe")  # not an answer: asked again
    terminal.expect("Answer yes, no or always")
    terminal.send("always")
    seen = terminal.expect("Answer complete")
    assert "Allowed for this dialog.\n" in seen and "Tool result:" in seen
    terminal.prompt()

    terminal.send("and Kobe?")  # allowed for this dialog: not asked again
    seen = terminal.expect("Answer complete")
    assert "Allow the tool call" not in seen and "Tool call: get_weather city=Kobe\n" in seen
    terminal.prompt()
    assert terminal.finish() == 0
    results = tool_results(llm_server)
    assert "Kyoto" in results[1] and "denied" in results[3] and "Nara" in results[5] and "Kobe" in results[7]
    assert control_characters(terminal.output) == []


def test_hostile_model_output_reaches_the_terminal_inert(
    start_plain: Start, llm_server: LLMServer, tools_home: Path, example_tools: Path
) -> None:
    pieces = [HOSTILE[i : i + 3] for i in range(0, len(HOSTILE), 3)]  # sequences cut between deltas
    llm_server.queue(
        openai_stream(
            reasoning=[HOSTILE[:7], HOSTILE[7:]],
            tool_calls=openai_tool_call("c1", "get_weather", [json.dumps({"city": HOSTILE})]),
            finish="tool_calls",
        ),
        openai_stream(pieces),
        error_reply(400, f"bad {HOSTILE}"),
    )
    terminal = start_plain(home=tools_home, PYTHONPATH=str(example_tools))
    terminal.prompt()
    terminal.send("weather?")
    terminal.expect("Answer yes, no or always")
    terminal.send("yes")
    terminal.expect("Answer complete")
    terminal.prompt()
    terminal.send("again")
    terminal.expect("Failed:")
    terminal.prompt()
    terminal.send("/history")
    terminal.prompt()
    assert terminal.finish() == 0
    output = terminal.output
    assert leaks(output) == [], terminal.text
    assert control_characters(output) == []
    text = terminal.text
    assert "Answer: OSC 52 clipboard, BEL:" in text and "bidi override:" in text  # the words are there, inert
    assert "Tool result:" in text and "Failed: " in text


def test_hostile_titles_model_ids_and_stored_messages_are_read_out_inert(
    start_plain: Start, tmp_path: Path, work_dir: Path
) -> None:
    from tests.test_cli_hostile import hostile_home

    home, _dialog_id = hostile_home(tmp_path)
    terminal = start_plain(home=home)
    terminal.prompt()
    for command in ("/dialogs", "/open 1", "/history", "/branches", "/model", "/export"):
        terminal.send(command)
        terminal.prompt()
    assert terminal.finish() == 0
    assert leaks(terminal.output) == [], terminal.text
    assert control_characters(terminal.output) == []
    assert "1. Title OSC 52 clipboard, BEL:" in terminal.text  # the title is listed, cut and inert
    assert "Tool call: tool" in terminal.text and "Tool result: result OSC 52" in terminal.text
    exported = list(work_dir.iterdir())  # /export with no name writes into the folder it runs in: the test's
    assert len(exported) == 1 and exported[0].name.startswith("visindigo-Title-OSC-52-clipboard")
    assert control_characters(exported[0].name.encode()) == []
