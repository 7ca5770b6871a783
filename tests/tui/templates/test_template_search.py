"""The template library's search is Textual's fuzzy matcher (the command palette's) over name, tags, text."""

from __future__ import annotations

from pathlib import Path

from textual.fuzzy import FuzzySearch

from visindigo.engine import Prompt
from visindigo.engine.templates.library import TemplateEntry, TemplateLibrary
from visindigo.tui.templates import search as template_search
from visindigo.tui.templates.search import highlight, search


def fields(entry: TemplateEntry) -> tuple[str, str, str]:
    return entry.name, " ".join(entry.tags), entry.description


def test_search_is_fuzzy_over_name_tags_and_description(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    library.create(Prompt("Translate", "t", tags=("language",)))
    library.create(Prompt("Control panel", "c", description="translate nothing"))
    library.create(Prompt("Code review", "r", tags=("dev",), description="Find bugs"))
    entries = library.entries()
    assert [e.name for e in search(entries, "trl", fields)] == ["Translate", "Control panel"]
    assert [e.name for e in search(entries, "bugs", fields)] == ["Code review"]
    assert [e.name for e in search(entries, "dev cr", fields)] == ["Code review"]
    assert [e.name for e in search(entries, "", fields)] == ["Code review", "Control panel", "Translate"]
    assert search(entries, "zzz", fields) == []


def test_the_matcher_is_textuals_own() -> None:
    """No second fuzzy matcher: the module scores with textual.fuzzy (what the command palette uses)."""
    assert isinstance(template_search._fuzzy, FuzzySearch)
    assert not (Path(template_search.__file__).parents[2] / "engine" / "templates" / "search.py").exists()


def test_highlight_styles_the_matched_letters_and_never_reads_markup() -> None:
    content = highlight("[bold]Translate", "trl")
    assert content.plain == "[bold]Translate"
    styled = {index for span in content.spans for index in range(span.start, span.end)}
    assert {content.plain.index("T"), content.plain.index("r")} <= styled
