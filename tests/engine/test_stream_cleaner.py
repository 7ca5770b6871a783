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
