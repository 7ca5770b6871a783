"""Untrusted text loses every terminal control sequence before it can reach the screen."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from visindigo.tui.common.sanitize import StreamCleaner, clean

FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# Text biased towards the characters that matter: escapes, C1, CR, bidi controls, and sequence bodies.
hostile = st.text(
    alphabet=st.sampled_from(
        [
            "\x1b",
            "[",
            "]",
            "\\",
            "\x07",
            "\x9b",
            "\x9d",
            "\x9c",
            "\r",
            "\n",
            "\t",
            "\x00",
            "\x7f",
            "\u202e",
            "\u2066",
            "P",
            "3",
            "1",
            ";",
            "m",
            "2",
            "a",
            "é",
            "日",
            " ",
        ]
    ),
    max_size=80,
)


def test_csi_and_osc_sequences_are_removed_whole() -> None:
    text = "red \x1b[31mALERT\x1b[0m title \x1b]2;PWNED\x07 link \x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\ end"
    assert clean(text) == "red ALERT title  link y end"


def test_c1_forms_and_dcs_strings_are_removed() -> None:
    assert clean("a\x9b2Jb\x9d0;t\x9cc\x1bP+q\x1b\\d") == "abcd"


def test_newlines_and_tabs_survive_and_cr_becomes_newline() -> None:
    assert clean("a\tb\r\nc\rd\n") == "a\tb\nc\nd\n"


def test_bidi_overrides_and_other_controls_are_dropped() -> None:
    assert clean("access\u202e\u2066level\u2069 \x00\x08\x7fok") == "accesslevel ok"


def test_markup_like_text_is_left_alone() -> None:
    """Markup is not a control sequence: it is kept and later rendered literally (markup=False)."""
    assert clean("array[0] = a[i] [/x] [@click=app.quit]") == "array[0] = a[i] [/x] [@click=app.quit]"


@given(hostile)
def test_nothing_dangerous_survives(text: str) -> None:
    assert not FORBIDDEN.search(clean(text))


@given(hostile, st.lists(st.integers(min_value=0, max_value=80), max_size=6))
def test_streaming_in_any_pieces_shows_what_cleaning_the_whole_shows(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    cleaner = StreamCleaner()
    shown = "".join(cleaner.feed(piece) for piece in pieces) + cleaner.flush()
    assert not FORBIDDEN.search(shown)
    assert shown == clean(text)


def test_a_sequence_split_across_deltas_is_still_removed() -> None:
    cleaner = StreamCleaner()
    assert cleaner.feed("before \x1b") == "before "
    assert cleaner.feed("]2;PWN") == ""
    assert cleaner.feed("ED\x07after") == "after"
    assert cleaner.flush() == ""
