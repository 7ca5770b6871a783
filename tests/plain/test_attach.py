"""/attach in the plain mode: the engine's attachments (branch `attach`) going with the next message."""

from __future__ import annotations

from pathlib import Path

from tests.llm_server import LLMServer, openai_stream
from tests.plain.conftest import Start
from tests.plain.terminal import PlainTerminal, control_characters


def ask(terminal: PlainTerminal, line: str) -> str:
    terminal.send(line)
    return terminal.prompt()


def test_a_file_goes_with_the_next_message(start_plain: Start, llm_server: LLMServer, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("NOTES-LINE about Kyoto\n", encoding="utf-8")
    big = tmp_path / "big.log"
    big.write_text("log line\n" * 20_000, encoding="utf-8")
    from PIL import Image

    Image.new("RGB", (8, 8)).save(tmp_path / "dot.png")
    llm_server.queue(openai_stream(["Read it."]))
    terminal = start_plain()
    terminal.prompt()
    assert "Nothing is attached." in ask(terminal, "/attach")
    attached = ask(terminal, f"/attach {notes}")
    assert "Attached notes.md (text · 23 B); it goes with your next message (1 attached).\n" in attached
    # a long path keeps its end (the file's name) and is cut at the front, so only the end is fixed here
    refused = ask(terminal, f"/attach {tmp_path}/missing.txt")
    assert "Not attached: there is no file '" in refused and "missing.txt'." in refused
    assert "Not attached: 'test-model' takes no images" in ask(terminal, f"/attach {tmp_path}/dot.png")
    terminal.send(f"/attach {big}")
    assert "is 180.0 kB of text, more than the limit" in terminal.expect("Attach its first part instead? yes or no: ")
    assert "Attached big.log (text · first 100.0 kB of 180.0 kB)" in ask(terminal, "yes")
    listed = ask(terminal, "/attach")
    assert "Going with your next message (2):\n1. notes.md (text · 23 B)\n2. big.log" in listed
    ask(terminal, "summarise")
    sent = str([r for r in llm_server.requests if r.method == "POST"][-1].json["messages"][-1])
    assert "summarise" in sent and "NOTES-LINE about Kyoto" in sent and "log line" in sent
    assert "1. You: summarise (attached: notes.md (text · 23 B), big.log" in ask(terminal, "/history")
    assert "Nothing is attached." in ask(terminal, "/attach")  # they went with the message
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []
