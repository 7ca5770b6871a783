"""Separating inline `<think>…</think>` reasoning from the answer, as content streams in.

Raw reasoning models behind plain servers (llama.cpp with `--reasoning-format none`, LM Studio, Ollama
templates, Qwen3, DeepSeek-R1 distills) write their thoughts into the content. Only a `<think>` at the very start
of the message (after whitespace) opens a thought, and the first `</think>` closes it; later tags are answer
text. Tags may be split across chunks, so a possible partial tag is held back until the next chunk decides.
Models whose template already opened the thought (DeepSeek-R1 style) start inside it: `starts_in_thinking`.
That flag is a guess about a model, and servers change: a model so marked that writes `<think>` anyway gets the
tag dropped, and when the server itself delivers the reasoning in a field (`server_separates_reasoning`), the
content is the answer and is read as for any other model — otherwise the whole answer would vanish into the
reasoning.
"""

from __future__ import annotations

__all__ = ["ThinkSplitter"]

OPEN = "<think>"
CLOSE = "</think>"


class ThinkSplitter:
    """Feed content chunks; get (is_reasoning, text) pieces. `passthrough` is True once only answer remains."""

    __slots__ = ("_buffer", "_state", "passthrough")

    def __init__(self, *, starts_in_thinking: bool = False) -> None:
        # states: "start" (may still open), "inside" (inside, but a leading "<think>" is still dropped),
        # "think" (inside), "after" (just closed: drop leading blank lines)
        self._state = "inside" if starts_in_thinking else "start"
        self._buffer = ""
        self.passthrough = False

    def feed(self, text: str) -> list[tuple[bool, str]]:
        if self.passthrough:
            return [(False, text)] if text else []
        self._buffer += text
        out: list[tuple[bool, str]] = []
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
                return self._answer(out, self._buffer)
            if self._state == "think":
                end = self._buffer.find(CLOSE)
                if end >= 0:
                    if end:
                        out.append((True, self._buffer[:end]))
                    self._buffer = self._buffer[end + len(CLOSE) :]
                    self._state = "after"
                    continue
                keep = _partial_suffix(self._buffer, CLOSE)
                emit = self._buffer[: len(self._buffer) - keep]
                if emit:
                    out.append((True, emit))
                self._buffer = self._buffer[len(emit) :]
                return out
            # after the closing tag: the answer starts at the first non-blank character
            stripped = self._buffer.lstrip()
            if not stripped:
                self._buffer = ""
                return out
            return self._answer(out, stripped)

    def _answer(self, out: list[tuple[bool, str]], text: str) -> list[tuple[bool, str]]:
        self.passthrough = True
        self._buffer = ""
        if text:
            out.append((False, text))
        return out

    def server_separates_reasoning(self) -> None:
        """The server sent reasoning in a field of its own: content that has not started yet is the answer,
        whatever `starts_in_thinking` assumed (a leading `<think>` block is still taken as reasoning)."""
        if self._state == "inside" and not self._buffer.strip():
            self._state = "start"

    def flush(self) -> list[tuple[bool, str]]:
        """What is still held back when the stream ends: a partial tag is text after all."""
        text, self._buffer = self._buffer, ""
        if not text or self.passthrough:
            return []
        if self._state == "think":
            return [(True, text)]
        if not text.strip():
            return []
        if self._state == "inside":
            return [(True, text)]
        if self._state == "start":
            return [(False, text)]
        return []


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a start of `tag` (0 when none)."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
