"""Each `/` command of the plain mode on a pty, against the loopback server and a real store."""

from __future__ import annotations

import json
from pathlib import Path

from tests.llm_server import LLMServer, RecordedRequest, Reply, openai_stream
from tests.plain.conftest import Start
from tests.plain.terminal import PlainTerminal, control_characters
from visindigo.engine import Center, Role


def posts(server: LLMServer) -> list[RecordedRequest]:
    return [request for request in server.requests if request.method == "POST"]


def ask(terminal: PlainTerminal, line: str) -> str:
    """Type a line and return what the program wrote until its next prompt."""
    terminal.send(line)
    return terminal.prompt()


def test_regenerate_makes_a_branch_and_branches_list_the_alternatives(
    start_plain: Start, llm_server: LLMServer
) -> None:
    llm_server.queue(openai_stream(["First answer"]), openai_stream(["Second answer"]))
    terminal = start_plain()
    terminal.prompt()
    ask(terminal, "a question")
    seen = ask(terminal, "/regenerate")
    assert "Another answer, in a new branch (/branches lists the alternatives).\n" in seen
    assert "Answer: Second answer\n" in seen
    listed = ask(terminal, "/branches")
    assert "At message 2, 2 alternatives (this is 2 of 2):\n" in listed
    assert "1. answer: First answer, by test-model\n" in listed
    assert "2. answer: Second answer, by test-model, shown now\n" in listed
    shown = ask(terminal, "/branch 1")
    assert "Showing that branch; it parts from the other at message 2:\n2. Answer: First answer\n" in shown
    assert "That is the branch shown now." in ask(terminal, "/branch 1")
    assert "There is no number 3: /branches lists 2." in ask(terminal, "/branch 3")
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []
    assert len(posts(llm_server)) == 2


def test_edit_asks_again_in_a_new_branch(start_plain: Start, llm_server: LLMServer, plain_home: Path) -> None:
    llm_server.queue(openai_stream(["About the first"]), openai_stream(["About the second"]))
    terminal = start_plain(term="dumb")  # the terminal's own line editing: no text put on the line to edit
    terminal.prompt()
    ask(terminal, "first question")
    assert "Message 2 is not one of yours" in ask(terminal, "/edit 2")
    terminal.send("/edit 1")
    asked = terminal.expect('New text for message 1 (empty keeps it; """ for several lines): ')
    assert "Message 1 says: first question\n" in asked
    seen = ask(terminal, "second question")
    assert "Message 1 edited, in a new branch; asking again.\n" in seen
    assert "Answer: About the second\n" in seen
    assert posts(llm_server)[-1].json["messages"][-1] == {"role": "user", "content": "second question"}
    listed = ask(terminal, "/branches")
    assert "1. your message: first question\n" in listed and "2. your message: second question, shown now\n" in listed
    terminal.send("/edit")
    terminal.expect("New text for message 1")
    assert "Nothing changed." in ask(terminal, "")
    assert terminal.finish() == 0
    center = Center.open(plain_home)
    try:
        assert sorted(s.message_count for s in center.dialog_summaries()) == [2, 2]
    finally:
        center.close()


def seed(home: Path) -> None:
    center = Center.open(home)
    try:
        trip = center.create_dialog()
        trip.title = "Trip plan"
        trip.append_message(Role.USER, "Plan three days in Kyoto")
        trip.append_message(Role.ASSISTANT, "Day 1: temples.")
        sql = center.create_dialog()
        sql.title = "SQL review"
        sql.append_message(Role.USER, "Review this query")
    finally:
        center.close()


def test_dialogs_open_history_and_new(start_plain: Start, llm_server: LLMServer, plain_home: Path) -> None:
    seed(plain_home)
    terminal = start_plain()
    assert "Continuing 'SQL review', 1 message" in terminal.prompt()
    listed = ask(terminal, "/dialogs")
    assert "2 dialogs; /open N opens one:\n" in listed
    assert "1. Trip plan, 2 messages\n" in listed and "2. SQL review, 1 message, open now\n" in listed
    assert "1 of 2 dialogs match 'trip':\n1. Trip plan" in ask(terminal, "/dialogs trip")
    opened = ask(terminal, "/open 1")
    assert "Opened 'Trip plan', 2 messages:\n1. You: Plan three days in Kyoto\n2. Answer: Day 1: temples.\n" in opened
    assert "End of the dialog. Model: test-model of local." in opened
    assert "2. Answer: Day 1: temples." in ask(terminal, "/history 1")
    assert "There is no number 7: /dialogs lists 2." in ask(terminal, "/open 7")
    assert "Give the number from /dialogs" in ask(terminal, "/open Trip")
    assert "A new dialog. Model: test-model of local." in ask(terminal, "/new")
    assert "This dialog is new already" in ask(terminal, "/new")
    assert "No messages yet." in ask(terminal, "/history")
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []


def test_model_lists_every_model_and_chooses_one(start_plain: Start, llm_server: LLMServer) -> None:
    llm_server.models = ["test-model", "listed-model"]
    llm_server.queue(openai_stream(["from the other"]))
    terminal = start_plain()
    terminal.prompt()
    listed = ask(terminal, "/model")
    assert "3 models; /model N chooses one for this dialog:\n" in listed
    assert "1. test-model, of local, can do text, tools, reasoning, chosen\n" in listed
    assert "2. other-model, of local, can do text, tools\n" in listed
    assert "3. listed-model, of local" in listed
    assert "Model: other-model of local, for this dialog." in ask(terminal, "/model 2")
    ask(terminal, "hello")
    assert posts(llm_server)[-1].json["model"] == "other-model"
    assert "No provider lists a model 'nope'" in ask(terminal, "/model nope")
    assert "Model: listed-model of local, for this dialog." in ask(terminal, "/model local/listed-model")
    assert terminal.finish() == 0


def test_export_writes_markdown_or_json(start_plain: Start, llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.queue(openai_stream(["An answer to export"]))
    terminal = start_plain()
    terminal.prompt()
    assert "Nothing to export yet" in ask(terminal, "/export")
    ask(terminal, "export me")
    markdown, document = tmp_path / "out.md", tmp_path / "out.json"
    assert f"Exported as Markdown to {markdown}." in ask(terminal, f"/export {markdown}")
    assert f"Exported as JSON to {document}." in ask(terminal, f"/export {document}")
    assert terminal.finish() == 0
    assert "export me" in markdown.read_text() and "An answer to export" in markdown.read_text()
    exported = json.loads(document.read_text())["dialogs"][0]["messages"]
    assert [m["content"] for m in exported] == ["export me", "An answer to export"]


def test_help_unknown_commands_and_a_line_that_begins_with_a_slash(start_plain: Start, llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["ok"]))
    terminal = start_plain()
    terminal.prompt()
    shown = ask(terminal, "/help")
    for command in ("new", "dialogs", "open", "history", "regenerate", "edit", "branches", "branch", "model",
                    "template", "attach", "compare", "export", "help", "quit"):  # fmt: skip
        assert f"\n/{command}" in shown, command
    assert "\nTab completes a command, and a unique beginning is enough (/reg is /regenerate)." in shown
    assert "There is no command /bogus" in ask(terminal, "/bogus")
    assert "/h could be /history, /help." in ask(terminal, "/h")
    assert "No messages yet." in ask(terminal, "/hist")  # a unique beginning is enough
    ask(terminal, "//etc is a folder")
    assert posts(llm_server)[-1].json["messages"][-1]["content"] == "/etc is a folder"
    terminal.send("/quit")
    assert terminal.wait() == 0


def test_tab_completes_a_command_with_readline(start_plain: Start, llm_server: LLMServer) -> None:
    terminal = start_plain()
    terminal.prompt()
    terminal.type(b"/hel\t\r")
    assert "/quit: leave" in terminal.prompt()
    terminal.type(b"/template Tr\t\r")
    terminal.expect("Template 'Trip report': Ask for a short trip plan.")
    terminal.expect("days [3]: ")
    terminal.type(b"\x03")
    assert "The template was not used." in terminal.prompt()
    terminal.type(b"/model oth\t\r")  # a model id completes too (and so after /compare)
    assert "Model: other-model of local, for this dialog." in terminal.prompt()
    terminal.type(b"/model local/te\t\r")
    assert "Model: test-model of local, for this dialog." in terminal.prompt()
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []


def by_model(request: RecordedRequest) -> Reply:
    return openai_stream([f"answer from {request.json['model']}"])


def test_compare_reads_the_answers_out_and_takes_the_pick(start_plain: Start, llm_server: LLMServer) -> None:
    llm_server.responder = by_model
    terminal = start_plain()
    terminal.prompt()
    terminal.send("/compare 1 2")
    terminal.expect("Question for every model")
    terminal.send("Which is best?")
    seen = terminal.expect("Which answer do you pick? A, B, or empty to keep them all as branches: ")
    assert "Comparing 2 models: A test-model, B other-model.\n" in seen
    assert "A (test-model) has answered.\n" in seen and "B (other-model) has answered.\n" in seen
    assert "Answer A (test-model): answer from test-model\n" in seen
    assert "Answer B (other-model): answer from other-model\n" in seen
    picked = ask(terminal, "B")
    assert "Picked B.\n" in picked and "Showing the branch of B (other-model)" in picked
    assert "2. Answer: answer from other-model" in ask(terminal, "/history")
    listed = ask(terminal, "/branches")
    assert "At message 2, 2 alternatives" in listed and "answer from test-model" in listed
    terminal.send("/compare blind")  # the last set again, blind
    terminal.expect("The models compared last time: test-model, other-model.")
    terminal.expect("Question for every model")
    terminal.send("")  # answer the last question again
    seen = terminal.expect("Which answer do you pick?")
    assert "Comparing 2 models blind, as A, B: named once you pick." in seen
    assert "Answer A: answer from" in seen and "Answer B: answer from" in seen
    revealed = ask(terminal, "")
    assert "The models were: A (" in revealed
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []


def test_colour_only_when_asked_and_never_under_no_color(start_plain: Start, llm_server: LLMServer) -> None:
    import re

    llm_server.queue(openai_stream(["coloured"]), openai_stream(["plain"]))
    terminal = start_plain("--color")
    terminal.prompt()
    assert "coloured" in ask(terminal, "hi")
    assert terminal.finish() == 0
    escapes = re.findall(rb"\x1b[^a-zA-Z]*[a-zA-Z]", terminal.output)
    assert b"\x1b[1m" in escapes and set(escapes) <= {b"\x1b[1m", b"\x1b[22m", b"\x1b[32m", b"\x1b[39m"}
    quiet = start_plain("--color", NO_COLOR="1")
    quiet.prompt()
    assert "plain" in ask(quiet, "hi")
    assert quiet.finish() == 0
    assert control_characters(quiet.output) == []


def test_readline_editing_writes_no_escape_sequence(start_plain: Start, llm_server: LLMServer) -> None:
    """Readline draws as for a dumb terminal on a very wide screen: a line longer than the terminal, backspaces,
    a line put up to edit and cleared with ctrl+u, history with the up arrow — and not one escape sequence."""
    llm_server.queue(openai_stream(["long one"]), openai_stream(["short one"]), openai_stream(["again"]))
    terminal = start_plain()
    terminal.prompt()
    terminal.type(b"x" * 150 + b"\x7f\x7f" + b"y" * 50 + b"\r")
    terminal.expect("Answer complete")
    terminal.prompt()
    assert posts(llm_server)[-1].json["messages"][-1]["content"] == "x" * 148 + "y" * 50
    terminal.send("/edit 1")
    terminal.expect("for several lines): " + "x" * 148 + "y" * 50)  # the old text is on the line, to edit
    terminal.type(b"\x15short\r")
    terminal.expect("Answer: short one")
    terminal.prompt()
    assert posts(llm_server)[-1].json["messages"][-1]["content"] == "short"
    terminal.type(b"\x1b[A\x1b[A\x1b[B\r")  # up, up, down: the line before the last ("/edit 1"), then down again
    terminal.expect("for several lines): short")
    terminal.type(b"\x15again\r")
    terminal.expect("Answer: again")
    terminal.prompt()
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []
