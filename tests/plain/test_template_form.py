"""/template: the app's template form read out and asked field by field, checked by the engine, rendered,
read back, and sent only when the user says so; the values are remembered for the next use."""

from __future__ import annotations

from tests.llm_server import LLMServer, openai_stream
from tests.plain.conftest import Start
from tests.plain.terminal import control_characters


def test_the_form_is_read_out_field_by_field(start_plain: Start, llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["A busy plan."]))
    terminal = start_plain()
    terminal.prompt()
    terminal.send("/template")
    assert (
        "1 template; /template NAME or N fills one:\n1. Trip report: Ask for a short trip plan\n" in terminal.prompt()
    )

    terminal.send("/template trip report")
    opening = terminal.expect("\ndays [3]: ")
    assert "Template 'Trip report': Ask for a short trip plan.\n" in opening
    assert "4 fields. Enter keeps the value in brackets, - empties it, ctrl+c gives up.\n" in opening
    assert "Field 1 of 4, days: a number, optional, at least 1, at most 14, default 3.\n" in opening
    terminal.send("20")
    assert "Problem: days: must be at most 14.\n" in terminal.expect("\ndays [3]: ")
    terminal.send("")
    asked = terminal.expect("\ncity: ")
    assert "Field 2 of 4, city: text, required, for example Kyoto.\n" in asked
    terminal.send("")
    assert "Problem: city is required.\n" in terminal.expect("\ncity: ")
    terminal.send("Osaka")
    asked = terminal.expect("\npace [slow]: ")
    assert "Field 3 of 4, pace: a choice, optional, options 1 slow, 2 busy, default slow.\n" in asked
    terminal.send("3")
    assert "Problem: pace: choose one of slow, busy." in terminal.expect("\npace [slow]: ")
    terminal.send("2")
    asked = terminal.expect("\nmuseums [yes]: ")
    assert "Field 4 of 4, museums: yes or no, optional, default yes.\n" in asked
    terminal.send("no")
    preview = terminal.expect("Send it? yes, no, or edit: ")
    assert "The message will read:\nPlan 3 days in Osaka,\nbusy, museums false.\n" in preview
    terminal.send("yes")
    sent = terminal.prompt()
    assert "Answer: A busy plan.\n" in sent
    request = [r for r in llm_server.requests if r.method == "POST"][-1]
    assert request.json["messages"][-1] == {"role": "user", "content": "Plan 3 days in Osaka,\nbusy, museums false."}

    terminal.send("/template 1")  # last time's values are offered again
    terminal.expect("\ndays [3]: ")
    terminal.send("")
    terminal.expect("\ncity [Osaka]: ")
    terminal.send("")
    terminal.expect("\npace [busy]: ")
    terminal.send("1")
    terminal.expect("\nmuseums [no]: ")
    terminal.send("-")
    assert "busy" not in terminal.expect("Send it? yes, no, or edit: ").split("The message will read:")[1]
    terminal.send("no")
    assert "The template was not sent." in terminal.prompt()
    assert "No template is called 'nothing'" in (terminal.send("/template nothing") or terminal.prompt())
    assert terminal.finish() == 0
    assert len([r for r in llm_server.requests if r.method == "POST"]) == 1
    assert control_characters(terminal.output) == []


def test_the_demo_template_can_be_edited_before_it_is_sent(start_plain: Start) -> None:
    terminal = start_plain("--demo", term="dumb")
    assert "The demo: its model and its dialogs live in memory" in terminal.prompt()
    terminal.send("/template Weather")
    asked = terminal.expect("\ncity: ")
    assert "Field 1 of 2, city: text, required, for example Kyoto.\n" in asked
    terminal.send("Nara")
    terminal.expect("\nstyle [briefly]: ")
    terminal.send("")
    assert "What's the weather in Nara?\nAnswer briefly." in terminal.expect("Send it? yes, no, or edit: ")
    terminal.send("edit")
    terminal.expect("Your text")
    terminal.send("What's the weather in Nara tomorrow?")
    seen = terminal.expect("Answer complete")
    assert "Tool call: get_weather city=Nara" in seen
    terminal.prompt()
    terminal.send("/history 4")
    assert "You, template Weather report: What's the weather in Nara tomorrow?" in terminal.prompt()
    assert terminal.finish() == 0
