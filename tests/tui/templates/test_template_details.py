"""The template screens' details a user met: the preview's whole box at 120 columns, hints that cannot pass for
values, ctrl+j for a new line as in the composer, an owner-only prompt folder, and the demo's folder not called
the user's library."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

from textual.widgets import Input, OptionList, TextArea

from tests.tui.template_host import EVERY_TYPE, TemplateHost, fixed_clock
from visindigo.engine import Center, Prompt
from visindigo.engine.templates.library import TemplateLibrary
from visindigo.tui.app import AppOptions, VisindigoApp
from visindigo.tui.templates.editor import TemplateEditorScreen
from visindigo.tui.templates.form import TemplateFormScreen
from visindigo.tui.templates.library import TemplateLibraryScreen


def screen_lines(app: object) -> list[str]:
    update = app.screen._compositor.render_update(full=True)  # type: ignore[attr-defined]
    return ["".join(segment.text for segment in strip) for strip in update.strips]


def every_type_form() -> TemplateHost:
    return TemplateHost(lambda: TemplateFormScreen(EVERY_TYPE, {}, clock=fixed_clock))


def form_screen(app: TemplateHost) -> TemplateFormScreen:
    screen = app.screen
    assert isinstance(screen, TemplateFormScreen)
    return screen


async def test_the_preview_box_is_whole_at_120_columns() -> None:
    app = every_type_form()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        lines = screen_lines(app)
        top = next(line for line in lines if "Preview" in line)
        assert top.rstrip(" │").endswith("┐"), top  # its own right corner, inside the frame's border
        box = app.screen.query_one("#preview-box")
        assert box.region.right < app.screen.query_one("#frame").region.right - 1


async def test_hints_are_marked_and_styled_apart_from_values() -> None:
    app = every_type_form()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = form_screen(app)
        product = screen.row_for("product").widget
        version = screen.row_for("version").widget
        assert isinstance(product, Input) and isinstance(version, Input)
        assert product.placeholder == "‹Product name›" and product.value == ""
        assert version.value == "1.0"  # a default is a value, shown as one
        hint_style = product.get_component_rich_style("input--placeholder")
        value_style = version.get_visual_style().rich_style
        assert hint_style.italic and not value_style.italic
        lines = screen_lines(app)
        assert any("‹Product name›" in line for line in lines)
        assert not any("‹1.0›" in line for line in lines)


async def test_ctrl_j_makes_a_new_line_in_the_template_editor_and_in_a_form_text_area() -> None:
    app = TemplateHost(lambda: TemplateEditorScreen(Prompt("Note", "first"), lambda prompt: None))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        content = app.screen.query_one("#content", TextArea)
        content.focus()
        content.move_cursor(content.document.end)
        await pilot.press("ctrl+j")
        await pilot.press("x")
        assert content.text == "first\nx"
    app = every_type_form()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        changes = form_screen(app).row_for("changes").widget
        assert isinstance(changes, TextArea)
        changes.focus()
        for key in ("a", "ctrl+j", "b"):
            await pilot.press(key)
        assert changes.text == "a\nb"


def test_the_prompt_folder_and_its_trash_are_made_for_the_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "prompts"
    library = TemplateLibrary(folder)
    library.create(Prompt("Plan", "Plan {{days}} days"))
    if sys.platform != "win32":
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        library.delete("Plan")
        assert stat.S_IMODE((folder / ".trash").stat().st_mode) == 0o700


async def test_the_demo_library_is_not_called_your_library() -> None:
    app = VisindigoApp(Center(), AppOptions(demo=True, demo_delay=0.0, demo_live_question=False))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if app.center.providers:
                break
        await pilot.press("f6")
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, TemplateLibraryScreen):
                break
        screen = app.screen
        assert isinstance(screen, TemplateLibraryScreen)
        await pilot.pause()
        listed = [str(screen.query_one("#list", OptionList).get_option_at_index(i).prompt) for i in range(1)]
        assert "demo" in listed[0] and "your library" not in listed[0]
        assert not any("your library" in line for line in screen_lines(app))
