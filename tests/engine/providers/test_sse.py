"""The batched SSE reader: framing rules, and the same events whatever way the body is cut into pieces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from visindigo.engine.providers.sse import SSEParser


def parse(pieces: list[str]) -> list[tuple[str, str]]:
    parser = SSEParser()
    events = []
    for piece in pieces:
        events += parser.feed(piece)
    return events + parser.flush()


def test_framing_rules() -> None:
    body = (
        ": keep-alive comment\n\n"
        "data: one\n\n"
        "data:two\n\n"
        "event: message_start\ndata: {\"a\": 1}\n\n"
        "data: line1\ndata: line2\n\n"
        "id: 7\nretry: 10\ndata: after-fields\n\n"
        "data: crlf\r\n\r\n"
        "data: cr\r\r"
        "data:  two spaces\n\n"
        "event: lonely\n\n"
        "data: [DONE]\n\n"
    )
    assert parse([body]) == [
        ("", "one"),
        ("", "two"),
        ("message_start", '{"a": 1}'),
        ("", "line1\nline2"),
        ("", "after-fields"),
        ("", "crlf"),
        ("", "cr"),
        ("", " two spaces"),
        ("", "[DONE]"),
    ]


def test_an_unterminated_last_event_is_still_delivered() -> None:
    assert parse(['data: {"ok": 1}\n\ndata: {"choi']) == [("", '{"ok": 1}'), ("", '{"choi')]
    assert parse(["data: [DONE]"]) == [("", "[DONE]")]


def test_crlf_split_between_pieces() -> None:
    assert parse(["data: a\r", "\n\r", "\ndata: b\r\n\r\n"]) == [("", "a"), ("", "b")]


EVENT = st.tuples(
    st.sampled_from(["", "message_start", "ping"]),
    st.lists(st.text(alphabet="ab{}:\" é", max_size=8), min_size=1, max_size=3),
)


@given(
    events=st.lists(EVENT, max_size=6),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
)
def test_any_cutting_gives_the_same_events(
    events: list[tuple[str, list[str]]], newline: str, cuts: list[int]
) -> None:
    body = ""
    for name, lines in events:
        if name:
            body += f"event: {name}{newline}"
        body += "".join(f"data: {line}{newline}" for line in lines) + newline
    points = sorted({c % (len(body) + 1) for c in cuts})
    pieces = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    expected = [(name, "\n".join(lines)) for name, lines in events]
    assert parse([body]) == expected
    assert parse(pieces) == expected
