"""The vim keys' state machine without Textual: motions, operators, counts, registers, visual mode, modes."""

from __future__ import annotations

import pytest

from visindigo.tui.chat.vim import Buffer, VimState, motion


def run(text: str, cursor: int, keys: str, mode: str = "normal") -> tuple[str, int, VimState]:
    """Feed `keys` (space-separated names; a single character is typed as itself) and apply each outcome."""
    state = VimState(mode=mode)  # type: ignore[arg-type]
    buffer = Buffer(text, cursor)
    for key in keys.split():
        outcome = state.feed(key, key if len(key) == 1 else None, buffer)
        text = buffer.text
        if outcome.replace is not None:
            begin, end, new = outcome.replace
            text = text[:begin] + new + text[end:]
        cursor = outcome.cursor if outcome.cursor is not None else buffer.cursor
        buffer = Buffer(text, min(cursor, len(text)))
    return buffer.text, buffer.cursor, state


@pytest.mark.parametrize(
    ("keys", "cursor"),
    [
        ("l", 1),
        ("3 l", 3),
        ("$", 15),
        ("$ h", 14),
        ("$ 0", 0),
        ("w", 6),
        ("2 w", 11),
        ("e", 4),
        ("w b", 0),
        ("w w b", 6),
    ],
)
def test_motions_on_one_line(keys: str, cursor: int) -> None:
    assert run("hello world, two", 0, keys)[1] == cursor


def test_words_step_between_letters_punctuation_and_blanks() -> None:
    text = "foo.bar  baz"
    assert run(text, 0, "w")[1] == 3  # "." is a word of its own
    assert run(text, 0, "w w")[1] == 4
    assert run(text, 0, "w w w")[1] == 9
    assert run(text, 9, "b")[1] == 4
    assert run(text, 4, "e")[1] == 6


def test_line_motions_keep_the_column_and_gg_g_go_to_first_and_last_lines() -> None:
    text = "first line\nsecond\n  third line"
    assert Buffer(text, run(text, 3, "j")[1]).location() == (1, 3)
    assert Buffer(text, run(text, 3, "2 j")[1]).location() == (2, 3)
    assert Buffer(text, run(text, 8, "j")[1]).location() == (1, 5)  # onto the shorter line's last character
    assert Buffer(text, run(text, 20, "k")[1]).location() == (1, 2)
    assert Buffer(text, run(text, 0, "G")[1]).location() == (2, 2)  # first non-blank of the last line
    assert Buffer(text, run(text, 25, "g g")[1]).location() == (0, 0)
    assert Buffer(text, run(text, 0, "2 G")[1]).location() == (1, 0)


def test_x_dd_dw_and_d_with_a_count() -> None:
    assert run("hello", 1, "x")[:2] == ("hllo", 1)
    assert run("hello", 1, "3 x")[:2] == ("ho", 1)
    assert run("a\nb\nc", 2, "d d")[:2] == ("a\nc", 2)
    assert run("a\nb\nc\nd", 0, "2 d d")[0] == "c\nd"
    assert run("a\nb\nc", 4, "d d")[:2] == ("a\nb", 2)  # the last line: its newline before goes
    assert run("one two three", 0, "d w")[0] == "two three"
    assert run("one two three", 0, "d 2 w")[0] == "three"
    assert run("one two three", 0, "2 d w")[0] == "three"
    assert run("one two\nnext", 4, "d w")[0] == "one \nnext"  # dw stops at the line's end
    assert run("keep this", 5, "D")[0] == "keep "
    assert run("one two", 4, "d b")[0] == "two"


def test_change_enters_insert_mode() -> None:
    text, cursor, state = run("hello world", 0, "c w")
    assert (text, cursor, state.mode) == (" world", 0, "insert")  # cw changes to the word's end
    assert run("a\nb b\nc", 2, "c c")[:1] == ("a\n\nc",)
    text, _, state = run("keep this", 5, "C")
    assert text == "keep " and state.mode == "insert"


def test_yank_and_put_charwise_and_linewise() -> None:
    assert run("a\nb", 0, "y y p")[:2] == ("a\na\nb", 2)
    assert run("a\nb", 2, "y y P")[:2] == ("a\nb\nb", 2)
    assert run("ab", 0, "x p")[0] == "ba"
    assert run("one two", 0, "y w $ p")[0] == "one twoone "
    assert run("x", 0, "y y 3 p")[0] == "x\nx\nx\nx"


def test_insert_keys_put_the_cursor_where_vim_does() -> None:
    for keys, text, cursor in [
        ("i", "abc", 1),
        ("a", "abc", 2),
        ("A", "abc", 3),
        ("I", "  abc", 2),
        ("o", "abc\n", 4),
        ("O", "\nabc", 0),
    ]:
        result, where, state = run("  abc" if keys == "I" else "abc", 1, keys)
        assert (result, where, state.mode) == (text, cursor, "insert"), keys


def test_escape_goes_to_normal_mode_and_then_keeps_its_meaning() -> None:
    state = VimState()
    buffer = Buffer("abc", 3)
    outcome = state.feed("escape", None, buffer)
    assert outcome.taken and state.mode == "normal" and outcome.cursor == 2  # back onto the last character
    assert state.feed("escape", None, Buffer("abc", 2)).taken is False  # normal mode: cancel/close as usual
    state.feed("d", "d", buffer)
    assert state.feed("escape", None, buffer).taken  # a pending operator is dropped first
    assert state.operator == ""


def test_enter_and_other_keys_go_on_in_normal_mode_and_letters_never_type() -> None:
    state = VimState(mode="normal")
    buffer = Buffer("abc", 0)
    assert state.feed("enter", None, buffer).taken is False  # the composer sends
    assert state.feed("tab", None, buffer).taken is False
    outcome = state.feed("q", "q", buffer)
    assert outcome.taken and outcome.replace is None
    assert VimState().feed("q", "q", buffer).taken is False  # insert mode: typed as usual


def test_undo_and_redo_are_commands_for_the_text_area() -> None:
    state = VimState(mode="normal")
    assert state.feed("u", "u", Buffer("a", 0)).command == "undo"
    assert state.feed("ctrl+r", None, Buffer("a", 0)).command == "redo"


def test_visual_mode_selects_and_deletes_yanks_or_changes() -> None:
    state = VimState(mode="normal")
    buffer = Buffer("hello world", 0)
    assert state.feed("v", "v", buffer).selection == (0, 1)
    assert state.feed("e", "e", buffer).selection == (0, 5)
    outcome = state.feed("d", "d", buffer)
    assert outcome.replace == (0, 5, "") and state.mode == "normal" and state.register == "hello"
    text, _, state = run("hello world", 6, "v $ y")
    assert state.register == "world" and text == "hello world" and state.mode == "normal"
    text, _, state = run("hello world", 0, "v w c")
    assert text == "orld" and state.mode == "insert"


def test_a_motion_beyond_the_text_stays_inside_it() -> None:
    buffer = Buffer("ab\ncd", 4)
    assert motion("l", 10, buffer).target == 4
    assert motion("j", 5, buffer).target == 4
    assert motion("w", 3, buffer).target == 5
    assert motion("b", 9, buffer).target == 0
    assert run("", 0, "x d d p w b $ 0 G g g")[0] == ""
