"""Snapshot tests of the template screens at 80×24 and 120×40, with a fixed clock and fixed content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.tui.template_host import EVERY_TYPE, TemplateHost, fixed_clock
from visindigo.engine import Center, Prompt
from visindigo.engine.templates.library import TemplateLibrary
from visindigo.tui.templates.form import TemplateFormScreen
from visindigo.tui.templates.library import TemplateLibraryScreen

ALL_FILLED = {
    "product": "Visindigo",
    "version": "0.2",
    "date": "2026-03-20",
    "audience": "terminal users",
    "tone": "Terse",
    "items": "4",
    "breaking": "true",
    "changes": "Template library\nTyped template fields\nLive preview",
}


def form(remembered: dict[str, str] | None = None) -> TemplateHost:
    return TemplateHost(lambda: TemplateFormScreen(EVERY_TYPE, remembered, clock=fixed_clock))


def test_form_every_field_type_80x24(snap_compare: Any) -> None:
    """You should see the "Release notes" form filling the screen: its description, then the fields
    product * (focused, empty, placeholder "Product name"), version ("1.0") and date * ("YYYY-MM-DD"), with a
    scrollbar because more fields follow. Below, the Preview pane shows the message with the unfilled
    placeholders highlighted ({{product | text:…}}, {{date | date:required}}), "(Saturday build)", and the
    Send / Edit first / Cancel buttons with the key hints in the bottom border.
    """
    assert snap_compare(form(), terminal_size=(80, 24))


def focus_field(name: str) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, TemplateFormScreen)
        screen.row_for(name).widget.focus()
        await pilot.pause()

    return run_before


def test_form_every_field_type_80x24_scrolled_to_the_middle(snap_compare: Any) -> None:
    """You should see the middle of the form, scrolled: the tone select showing "Terse" with its ▼ arrow at
    the top, then items (focused, "4", with "How many bullet points" above it), the ticked (green X)
    "Mention breaking changes" checkbox, and the first line of the changes * text area. The preview below
    starts with "Write release notes for Visindigo version 0.2, released 2026-03-20 (Saturday build)."
    """
    assert snap_compare(form(ALL_FILLED), terminal_size=(80, 24), run_before=focus_field("items"))


def test_form_every_field_type_80x24_scrolled_to_the_end(snap_compare: Any) -> None:
    """You should see the end of the form: the value "4" of items at the top, a ticked (green X) "Mention
    breaking changes" checkbox, and the changes * text area (focused) holding three lines: Template library,
    Typed template fields, Live preview. The preview below shows the filled message with no highlighted
    placeholder: "… (Saturday build).", "Audience: terminal users.", "Tone: Terse.", "At most 4 items.",
    "Include breaking changes: true."
    """
    assert snap_compare(form(ALL_FILLED), terminal_size=(80, 24), run_before=focus_field("changes"))


def test_form_required_fields_missing_80x24(snap_compare: Any) -> None:
    """You should see the form after ctrl+s with nothing filled in: "product is required." in red under
    the product field (focused), "date is required." under date, and above the buttons the red summary
    "3 fields need attention: product is required. date is required. changes is required."
    """
    assert snap_compare(form(), terminal_size=(80, 24), press=["ctrl+s"])


def test_form_every_field_type_120x40(snap_compare: Any) -> None:
    """You should see the whole form at once: on the left every field — product, version, date (all
    filled), audience (empty), tone select "Friendly", items "5" with its description, the unticked
    "Mention breaking changes" checkbox, and the changes text area; on the right, beside them, the preview
    with {{audience}} and {{changes | textarea:…}} highlighted, and under it, in orange, "Still to fill in
    (required): changes" and "Left as written (optional, empty): {{audience}}". Product is focused.
    """
    remembered = {"product": "Visindigo", "date": "2026-03-20"}
    assert snap_compare(form(remembered), terminal_size=(120, 40))


def library_app(folder: Path) -> TemplateHost:
    library = TemplateLibrary(folder)
    library.create(
        Prompt(
            "Translate",
            'Translate into {{language | select:options=["French","German"]}}:\n{{text | textarea:required}}',
            description="Into another language",
            tags=("language",),
        )
    )
    library.create(Prompt("Code review", "Review this code:\n{{code | textarea:required}}", tags=("dev",)))
    library.create(EVERY_TYPE)
    center = Center()
    center.add_prompt(Prompt("Standup", "Yesterday: {{done}}\nToday: {{todo}}", description="Daily note"))
    dialog = center.create_dialog()
    dialog.add_prompt(Prompt("Dialog note", "Remember {{fact}}"))
    return TemplateHost(lambda: TemplateLibraryScreen(library, dialog, clock=fixed_clock))


def test_library_80x24(snap_compare: Any, tmp_path: Path) -> None:
    """You should see the "Templates" box: a search line, then on the left the list Code review (your
    library), Dialog note (this dialog), Release notes (your library, highlighted), Standup (built in),
    Translate (your library); on the right the details of Release notes — its file release-notes.md, tag
    "writing", description, its eight fields with required ones starred, and the start of its text. The
    bottom border lists the keys.
    """
    assert snap_compare(library_app(tmp_path), terminal_size=(80, 24), press=["down", "down"])


def test_library_search_120x40(snap_compare: Any, tmp_path: Path) -> None:
    """You should see the library after typing "/tr" in the search box: only Translate and Release notes
    are listed (fuzzy matches of "tr", Textual's matcher), the matched "Tr" of Translate bold and underlined,
    Translate highlighted, its details and text on the right.
    """
    assert snap_compare(library_app(tmp_path), terminal_size=(120, 40), press=["slash", "t", "r"])
