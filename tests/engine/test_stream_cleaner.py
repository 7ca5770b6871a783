"""`StreamCleaner` over every way a stream can cut a hostile sequence: the result is what cleaning the whole
text gives. Found by the plain mode's pty test: an OSC string whose piece ended on the ESC of its terminator
(`ESC \\`) let the string's body through (`0;WINDOWTITLE`)."""

from __future__ import annotations

import pytest

from tests.hostile_text import SEQUENCES
from visindigo.engine.sanitize import StreamCleaner, clean


@pytest.mark.parametrize(("name", "sequence"), SEQUENCES, ids=[name for name, _ in SEQUENCES])
def test_every_two_cuts_of_a_sequence_clean_as_the_whole(name: str, sequence: str) -> None:
    text = f"before {sequence} after"
    expected = clean(text)
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            cleaner = StreamCleaner()
            shown = cleaner.feed(text[:first]) + cleaner.feed(text[first:second]) + cleaner.feed(text[second:])
            assert shown + cleaner.flush() == expected, (text[:first], text[first:second], text[second:])


# Strings main's hostile set lacks: DCS and APC bodies, and a C1 OSC closed by ESC \ (from the ask branch).
ST_STRINGS = {
    "DCS with ST": "\x1bP+qMARK\x1b\\",
    "APC with ST": "\x1b_APPLICATION\x1b\\",
    "C1 OSC with ST": "\x9d0;CONE\x1b\\",
}


@pytest.mark.parametrize("sequence", ST_STRINGS.values(), ids=ST_STRINGS.keys())
def test_a_string_closed_by_st_cut_at_any_point_leaves_nothing_of_its_body(sequence: str) -> None:
    text = f"before {sequence} after"
    for cut in range(1, len(text)):
        cleaner = StreamCleaner()
        shown = cleaner.feed(text[:cut]) + cleaner.feed(text[cut:]) + cleaner.flush()
        assert shown == clean(text) == "before  after", (cut, shown)


def test_the_escape_of_a_terminator_is_held_until_its_backslash_arrives() -> None:
    cleaner = StreamCleaner()
    assert cleaner.feed("title \x1b]0;PWNED\x1b") == "title "
    assert cleaner.feed("\\ shown") == " shown"
    assert cleaner.flush() == ""
