"""The window of messages that have views (issue 14 §1): bounded, and at either end in one step."""

from __future__ import annotations

from visindigo.tui.chat.view_window import FOLLOW_KEEP, LIMIT, STEP, Window


def test_a_long_dialog_opens_on_its_last_messages_and_home_goes_to_the_first_at_once() -> None:
    window = Window.at_end(2000)
    assert (window.start, window.end, window.earlier, window.later) == (2000 - STEP, 2000, 2000 - STEP, 0)
    top = Window.at_start(2000)
    assert (top.start, top.end, top.later) == (0, STEP, 2000 - STEP)
    assert Window.at_start(5) == Window(0, 5, 5) and Window.at_end(5) == Window(0, 5, 5)


def test_a_window_around_a_message_shows_it_near_its_top() -> None:
    window = Window.at_end(2000, around=700)
    assert window.start <= 700 < window.end and window.end - window.start == STEP
    assert Window.at_end(2000, around=1990) == Window.at_end(2000)  # near the end: the end window


def test_stepping_never_holds_more_than_the_limit_and_stops_at_the_edges() -> None:
    window = Window.at_end(2000)
    sizes = []
    for _ in range(60):
        window = window.step_back()
        sizes.append(window.end - window.start)
    assert window.start == 0 and max(sizes) == LIMIT
    assert window.step_back() == window  # nothing earlier
    for _ in range(60):
        window = window.step_forward()
        assert window.end - window.start <= LIMIT
    assert window.reaches_end and window.step_forward() == window


def test_new_messages_join_a_window_at_the_end_and_the_oldest_leave_only_while_following() -> None:
    window = Window.at_end(10)
    for count in range(11, 400):
        window = window.grown(count, trim=True)
    assert window.reaches_end and window.end - window.start == FOLLOW_KEEP
    kept = window.grown(500, trim=False)  # the reader scrolled up: nothing above them is removed
    assert (kept.start, kept.end) == (window.start, 500)
    middle = Window.at_start(2000)
    assert middle.grown(2001, trim=True) == Window(0, STEP, 2001)  # not at the end: the new one has no view
