"""A long answer as a screen reader's review cursor meets it: the terminal's own scrollback.

Every byte the program wrote on the pty is fed to a terminal emulator of 80×24 (pyte) with a long history, and
the rows are read back top to bottom, as a screen reader's review mode or a user scrolling back reads them. The
answer must be there line after line in the order it arrived, wrapped only by the terminal, with nothing drawn
over — checked while the answer is still half way (the server holds the rest back) and again at the end — and
each change of state must be one row of its own, written once (issue 28, "A plain line mode").
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pyte

from tests.llm_server import LLMServer, openai_stream
from tests.plain.conftest import Start
from tests.plain.terminal import TIMEOUT, carriage_returns, control_characters

COLUMNS, ROWS = 80, 24


class HeldChunks(list[bytes]):
    """A reply's chunks; the loopback server's writer stops before chunk `hold_at` until `release` is set, so a
    test can look at the terminal while the answer is half way."""

    def __init__(self, chunks: list[bytes], hold_at: int) -> None:
        super().__init__(chunks)
        self.hold_at = hold_at
        self.release = threading.Event()

    def __iter__(self) -> Iterator[bytes]:
        for number, chunk in enumerate(list.__iter__(self)):
            if number == self.hold_at:
                self.release.wait(TIMEOUT)
            yield chunk


def scrollback(output: bytes) -> list[str]:
    """The rows of an 80×24 terminal fed `output`, from the oldest row of its history to the cursor's row."""
    screen = pyte.HistoryScreen(COLUMNS, ROWS, history=10_000)
    pyte.ByteStream(screen).feed(output)
    old = ["".join(row[column].data for column in range(COLUMNS)).rstrip() for row in screen.history.top]
    return old + [row.rstrip() for row in screen.display[: screen.cursor.y + 1]]


def wrapped(text: str) -> list[str]:
    """`text` as an 80-column terminal wraps it (ASCII only, no line exactly 80 wide)."""
    rows: list[str] = []
    for line in text.split("\n"):
        rows += [line[start : start + COLUMNS].rstrip() for start in range(0, len(line), COLUMNS)] or [""]
    return rows


def long_answer() -> str:
    """Sixty lines of Markdown-ish text: short lines, lines of two and three rows, a blank line, a fence."""
    lines = []
    for number in range(1, 61):
        words = " ".join(f"word{number}-{w}" for w in range(number % 17 + 1))
        lines.append(f"Line {number:02}: {words}.")
        if number == 20:
            lines += ["", "```python", "print('a fenced line in the middle')", "```", ""]
    assert not any(len(line) % COLUMNS == 0 and line for line in lines)
    return "\n".join(lines)


def find_rows(rows: list[str], wanted: list[str]) -> int:
    """Where `wanted` starts as a run of consecutive rows of `rows` (AssertionError if nowhere)."""
    for start in range(len(rows) - len(wanted) + 1):
        if rows[start : start + len(wanted)] == wanted:
            return start
    raise AssertionError(f"the rows {wanted[:3]}… are not in the scrollback:\n" + "\n".join(rows[-40:]))


def test_a_long_answer_reads_from_the_scrollback_as_it_arrived(start_plain: Start, llm_server: LLMServer) -> None:
    answer = long_answer()
    pieces = [answer[start : start + 13] for start in range(0, len(answer), 13)]  # cut across lines and words
    half = len(pieces) // 2
    reply = openai_stream(pieces, reasoning=["Planning sixty ", "lines."], usage=(12, 900))
    held = HeldChunks(reply.chunks, hold_at=1 + 2 + half)  # the role chunk, the reasoning, half the answer
    reply.chunks = held
    llm_server.queue(reply)
    terminal = start_plain()
    terminal.prompt()
    terminal.send("Write sixty lines")
    try:
        terminal.expect(pieces[half - 1])
        midway = scrollback(terminal.output)
        assert terminal.process.poll() is None and midway[-1] != ">"
    finally:
        held.release.set()
    terminal.expect("Answer complete")
    terminal.prompt()
    assert terminal.finish() == 0
    rows = scrollback(terminal.output)

    # half way, the half that had arrived was already readable, ending where the stream stood
    arrived = wrapped("Answer: " + "".join(pieces[:half]))
    assert midway[-len(arrived) :] == arrived
    # and nothing of it was drawn over since: the final scrollback begins with the rows seen half way
    assert rows[: len(midway) - 1] == midway[:-1]
    assert rows[len(midway) - 1].startswith(midway[-1])

    # the whole answer, row after row, exactly as the text wraps at 80 columns
    expected = wrapped("Answer: " + answer)
    start = find_rows(rows, expected)
    assert rows[start - 2 : start] == ["Asking test-model of local.", "Reasoning: Planning sixty lines."]
    ending = rows[start + len(expected)]
    assert ending.startswith("Answer complete, 900 tokens"), ending
    assert rows[start + len(expected) + 1] == ">"

    # every change of state is one row of its own, written once
    for state in ("Asking test-model of local.", "Reasoning: Planning sixty lines.", ending):
        assert rows.count(state) == 1, state
    assert sum(row.startswith("Answer") for row in rows) == 2  # the answer's first row and its end
    output = terminal.output
    assert control_characters(output) == []
    assert carriage_returns(output) == 0
