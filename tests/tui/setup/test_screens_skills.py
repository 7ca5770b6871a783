"""Skills per dialog: attach, detach, override a global skill, and write a dialog-only one, all by key."""

from __future__ import annotations

from textual.widgets import OptionList, TextArea

from tests.tui.screens_host import ScreenHost
from visindigo.engine import Center, DialogChanged, Skill
from visindigo.tui.setup.skills import SkillFormScreen, SkillsScreen, SkillState, skill_rows

CONCISE = Skill("concise", "Answer in at most three sentences.", "Short answers")
CITE = Skill("cite", "Cite sources.")
PIRATE = Skill("pirate", "Talk like a pirate.", "Arr")


def setup() -> tuple[Center, ScreenHost, list[object]]:
    center = Center()
    center.add_skill(CONCISE).add_skill(CITE)
    dialog = center.create_dialog()
    dialog.add_skill(Skill("cite", "Cite sources with links."))
    events: list[object] = []
    dialog.subscribe(events.append)
    app = ScreenHost(lambda: SkillsScreen(center, dialog, library=[PIRATE]))
    return center, app, events


def test_rows_show_global_override_dialog_and_available() -> None:
    rows = skill_rows([CONCISE, CITE], [Skill("cite", "x"), Skill("mine", "y")], [PIRATE, CONCISE])
    assert [(r.skill.name, r.state) for r in rows] == [
        ("concise", SkillState.GLOBAL),
        ("cite", SkillState.OVERRIDE),
        ("mine", SkillState.DIALOG),
        ("pirate", SkillState.AVAILABLE),
    ]


async def test_attach_and_detach_by_key() -> None:
    center, app, events = setup()
    dialog = center.dialogs[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SkillsScreen)
        assert [r.state for r in screen.rows] == [SkillState.GLOBAL, SkillState.OVERRIDE, SkillState.AVAILABLE]
        await pilot.press("end", "space")  # attach pirate
        assert [s.name for s in dialog.skills] == ["cite", "pirate"]
        await pilot.press("x")  # and detach it again
        assert [s.name for s in dialog.skills] == ["cite"]
        await pilot.press("home", "space")  # a global skill cannot be detached here
        assert "press e to replace" in str(screen.query_one("#status").render())
        assert [s.name for s in center.skills] == ["concise", "cite"]
        await pilot.press("down", "delete")  # dropping the override brings the global one back
        assert dialog.skills == []
        assert [s.content for s in dialog.effective_skills()] == [CONCISE.content, CITE.content]
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [True]
    assert DialogChanged("skills") in events


async def test_override_a_global_skill_for_this_dialog_only() -> None:
    center, app, _events = setup()
    dialog = center.dialogs[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("home", "e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, SkillFormScreen)
        text_area = form.query_one(TextArea)
        assert text_area.text == CONCISE.content
        text_area.text = "One sentence only."
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SkillsScreen)
    assert {s.name: s.content for s in dialog.skills} == {
        "cite": "Cite sources with links.",
        "concise": "One sentence only.",
    }
    assert center.skills == [CONCISE, CITE]  # the global one is untouched


async def test_new_skill_form_refuses_bad_input_and_loses_nothing() -> None:
    center, app, _events = setup()
    dialog = center.dialogs[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, SkillFormScreen)
        await pilot.press("ctrl+s")
        error = str(form.query_one("#error").render())
        assert "a skill needs a name" in error and "text is empty" in error
        await pilot.press(*"cite", "tab", "tab", *"Be brief.", "ctrl+s")
        assert "already has a skill of that name" in str(form.query_one("#error").render())
        assert app.screen is form  # still open, with what was typed
        assert form.query_one(TextArea).text == "Be brief."
        await pilot.press("shift+tab", "shift+tab", "backspace", "backspace", "backspace", "backspace", *"brief")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SkillsScreen)
        highlighted = app.screen.query_one(OptionList).highlighted
        assert highlighted is not None and app.screen.rows[highlighted].skill.name == "brief"
    assert [s.name for s in dialog.skills] == ["cite", "brief"]


async def test_cancelling_the_form_changes_nothing() -> None:
    center, app, _events = setup()
    dialog = center.dialogs[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n", *"temp", "escape", "escape")
        await pilot.pause()
    assert [s.name for s in dialog.skills] == ["cite"]
    assert app.results == [False]


async def test_untrusted_skill_text_is_not_markup() -> None:
    center = Center()
    dialog = center.create_dialog()
    dialog.add_skill(Skill("[b]x[/b]", "[@click=app.quit]quit[/]\x1b[2J"))
    app = ScreenHost(lambda: SkillsScreen(center, dialog))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        preview = str(app.screen.query_one("#preview-text").render())
        prompt = app.screen.query_one(OptionList).get_option_at_index(0).prompt
    assert preview == "[@click=app.quit]quit[/]"
    assert "[b]x[/b]" in str(prompt)
