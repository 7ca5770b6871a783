"""The compare screens by keys: scores (scopes, CSV), diff (pairs, layouts), divergences (jump), compare picker."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from textual.widgets import DataTable, OptionList, Static

from tests.hostile_text import HOSTILE
from tests.tui.screens_host import ScreenHost, screen_text
from visindigo.engine import Center, Message, ModelInfo, Provider, Role
from visindigo.engine.compare import ModelChoice, Pick, PickedModel
from visindigo.engine.compare.divergence import divergences
from visindigo.engine.compare.last_set import last_set, remember_set
from visindigo.tui.compare.diff import DiffChoice, DiffScreen, diff_choices
from visindigo.tui.compare.divergences import DivergenceList, DivergenceScreen, JumpTarget
from visindigo.tui.compare.picker import ComparePickerScreen, CompareSetup
from visindigo.tui.compare.scores import ScoresScreen


def picks() -> list[Pick]:
    def model(name: str) -> PickedModel:
        return PickedModel(f"d-{name}", "local" if name.startswith("qwen") else "openai", name)

    def pick(when: float, winner: str, loser: str, tag: str = "", blind: bool = False) -> Pick:
        return Pick("q", model(winner), (model(loser),), when, blind, tag)

    return [
        pick(1, "qwen3-8b", "gpt-4o", "sql-review", True),
        pick(2, "gpt-4o", "qwen3-8b", "sql-review"),
        pick(3, "qwen3-8b", "gpt-4o"),
        pick(4, "qwen3-8b", "gpt-4o-mini", "poetry", True),
    ]


def table_rows(screen: ScoresScreen) -> list[list[str]]:
    table: DataTable[object] = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


# --- scores ----------------------------------------------------------------------------------------------------


async def test_scores_step_through_overall_and_each_tag_and_export_csv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    center = Center()
    for each in picks():
        center.record_pick(each)
    app = ScreenHost(lambda: ScoresScreen(center))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ScoresScreen)
        assert screen.scopes == [None, "poetry", "sql-review"]
        rows = table_rows(screen)
        assert [row[1] for row in rows] == ["qwen3-8b", "gpt-4o", "gpt-4o-mini"]
        assert rows[0][4:] == ["3", "1"]
        assert "4 picks, 2 blind" in screen_text(app)
        await pilot.press("right")
        assert screen.scope == "poetry" and [row[1] for row in table_rows(screen)] == ["qwen3-8b", "gpt-4o-mini"]
        await pilot.press("right")
        assert screen.scope == "sql-review"
        assert "Tag: sql-review  (3/3)" in screen_text(app)
        await pilot.press("e")
        assert screen.exported is not None and screen.exported.parent == tmp_path
        rows_written = list(csv.reader(screen.exported.open()))
        assert {row[0] for row in rows_written[1:]} == {"sql-review"}
        assert str(screen.exported) in str(screen.query_one("#status", Static).render())
        await pilot.press("left", "left")
        assert screen.scope is None
        await pilot.press("e")
        overall = list(csv.reader(screen.exported.open()))
        assert {row[0] for row in overall[1:]} == {"(all)", "poetry", "sql-review"}
        await pilot.press("escape")
    assert app.results == [None]


async def test_scores_with_no_picks_say_how_to_get_some() -> None:
    app = ScreenHost(lambda: ScoresScreen(Center()))
    async with app.run_test(size=(80, 24)) as pilot:
        assert "No comparisons yet" in screen_text(app)
        await pilot.press("e", "right")
        assert "Nothing to export yet." in screen_text(app)


async def test_scores_show_hostile_model_ids_as_plain_text() -> None:
    hostile = [Pick("q", PickedModel("w", "p", f"[b]m[/b] {HOSTILE}"), (PickedModel("l", "p", "x"),), 1.0)]
    app = ScreenHost(lambda: ScoresScreen(Center(), hostile))
    async with app.run_test(size=(80, 24)):
        text = screen_text(app)
        assert "[b]m[/b]" in text and "\x1b" not in text


# --- diff --------------------------------------------------------------------------------------------------------

THREE = [
    DiffChoice("1. qwen", "The sky is blue because of Rayleigh scattering."),
    DiffChoice("2. llama", "The sky looks blue because air scatters short waves."),
    DiffChoice("3. gpt-4o", "Blue light scatters more."),
]


async def test_diff_steps_through_every_pair_and_toggles_the_layout() -> None:
    app = ScreenHost(lambda: DiffScreen(THREE, inline=False))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert screen.pairs == [(0, 1), (0, 2), (1, 2)]
        old = str(screen.query_one("#old", Static).render())
        new = str(screen.query_one("#new", Static).render())
        assert old == THREE[0].text and new == THREE[1].text
        assert "Pair 1/3 · 1. qwen ↔ 2. llama" in screen_text(app)
        assert screen.query_one("#sides").display and not screen.query_one("#inline-view").display
        await pilot.press("n")
        assert [c.label for c in screen.pair] == ["1. qwen", "3. gpt-4o"]
        await pilot.press("n", "n")
        assert screen.pair_index == 0  # round again
        await pilot.press("p")
        assert [c.label for c in screen.pair] == ["2. llama", "3. gpt-4o"]
        await pilot.press("s")
        assert screen.inline and screen.query_one("#inline-view").display and not screen.query_one("#sides").display
        inline = screen.query_one("#inline", Static).render()
        assert "looks" in str(inline) and "Blue light" in str(inline)  # one text holding both: what went, what came
        await pilot.press("escape")
    assert app.results == [None]


async def test_diff_marks_deletions_and_insertions_with_styles() -> None:
    app = ScreenHost(lambda: DiffScreen(THREE[:2], inline=True))
    async with app.run_test(size=(80, 24)):
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        content = screen.query_one("#inline", Static).render()
        styled = {str(content)[span.start : span.end]: str(span.style) for span in content.spans}  # type: ignore[attr-defined]
        assert styled["is"].startswith("strike") and styled["looks"].startswith("underline")
        assert "Pair" not in screen_text(app)  # one pair: no stepping


async def test_the_inline_diff_keeps_a_replaced_word_apart_from_its_replacement() -> None:
    """Issue 25 §14: below 100 columns the diff is inline, and "is" struck then "looks" underlined read as
    "islooks" wherever the styles are not drawn; bracketed as git's word diff does, they cannot run together."""
    app = ScreenHost(lambda: DiffScreen(THREE[:2]))
    async with app.run_test(size=(80, 24)):
        screen = app.screen
        assert isinstance(screen, DiffScreen) and screen.inline  # chosen by the width
        text = str(screen.query_one("#inline", Static).render())
        assert text == "The sky [-is-]{+looks+} blue because [-of Rayleigh scattering.-]{+air scatters short waves.+}"
        sides = str(screen.query_one("#old", Static).render())
        assert "[-" not in sides  # side by side each text stands alone, unbracketed


def test_diff_choices_come_from_the_alternatives_at_a_message() -> None:
    center = Center()
    parent = center.create_dialog()
    parent.append_message(Role.USER, "q")
    parent.append_message(Message(Role.ASSISTANT, "first", meta={"model_id": "qwen"}))
    branch = center.branch_at(parent, 1)
    branch.append_message(Message(Role.ASSISTANT, "second", meta={"model_id": "llama"}))
    assert diff_choices([parent, branch], 1) == [DiffChoice("1. qwen", "first"), DiffChoice("2. llama", "second")]
    assert [c.label for c in diff_choices([parent, branch], 0)] == ["1. you", "2. you"]
    with pytest.raises(ValueError):
        DiffScreen([DiffChoice("only", "x")])


async def test_a_hostile_model_id_is_one_short_clean_line_in_the_diffs_labels() -> None:
    center = Center()
    parent = center.create_dialog()
    parent.append_message(Role.USER, "q")
    hostile = "evil\nsecond line " + HOSTILE + " " + "x" * 5_000  # a model list can say anything
    parent.append_message(Message(Role.ASSISTANT, "first", meta={"model_id": hostile}))
    branch = center.branch_at(parent, 1)
    branch.append_message(Message(Role.ASSISTANT, "second", meta={"model_id": "llama"}))
    choices = diff_choices([parent, branch], 1)
    label = choices[0].label
    assert "\n" not in label and "\x1b" not in label and len(label) <= 64 and label.startswith("1. evil second line")
    app = ScreenHost(lambda: DiffScreen(choices, inline=False))
    async with app.run_test(size=(100, 30)):
        text = screen_text(app)
        assert "% the same" in text and "\x1b" not in text  # before: the pair line ended at the id's newline


async def test_line_endings_and_invisible_controls_are_not_differences() -> None:
    # what the screen shows is cleaned (CRLF as LF, no escape sequences): so is what it compares
    plain = DiffChoice("1. a", "Line one\nLine two\n")
    windows = DiffChoice("2. b", "Line one\r\nLine\x1b[0m two\r\n")
    app = ScreenHost(lambda: DiffScreen([plain, windows], inline=True))
    async with app.run_test(size=(100, 30)):
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert "100% the same" in screen_text(app)  # before: 86%, with nothing to see marked
        assert not screen.query_one("#inline", Static).render().spans  # type: ignore[attr-defined]


# --- divergences -------------------------------------------------------------------------------------------------


def a_family() -> tuple[Center, dict[str, str]]:
    center = Center()
    root = center.create_dialog()
    root.append_message(Role.USER, "Why is the sky blue?")
    root.append_message(Message(Role.ASSISTANT, "Rayleigh scattering.", meta={"model_id": "qwen"}))
    other = center.branch_at(root, 1)
    other.append_message(Message(Role.ASSISTANT, "Short waves scatter.", meta={"model_id": "llama"}))
    edit = center.branch_at(root, 0)
    edit.append_message(Role.USER, "Why is the sea blue?")
    return center, {"root": root.id, "other": other.id, "edit": edit.id}


async def test_the_divergence_list_jumps_to_the_chosen_way() -> None:
    center, ids = a_family()
    found = divergences(center, ids["other"])
    app = ScreenHost(lambda: DivergenceScreen(found, title="Sky"))
    async with app.run_test(size=(80, 24)) as pilot:
        text = screen_text(app)
        assert "Message 1 · question · 2 ways" in text and "Message 2 · answer · 2 ways" in text
        assert "llama" in text and "Short waves scatter." in text
        listing = app.screen.query_one(DivergenceList)
        # the cursor starts on the first way the shown dialog takes; headings cannot be chosen
        assert listing.highlighted == 1
        await pilot.press("down", "down", "down")  # over the heading of the second point, to its second way
        await pilot.press("enter")
    assert app.results == [JumpTarget(ids["other"], 1)]


async def test_the_divergence_panel_posts_jump_messages_to_its_screen() -> None:
    center, ids = a_family()
    heard: list[DivergenceList.Jump] = []

    class Host(ScreenHost):
        def on_divergence_list_jump(self, event: DivergenceList.Jump) -> None:
            heard.append(event)

    app = Host(lambda: DivergenceScreen([]))
    async with app.run_test(size=(80, 24)) as pilot:
        assert "has no alternatives yet" in screen_text(app)
        await pilot.press("escape")
        await app.mount(DivergenceList(divergences(center, ids["root"]), id="panel"))
        panel = app.query_one("#panel", DivergenceList)
        panel.focus()
        await pilot.press("enter")
        await pilot.pause()
    assert [(e.dialog_id, e.message_index) for e in heard] == [(ids["root"], 0)]


# --- the compare picker ------------------------------------------------------------------------------------------


def picker_center() -> Center:
    center = Center()
    for provider in (
        Provider("local", name="llama.cpp", models=[ModelInfo("qwen3-8b"), ModelInfo("gemma"), ModelInfo("phi")]),
        Provider("openai", name="OpenAI", models=[ModelInfo("gpt-4o"), ModelInfo("gpt-4o-mini")]),
    ):
        provider.models_listed = True
        center.add_provider(provider)
    return center


async def test_the_picker_takes_two_to_four_models_from_any_provider_and_remembers_them() -> None:
    center = picker_center()
    app = ScreenHost(lambda: ComparePickerScreen(center))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ComparePickerScreen)
        assert screen.chosen == []
        await pilot.press("enter")  # one is not enough: the highlighted model is added, and it says so
        assert screen.chosen == [ModelChoice("local", "qwen3-8b")]
        assert "Choose at least 2 models" in screen_text(app)
        await pilot.press("down", "space")  # gemma
        await pilot.press("space")  # and out again
        assert screen.chosen == [ModelChoice("local", "qwen3-8b")]
        await pilot.press("shift+tab", "shift+tab", "down", "enter")  # to OpenAI's models
        assert screen.provider is center.get_provider("openai")
        await pilot.press("space", "b")
        assert "Compare 2 of 2–4: 1 qwen3-8b (llama.cpp) · 2 gpt-4o (OpenAI)  · blind" in screen_text(app)
        option = str(screen.query_one("#models", OptionList).get_option_at_index(0).prompt)
        assert option.startswith("●")  # a chosen model is marked
        await pilot.press("down", "enter")  # enter adds the highlighted one too, then starts
    assert app.results == [
        CompareSetup([ModelChoice("local", "qwen3-8b"), ModelChoice("openai", "gpt-4o"),
                      ModelChoice("openai", "gpt-4o-mini")], blind=True)
    ]  # fmt: skip
    assert last_set(center) == app.results[0].choices


async def test_the_picker_starts_from_the_last_set_and_holds_at_most_four() -> None:
    center = picker_center()
    remember_set(center, [ModelChoice("openai", "gpt-4o"), ModelChoice("gone", "x"), ModelChoice("local", "gemma")])
    app = ScreenHost(lambda: ComparePickerScreen(center))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ComparePickerScreen)
        assert screen.chosen == [ModelChoice("openai", "gpt-4o"), ModelChoice("local", "gemma")]  # known ones only
        assert screen.provider is center.get_provider("openai")
        await pilot.press("down", "space")
        await pilot.press("shift+tab", "shift+tab", "up", "enter", "space")
        assert len(screen.chosen) == 4
        await pilot.press("down", "down", "space")  # phi: one too many
        assert len(screen.chosen) == 4 and "At most 4 models" in screen_text(app)
        assert ModelChoice("local", "phi") not in screen.chosen
        await pilot.press("escape")
    assert app.results == [None]
