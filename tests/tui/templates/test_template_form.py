"""Pilot tests of the template form: fill it, submit it, and what happens when something is missing or wrong."""

from __future__ import annotations

from textual.widgets import Checkbox, Input, Select, Static, TextArea

from tests.tui.template_host import EVERY_TYPE, TemplateHost, fixed_clock
from visindigo.engine import MCPServer, Message, Prompt, Role
from visindigo.engine.mcp import MCPPromptInfo, MCPServerError, PromptArgument
from visindigo.engine.templates.mcp import MCPPromptTemplate
from visindigo.tui.common.fields import FieldRow
from visindigo.tui.templates.form import TemplateFormScreen, TemplateResult


def form_host(
    template: Prompt | MCPPromptTemplate = EVERY_TYPE, remembered: dict[str, str] | None = None
) -> TemplateHost:
    return TemplateHost(lambda: TemplateFormScreen(template, remembered, clock=fixed_clock))


def screen_of(app: TemplateHost) -> TemplateFormScreen:
    assert isinstance(app.screen, TemplateFormScreen)
    return app.screen


def text_of(app: TemplateHost, selector: str) -> str:
    return str(screen_of(app).query_one(selector, Static).render())


async def fill_required(app: TemplateHost, pilot: object) -> None:
    form = screen_of(app)
    form.row_for("product").widget.focus()
    await pilot.press(*"Visindigo")  # type: ignore[attr-defined]
    form.row_for("date").widget.focus()
    await pilot.press(*"2026-03-20")  # type: ignore[attr-defined]
    form.row_for("changes").widget.focus()
    await pilot.press(*"Faster", "enter", *"Safer")  # type: ignore[attr-defined]


async def test_filling_every_field_type_and_sending() -> None:
    app = form_host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = screen_of(app)
        assert app.focused is form.row_for("product").widget
        await fill_required(app, pilot)
        form.row_for("audience").widget.focus()
        await pilot.press(*"admins")
        select = form.row_for("tone").widget
        assert isinstance(select, Select)
        select.focus()
        await pilot.press("enter", "down", "enter")  # open, move from Friendly to Terse, choose
        items = form.row_for("items").widget
        assert isinstance(items, Input)
        items.focus()
        await pilot.press("ctrl+a", "ctrl+k", "8")
        box = form.row_for("breaking").widget
        assert isinstance(box, Checkbox)
        box.focus()
        await pilot.press("space")
        await pilot.press("ctrl+s")
        await pilot.pause()
    [result] = app.results
    assert isinstance(result, TemplateResult)
    assert result.send is True
    assert result.message.role is Role.PROMPT
    assert result.message.name == "Release notes"
    assert result.messages == (result.message,)
    assert result.message.content == (
        "Write release notes for Visindigo version 1.0, released 2026-03-20 (Saturday build).\n"
        "Audience: admins.\n"
        "Tone: Terse.\n"
        "At most 8 items.\n"
        "Include breaking changes: true.\n"
        "Changes:\nFaster\nSafer"
    )
    assert result.values == {
        "product": "Visindigo",
        "version": "1.0",
        "date": "2026-03-20",
        "audience": "admins",
        "tone": "Terse",
        "items": "8",
        "breaking": "true",
        "changes": "Faster\nSafer",
    }


async def test_a_required_field_left_empty_blocks_the_submit_with_a_clear_message() -> None:
    app = form_host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = screen_of(app)
        form.row_for("date").widget.focus()
        await pilot.press(*"2026-03-20")
        form.row_for("changes").widget.focus()
        await pilot.press(*"x")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == []
        assert app.screen is form
        row = form.row_for("product")
        assert row.has_class("-has-error")
        assert text_of(app, "#error-0") == "product is required."
        assert text_of(app, "#form-error") == "1 field needs attention: product is required."
        assert app.focused is row.widget
        # Filling it clears the message at once, and the form then submits.
        await pilot.press(*"V")
        assert not row.has_class("-has-error")
        assert text_of(app, "#form-error") == ""
        assert not form.query_one("#form-error", Static).has_class("-visible")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert len(app.results) == 1 and app.results[0].message.content.startswith("Write release notes for V version")


async def test_the_summary_above_the_buttons_follows_the_fields_as_they_are_fixed() -> None:
    app = form_host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = screen_of(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert text_of(app, "#form-error") == (
            "3 fields need attention: product is required. date is required. changes is required."
        )
        await pilot.press(*"P")  # the focus is on product, the first field that needs attention
        assert text_of(app, "#form-error") == "2 fields need attention: date is required. changes is required."
        form.row_for("date").widget.focus()
        await pilot.press(*"2026-03-20")
        assert text_of(app, "#form-error") == "1 field needs attention: changes is required."
        form.row_for("changes").widget.focus()
        await pilot.press("x")
        assert text_of(app, "#form-error") == ""
        assert app.results == []


async def test_the_form_names_placeholders_that_do_not_parse() -> None:
    template = Prompt("p", "Write about {{topic | text:required}} in a {{mood | select}} mood.")
    app = form_host(template)
    async with app.run_test(size=(80, 24)) as pilot:
        form = screen_of(app)
        assert [row.spec.name for row in form.rows()] == ["topic"]
        assert text_of(app, "#unfilled") == (
            "Still to fill in (required): topic\n"
            "Not a placeholder, left as written — line 1: {{mood | select}} — "
            'a select needs options, as in select:options=["a","b"]'
        )
        await pilot.press(*"tea", "ctrl+s")
        await pilot.pause()
    assert app.results[0].message.content == "Write about tea in a {{mood | select}} mood."


async def test_out_of_range_number_and_bad_date_are_refused() -> None:
    app = form_host(remembered={"product": "P", "changes": "c", "items": "25", "date": "2026-02-30"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == []
        form = screen_of(app)
        assert str(form.query_one("#error-2", Static).render()) == (
            "date: enter a date as YYYY-MM-DD, for example 2026-03-14."
        )
        assert str(form.query_one("#error-5", Static).render()) == "items: must be at most 20."
        assert app.focused is form.row_for("date").widget
        items = form.row_for("items").widget
        assert isinstance(items, Input) and items.has_class("-invalid")


async def test_the_date_input_refuses_letters_as_they_are_typed() -> None:
    app = form_host()
    async with app.run_test(size=(80, 24)) as pilot:
        date = screen_of(app).row_for("date").widget
        date.focus()
        await pilot.press(*"2026-ab03")
        assert isinstance(date, Input) and date.value == "2026-03"


async def test_edit_first_returns_the_message_without_sending() -> None:
    app = form_host(remembered={"product": "P", "date": "2026-01-01", "changes": "c"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
    [result] = app.results
    assert result.send is False
    assert "{{audience}}" in result.message.content  # the optional field stayed empty: left as written


async def test_escape_cancels() -> None:
    app = form_host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_the_preview_follows_the_fields_and_names_the_unfilled_ones() -> None:
    app = form_host(remembered={"product": "P"})
    async with app.run_test(size=(120, 40)) as pilot:
        form = screen_of(app)
        assert "Write release notes for P version 1.0" in text_of(app, "#preview")
        assert text_of(app, "#unfilled") == (
            "Still to fill in (required): date, changes\nLeft as written (optional, empty): {{audience}}"
        )
        form.row_for("audience").widget.focus()
        await pilot.press(*"ops")
        assert "Audience: ops." in text_of(app, "#preview")
        assert text_of(app, "#unfilled") == "Still to fill in (required): date, changes"
        # Clearing a field that has a default means "nothing", not "the default".
        form.row_for("version").widget.focus()
        await pilot.press("ctrl+a", "ctrl+k")
        assert "for P version , released" in text_of(app, "#preview")


async def test_remembered_values_fill_the_form() -> None:
    app = form_host(remembered={"product": "Kept", "tone": "Formal", "breaking": "true", "changes": "a\nb"})
    async with app.run_test(size=(80, 24)):
        form = screen_of(app)
        assert form.values()["product"] == "Kept"
        tone = form.row_for("tone").widget
        assert isinstance(tone, Select) and tone.value == "Formal"
        box = form.row_for("breaking").widget
        assert isinstance(box, Checkbox) and box.value is True
        area = form.row_for("changes").widget
        assert isinstance(area, TextArea) and area.text == "a\nb"


async def test_enter_in_a_one_line_field_moves_to_the_next() -> None:
    app = form_host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = screen_of(app)
        await pilot.press("enter")
        assert app.focused is form.row_for("version").widget
        assert app.results == []


async def test_a_template_without_fields_sends_as_is() -> None:
    app = form_host(Prompt("hello", "Say hello on {{CURRENT_DATE}}."))
    async with app.run_test(size=(80, 24)) as pilot:
        assert "no fields" in text_of(app, "#empty")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[0].message.content == "Say hello on 2026-03-14."


async def test_field_text_is_shown_literally_and_without_escape_sequences() -> None:
    template = Prompt("p", '{{x | text:label="[b]bold[/b] \x1b]2;PWNED\x07label":description="[@click=app.quit]no"}}')
    app = form_host(template)
    async with app.run_test(size=(80, 24)):
        row = screen_of(app).row_for("x")
        title = str(row.query_one(".field-title", Static).render())
        assert title == "[b]bold[/b] label"
        assert str(row.query_one(".field-description", Static).render()) == "[@click=app.quit]no"


class FakeServer:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[dict[str, str]] = []

    async def list_prompts(self, servers: list[MCPServer]) -> list[MCPPromptInfo]:
        return []

    async def get_prompt(self, server: MCPServer, prompt_name: str, arguments: dict[str, str]) -> list[Message]:
        self.calls.append(dict(arguments))
        if self.fail:
            raise MCPServerError("MCP server 'docs' refused: unknown topic", server="docs")
        return [Message(Role.PROMPT, f"Explain {arguments['topic']}", name="docs/explain")]


def server_prompt(source: FakeServer) -> MCPPromptTemplate:
    info = MCPPromptInfo(
        "docs",
        "explain",
        "Explain a topic",
        (PromptArgument("topic", "What to explain", True), PromptArgument("level")),
    )
    return MCPPromptTemplate(info, MCPServer("docs", command="x"), source)


async def test_a_server_prompt_uses_the_same_form_and_the_server_renders_it() -> None:
    source = FakeServer()
    app = form_host(server_prompt(source))
    async with app.run_test(size=(80, 24)) as pilot:
        form = screen_of(app)
        assert [type(r.widget) for r in form.query(FieldRow)] == [Input, Input]
        assert "Required before asking the server: topic" in text_of(app, "#unfilled")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == [] and source.calls == []
        assert text_of(app, "#error-0") == "topic is required."
        await pilot.press(*"MCP", "ctrl+r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert text_of(app, "#preview") == "Explain MCP"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert source.calls == [{"topic": "MCP"}]  # the preview's answer was reused for the send
    [result] = app.results
    assert (result.message.content, result.message.name, result.send) == ("Explain MCP", "docs/explain", True)


async def test_a_server_refusal_is_shown_and_nothing_is_dismissed() -> None:
    app = form_host(server_prompt(FakeServer(fail=True)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"x", "ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.results == []
        assert text_of(app, "#form-error") == (
            "The server could not render this prompt: MCP server 'docs' refused: unknown topic"
        )
