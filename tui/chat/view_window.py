"""Which of a dialog's messages have views: a window that moves instead of growing (issue 14 §1).

Mounting every message that was ever scrolled past made memory and each frame's layout grow with the dialog:
reaching the top of a 2,000-message dialog took dozens of presses of Home, minutes and hundreds of megabytes
(`bench/tui_stream.py --only long-dialog` measures it). The message list keeps views only for the messages of
one window, at most `LIMIT` long: Home and End put the window at either end of the dialog at once, scrolling
past an edge of the window moves it by `STEP` messages, and the views that fall out of it are removed (their
render caches go with them). Messages outside the window are only text in the dialog; the markers above and
below the window say how many there are.

This module is the arithmetic, kept apart from the widgets so it can be checked on its own.
"""

from __future__ import annotations

from visindigo.engine.record import record

#: Messages given views when a dialog opens, and per step when the window moves.
STEP = 40
#: Messages kept while the list follows new replies: replies are long (a 500-token answer is ~60 rows), so 20
#: messages are several screenfuls; the views above them go and scrolling up brings them back.
FOLLOW_KEEP = STEP // 2
#: The most messages with views at once: three steps, so a step never removes what is on screen.
LIMIT = 3 * STEP


#: Rows a message view adds to its text: the margin below it (the role sits in the gutter, beside the text).
VIEW_ROWS = 1


def estimated_rows(text: str, width: int) -> int:
    """Rows a message of `text` takes in a pane `width` columns wide, before it is rendered: each line wrapped
    at the text's width (the pane less the gutter and padding), plus the view's own rows."""
    columns = max(10, width - 8)
    return VIEW_ROWS + sum(1 + len(line) // columns for line in text.split("\n"))


@record(frozen=True)
class Window:
    """Messages `start` ≤ i < `end` of a dialog of `count` messages have views."""

    start: int
    end: int
    count: int

    @classmethod
    def at_end(cls, count: int, *, around: int | None = None) -> Window:
        """The last `STEP` messages, or, with `around`, a window that shows message `around` (just below its top)."""
        if around is None or around >= count - STEP:
            return cls(max(0, count - STEP), count, count)
        start = max(0, around - 2)
        return cls(start, min(count, start + STEP), count)

    @classmethod
    def at_start(cls, count: int) -> Window:
        return cls(0, min(count, STEP), count)

    @property
    def earlier(self) -> int:
        """How many messages come before the window."""
        return self.start

    @property
    def later(self) -> int:
        """How many messages come after the window."""
        return self.count - self.end

    @property
    def reaches_end(self) -> bool:
        return self.end >= self.count

    def grown(self, count: int, *, trim: bool) -> Window:
        """The dialog has `count` messages now: a window that reached the end takes the new ones in, and with
        `trim` (the list follows the bottom, so nothing above moves under the reader) keeps only the last
        `FOLLOW_KEEP`: reply after reply in one dialog then holds a bounded number of views."""
        if not self.reaches_end:
            return Window(min(self.start, count), min(self.end, count), count)
        start = max(self.start, count - FOLLOW_KEEP) if trim else self.start
        return Window(start, count, count)

    def step_back(self, step: int = STEP) -> Window:
        """`step` messages earlier, dropping as many at the far end as needed to stay within `LIMIT`."""
        start = max(0, self.start - step)
        return Window(start, min(self.end, start + LIMIT), self.count)

    def step_forward(self, step: int = STEP) -> Window:
        """`step` messages later, dropping as many at the near end as needed to stay within `LIMIT`."""
        end = min(self.count, self.end + step)
        return Window(max(self.start, end - LIMIT), end, self.count)
