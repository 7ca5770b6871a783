"""The text of one round as it arrives, held once: by the run, read by whoever shows it.

Its own small module because a dialog makes one at construction, and the events load only on first use.
"""

from __future__ import annotations


class StreamText:
    """The text of one round as it arrives: the answer's and the reasoning's pieces, in the order they came.

    The run owns it: the dialog appends each delta here before it emits the `StreamDelta`, and hands it out
    with the round's `StreamBegan`. A reader keeps how many pieces it has shown and takes the rest
    (`answer[shown:]`), at its own pace, so nothing downstream copies the text delta by delta. A new round gets
    a new one; this one keeps the text it ended with (the message holds it from then on). Readers do not write.
    """

    __slots__ = ("answer", "reasoning")

    def __init__(self) -> None:
        self.answer: list[str] = []
        self.reasoning: list[str] = []

    def __repr__(self) -> str:
        return f"StreamText(answer={len(self.answer)} pieces, reasoning={len(self.reasoning)} pieces)"

    @property
    def answer_so_far(self) -> str:
        return "".join(self.answer)

    @property
    def reasoning_so_far(self) -> str:
        return "".join(self.reasoning)
