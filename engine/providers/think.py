"""Separating inline `<think>…</think>` reasoning from the answer, as content streams in.

Raw reasoning models behind plain servers (llama.cpp with `--reasoning-format none`, LM Studio, Ollama
templates, Qwen3, DeepSeek-R1 distills) write their thoughts into the content. Only a `<think>` at the very start
of the message (after whitespace) opens a thought, and the first `</think>` closes it; later tags are answer
text. Tags may be split across chunks, so a possible partial tag is held back until the next chunk decides.
Models whose template already opened the thought (DeepSeek-R1 style) start inside it: `starts_in_thinking`.
Without that setting such a model streams its reasoning and then a `</think>` that nothing opened (DeepSeek-R1
distills and QwQ behind a server without a reasoning parser). So content that did not start with `<think>` is
streamed as the answer while watching for a closing tag; when a first `</think>` arrives with no `<think>` before
it, everything streamed so far was reasoning: the splitter says so with a `MOVED` piece (the run loop moves the
text to the reasoning channel) and what follows the tag is the answer.
That flag is a guess about a model, and servers change: a model so marked that writes `<think>` anyway gets the
tag dropped, and when the server itself delivers the reasoning in a field (`server_separates_reasoning`), the
content is the answer and is read as for any other model — otherwise the whole answer would vanish into the
reasoning.
"""

from __future__ import annotations

from .base import MovedToReasoningPart, ReasoningPart, TextPart

__all__ = ["ANSWER", "MOVED", "PIECE_PARTS", "REASONING", "ThinkSplitter"]

OPEN = "<think>"
CLOSE = "</think>"

#: Kinds of the pieces `feed` returns: answer text, reasoning text, and "the answer so far was reasoning" (text "").
ANSWER, REASONING, MOVED = 0, 1, 2
#: The stream part for each kind of piece, indexed by kind (the adapter's per-token path: one tuple lookup).
PIECE_PARTS: tuple[type[TextPart] | type[ReasoningPart] | type[MovedToReasoningPart], ...] = (
    TextPart,
    ReasoningPart,
    MovedToReasoningPart,
)


class ThinkSplitter:
    """Feed content chunks; get (kind, text) pieces (`ANSWER` 0 and `REASONING` 1 read as a bool, `MOVED` 2).

    `passthrough` is True once only answer remains."""

    __slots__ = ("_buffer", "_state", "passthrough", "watching")

    def __init__(self, *, starts_in_thinking: bool = False) -> None:
        # states: "start" (may still open), "inside" (inside, but a leading "<think>" is still dropped),
        # "think" (inside), "after" (just closed: drop leading blank lines), "watch" (answer, unless a closing
        # tag that nothing opened shows it was reasoning), "plain" (answer: the held-back text goes out next)
        self._state = "inside" if starts_in_thinking else "start"
        self._buffer = ""
        self.passthrough = False
        #: In the answer, watching for a headless `</think>`, with nothing held back: a chunk without "<" is
        #: answer text as it is (the adapter's per-token shortcut; `feed` would say the same).
        self.watching = False

    def feed(self, text: str) -> list[tuple[int, str]]:
        pieces = self._feed(text)
        self.watching = self._state == "watch" and not self._buffer and not self.passthrough
        return pieces

    def _feed(self, text: str) -> list[tuple[int, str]]:
        if self.passthrough:
            return [(ANSWER, text)] if text else []
        if self._state == "watch" and not self._buffer and "<" not in text:
            return [(ANSWER, text)] if text else []  # a plain answer: no tag can start here
        self._buffer += text
        out: list[tuple[int, str]] = []
        while True:
            if self._state in ("start", "inside"):
                stripped = self._buffer.lstrip()
                if stripped.startswith(OPEN):
                    self._buffer = stripped[len(OPEN) :]
                    self._state = "think"
                    continue
                if not stripped or OPEN.startswith(stripped):
                    return out  # only whitespace or a partial "<think" so far: wait
                if self._state == "inside":
                    self._state = "think"
                    continue
                self._state = "watch"
                continue
            if self._state == "watch":
                return self._watch(out)
            if self._state == "plain":
                return self._answer(out, self._buffer)
            if self._state == "think":
                end = self._buffer.find(CLOSE)
                if end >= 0:
                    if end:
                        out.append((REASONING, self._buffer[:end]))
                    self._buffer = self._buffer[end + len(CLOSE) :]
                    self._state = "after"
                    continue
                keep = _partial_suffix(self._buffer, CLOSE)
                emit = self._buffer[: len(self._buffer) - keep]
                if emit:
                    out.append((REASONING, emit))
                self._buffer = self._buffer[len(emit) :]
                return out
            # after the closing tag: the answer starts at the first non-blank character
            stripped = self._buffer.lstrip()
            if not stripped:
                self._buffer = ""
                return out
            return self._answer(out, stripped)

    def _watch(self, out: list[tuple[int, str]]) -> list[tuple[int, str]]:
        """Answer text, held back only where it may be the start of a tag; a headless `</think>` moves it."""
        buffer = self._buffer
        end = buffer.find(CLOSE)
        opened = buffer.find(OPEN)
        if opened >= 0 and (end < 0 or opened < end):
            return self._answer(out, buffer)  # a tag opened inside the answer: later tags are answer text
        if end >= 0:
            if end:
                out.append((ANSWER, buffer[:end]))
            out.append((MOVED, ""))
            self._buffer = buffer[end + len(CLOSE) :]
            self._state = "after"
            return out + self._feed("")
        keep = max(_partial_suffix(buffer, CLOSE), _partial_suffix(buffer, OPEN))
        emit = buffer[: len(buffer) - keep]
        if emit:
            out.append((ANSWER, emit))
        self._buffer = buffer[len(emit) :]
        return out

    def _answer(self, out: list[tuple[int, str]], text: str) -> list[tuple[int, str]]:
        self.passthrough = True
        self._buffer = ""
        if text:
            out.append((ANSWER, text))
        return out

    def server_separates_reasoning(self) -> None:
        """The server sent reasoning in a field of its own: content that has not started yet is the answer,
        whatever `starts_in_thinking` assumed (a leading `<think>` block is still taken as reasoning)."""
        if self._state == "inside" and not self._buffer.strip():
            self._state = "start"
        elif self._state == "watch":  # the reasoning has its own channel: a closing tag in the answer is text
            self._state = "plain"
            self.watching = False

    def flush(self) -> list[tuple[int, str]]:
        """What is still held back when the stream ends: a partial tag is text after all."""
        text, self._buffer = self._buffer, ""
        if not text or self.passthrough:
            return []
        if self._state == "think":
            return [(REASONING, text)]
        if self._state in ("watch", "plain"):
            return [(ANSWER, text)]
        if not text.strip():
            return []
        if self._state == "inside":
            return [(REASONING, text)]
        if self._state == "start":
            return [(ANSWER, text)]
        return []


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a start of `tag` (0 when none)."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
