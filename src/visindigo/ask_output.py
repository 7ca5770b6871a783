"""How `visindigo ask` shows a run: the answer on stdout as it streams, everything else on stderr.

Three forms: plain text when stdout is not a terminal (a pipe, a file), Markdown rendered with rich when it is,
and `--json`, one object per line for each of the engine's events. The model's text is outside text: plain and
Markdown output pass it through the project's `StreamCleaner` (an escape sequence split between two deltas is
still removed) before anything is written; JSON keeps it whole, with every character a terminal would obey
written as a `\\u` escape. rich is imported only when a terminal is there to render on.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, Protocol, TextIO

if TYPE_CHECKING:
    import argparse

    from rich.console import Console
    from rich.live import Live

    from visindigo.engine.events import Event

#: The exit statuses as the `end` record of --json names them.
STATUS_WORDS = {0: "answered", 1: "failed", 2: "usage", 130: "interrupted"}
#: Events about the dialog's bookkeeping, not the run: left out of --json (the store is their audience).
_BOOKKEEPING = frozenset({"DialogChanged", "MessageAppended", "MessageUpdated", "MessagesTruncated"})
#: How often the live tail of a rendered answer is redrawn (seconds between two paints).
PAINT_EVERY = 1 / 12


class Output(Protocol):
    def event(self, event: Event) -> None: ...

    def finish(self) -> None:
        """The run is over: write what is still held."""

    def end(self, *, status: int, problem: str, dialog_id: str, saved: bool) -> None:
        """The outcome, for outputs that report it (--json)."""


def make_output(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> Output:
    if args.json:
        return JsonOutput(stdout, stderr, reasoning=args.reasoning)
    rendered = _is_terminal(stdout) and os.environ.get("TERM", "") != "dumb"
    sink: Sink = MarkdownSink(stdout) if rendered else PlainSink(stdout)
    return TextOutput(sink, stderr, reasoning=args.reasoning)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


# --- plain and rendered text --------------------------------------------------------------------------------


class Sink(Protocol):
    """Where the answer's (already cleaned) text goes."""

    def write(self, text: str) -> None: ...

    def pause(self) -> None:
        """Something else is about to be written to the terminal (a line on stderr)."""

    def settle(self) -> None:
        """A round of the answer is complete: show all of it as it stays."""

    def finish(self) -> None: ...


class TextOutput:
    """The answer to the sink, cleaned; reasoning (with --reasoning), tools and notices to stderr."""

    def __init__(self, sink: Sink, side: TextIO, *, reasoning: bool) -> None:
        from visindigo.engine.sanitize import StreamCleaner

        self.sink = sink
        self.side = side
        self.show_reasoning = reasoning
        self._answer = StreamCleaner()
        self._thought = StreamCleaner()
        self._thinking = False  # reasoning is on stderr without its closing newline
        self._written = ""  # the last characters of the answer written, to separate rounds
        self._separate = False

    def event(self, event: Event) -> None:
        from visindigo.engine import events

        if isinstance(event, events.StreamDelta):
            self._answer_text(self._answer.feed(event.text))
        elif isinstance(event, events.StreamReasoning):
            if self.show_reasoning:
                self._reasoning_text(self._thought.feed(event.text))
        elif isinstance(event, events.StreamEnded):
            self._answer_text(self._answer.flush())
            self._end_reasoning()
            self.sink.settle()
            self._separate = bool(self._written)  # a later round's text starts a new paragraph
        elif isinstance(event, events.ToolCallStarted):
            self._line(f"tool {event.function_id} {_arguments(event.arguments)}")
        elif isinstance(event, events.ToolCallFinished) and event.is_error:
            self._line(f"tool {event.function_id} failed: {event.result}")
        elif isinstance(event, events.Notice):
            self._line(event.text)
        elif isinstance(event, events.WaitingForProvider):
            self._line(f"waiting: {event.provider_name} is answering other questions")
        elif isinstance(event, events.AnswerMovedToReasoning) and event.text:
            self._line("the text above was the model's reasoning (it ended with </think>); the answer follows")

    def _answer_text(self, text: str) -> None:
        if not text:
            return
        self._end_reasoning()
        if self._separate:
            self._separate = False
            trailing = len(self._written) - len(self._written.rstrip("\n"))
            self.sink.write("\n" * (2 - trailing))
        self.sink.write(text)
        self._written = (self._written + text)[-2:]

    def _reasoning_text(self, text: str) -> None:
        if text:
            self.sink.pause()
            self.side.write(text)
            self.side.flush()
            self._thinking = not text.endswith("\n")

    def _end_reasoning(self) -> None:
        if self.show_reasoning:
            self._reasoning_text(self._thought.flush())
        if self._thinking:
            self.side.write("\n")
            self.side.flush()
            self._thinking = False

    def _line(self, text: str) -> None:
        from visindigo.engine.sanitize import clean_line

        self._end_reasoning()
        self.sink.pause()
        self.side.write(f"visindigo: {clean_line(text, 300)}\n")
        self.side.flush()

    def finish(self) -> None:
        self._answer_text(self._answer.flush())
        self._end_reasoning()
        self.sink.finish()

    def end(self, *, status: int, problem: str, dialog_id: str, saved: bool) -> None:
        """Plain and rendered output say nothing more: the exit status and stderr tell the rest."""


def _arguments(arguments: dict[str, Any]) -> str:
    import json

    return json.dumps(arguments, ensure_ascii=False, default=str) if arguments else ""


class PlainSink:
    """Text as it arrives, flushed at once: `ask … | less` and `ask … > file` see it stream."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._ends_line = True
        self._wrote = False

    def write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
        self._wrote = True
        self._ends_line = text.endswith("\n")

    def pause(self) -> None:
        pass

    def settle(self) -> None:
        pass

    def finish(self) -> None:
        if self._wrote and not self._ends_line:
            self.write("\n")


class MarkdownSink:
    """The answer rendered as Markdown on the terminal, block by block.

    A block (paragraph, list, code block, table) is printed rendered once the next one begins, which is when its
    Markdown can no longer change; the block still growing is shown beneath, redrawn in place a few times a
    second (a rich `Live`, erased before the block is printed for good). A growing block taller than the
    screen shows its last lines as they are.
    """

    def __init__(self, stream: TextIO, console: Console | None = None) -> None:
        from rich.console import Console

        self.console = console or Console(file=stream, highlight=False, emoji=False, markup=False)
        self.pending = ""
        self._printed = False
        self._live: Live | None = None
        self._painted_at = 0.0

    def write(self, text: str) -> None:
        self.pending += text
        settled, self.pending = split_settled(self.pending)
        if settled:
            self.pause()
            self._print(settled)
        now = time.monotonic()
        if now - self._painted_at >= PAINT_EVERY:
            self._painted_at = now
            self._paint()

    def _print(self, text: str) -> None:
        with self.console.capture() as captured:
            self.console.print(rendered(text))
        # rich starts some blocks (lists) with an empty line of their own; one blank line separates two blocks,
        # as in a document rendered whole
        output = captured.get().lstrip("\n")
        self.console.file.write(("\n" if self._printed else "") + output)
        self.console.file.flush()
        self._printed = True

    def _paint(self) -> None:
        if not self.pending.strip():
            return
        from rich.text import Text

        lines = self.pending.splitlines()
        room = max(1, self.console.height - 2)
        view: Any = rendered(self.pending) if len(lines) <= room else Text("\n".join(lines[-room:]))
        if self._live is None:
            from rich.live import Live

            self._live = Live(
                view,
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="crop",
            )
            self._live.start(refresh=True)
        else:
            self._live.update(view, refresh=True)

    def pause(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
            self._painted_at = 0.0

    def settle(self) -> None:
        self.pause()
        if self.pending.strip():
            self._print(self.pending)
        self.pending = ""

    def finish(self) -> None:
        self.settle()


def split_settled(text: str) -> tuple[str, str]:
    """(the blocks that can no longer change, the last block), split at the start of the last top-level block.

    Parsed with the parser rich's Markdown uses, so a block is what it will render as: a fence not yet closed,
    a list still growing or a setext heading still to get its underline stay in the last block.
    """
    from markdown_it import MarkdownIt

    global _parser
    if _parser is None:
        _parser = MarkdownIt().enable("strikethrough").enable("table")
    starts = [token.map[0] for token in _parser.parse(text) if token.level == 0 and token.map and token.nesting >= 0]
    if len(starts) < 2:
        return "", text
    lines = text.split("\n")
    return "\n".join(lines[: starts[-1]]), "\n".join(lines[starts[-1] :])


_parser: Any = None


def rendered(text: str) -> Any:
    """`text` as rich Markdown, line breaks kept as the app keeps them, links written out (a terminal hyperlink
    from model text could show one address and open another)."""
    from rich.markdown import Markdown

    markdown = Markdown(text, hyperlinks=False)
    stack = list(markdown.parsed)
    while stack:
        token = stack.pop()
        if token.type == "softbreak":
            token.type = "hardbreak"
        stack.extend(token.children or ())
    return markdown


# --- JSON lines -------------------------------------------------------------------------------------------------


class JsonOutput:
    """Each event of the run as one JSON object on its own line, `type` naming it (`stream_delta`, `tool_call_started`,
    `usage_reported`, `run_finished`, …), then an `end` object with the outcome."""

    def __init__(self, stream: TextIO, side: TextIO, *, reasoning: bool) -> None:
        self.stream = stream
        self.side = side
        self.show_reasoning = reasoning
        self._thought: Any = None

    def event(self, event: Event) -> None:
        import dataclasses

        name = type(event).__name__
        if name in _BOOKKEEPING:
            return
        values = {f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.repr}  # not StreamBegan.text
        self._write({"type": snake_case(name), **values})
        if self.show_reasoning and name == "StreamReasoning":
            from visindigo.engine.sanitize import StreamCleaner

            self._thought = self._thought or StreamCleaner()
            self.side.write(self._thought.feed(event.text))  # type: ignore[attr-defined]
            self.side.flush()

    def _write(self, record: dict[str, Any]) -> None:
        import json

        from visindigo.engine.sanitize import escape_json_for_terminal

        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        self.stream.write(escape_json_for_terminal(line) + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._thought is not None:
            self.side.write(self._thought.flush() + "\n")
            self.side.flush()

    def end(self, *, status: int, problem: str, dialog_id: str, saved: bool) -> None:
        record: dict[str, Any] = {"type": "end", "status": STATUS_WORDS.get(status, "failed"), "exit_code": status}
        record.update(dialog_id=dialog_id, saved=saved)
        if problem:
            record["error"] = problem
        self._write(record)


def snake_case(name: str) -> str:
    """`ToolCallStarted` -> `tool_call_started`."""
    return "".join(f"_{char.lower()}" if char.isupper() and index else char.lower() for index, char in enumerate(name))
