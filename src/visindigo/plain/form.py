"""/template: the app's template form, asked field by field and read out as it goes.

Each field is introduced in one line that says what the app's form shows with widgets: its type, whether it
is required, its options (numbered), its range, its default and its hint. Enter keeps the value in brackets
(last time's value, else the default), a single "-" empties it, ctrl+c gives the form up. The values are
checked by the engine (`TemplateField.check`, the form's own check), the message is rendered by the engine
(or by the MCP server, for a server prompt), read out, and sent only when the user says so.
"""

from __future__ import annotations

from visindigo.engine import Message, Prompt
from visindigo.engine.sanitize import clean_line
from visindigo.engine.templates import TemplateField, UserContext
from visindigo.engine.templates.fields import checkbox_value, format_number
from visindigo.engine.templates.library import TemplateEntry
from visindigo.plain.dialog_commands import number_in
from visindigo.plain.listing import Row, quoted
from visindigo.plain.reader import BLOCK
from visindigo.plain.session import YES, PlainSession
from visindigo.tui.workbench import Refused

#: How each field type is said.
TYPE_WORDS = {
    "text": "text",
    "textarea": f"text, several lines between two {BLOCK} lines if needed",
    "select": "a choice",
    "number": "a number",
    "checkbox": "yes or no",
    "date": "a date, YYYY-MM-DD",
    "time": "a time, HH:MM",
    "datetime-local": "a date and time, YYYY-MM-DD HH:MM",
    "month": "a month, YYYY-MM",
    "email": "an e-mail address",
    "url": "a URL",
    "tel": "a phone number",
    "color": "a colour, #rrggbb",
}
EMPTY = "-"


def describe(spec: TemplateField, number: int, count: int) -> str:
    """The line that introduces a field: everything the app's form shows about it, in words."""
    words = [f"Field {number} of {count}, {clean_line(spec.title, 60)}: {TYPE_WORDS.get(spec.type, 'text')}"]
    words.append("required" if spec.required else "optional")
    if spec.options:
        words.append("options " + ", ".join(f"{n} {clean_line(o, 60)}" for n, o in enumerate(spec.options, 1)))
    if spec.type == "number":
        for key, figure in (("at least", spec.min), ("at most", spec.max), ("in steps of", spec.step)):
            if figure is not None:
                words.append(f"{key} {format_number(figure)}")
    if spec.default is not None:
        default = shown_value(spec, spec.default)
        words.append(f"default {clean_line(default, 80) or 'empty'}")
    if spec.hint and spec.type not in ("date", "time", "datetime-local", "month", "color"):
        words.append(f"for example {clean_line(spec.hint, 80)}")
    if spec.description:
        words.append(clean_line(spec.description, 200))
    return ", ".join(words) + "."


def shown_value(spec: TemplateField, value: str) -> str:
    if spec.type == "checkbox":
        return "yes" if checkbox_value(value) == "true" else "no"
    return value


def read_value(spec: TemplateField, typed: str, current: str) -> str:
    """What the user's line means for the field: Enter keeps `current`, "-" empties, a number picks an option."""
    text = typed.strip()
    if not text:
        return current
    if text == EMPTY:
        return "false" if spec.type == "checkbox" else ""
    if spec.type == "select" and text.isdigit() and 1 <= int(text) <= len(spec.options):
        return spec.options[int(text) - 1]
    if spec.type == "checkbox":
        return checkbox_value(text)
    return typed if spec.type == "textarea" else text


def render_values(fields: list[TemplateField], values: dict[str, str]) -> dict[str, str]:
    """The form's rule: an empty optional field is left out (its placeholder stays as written) unless it has a
    default, in which case emptying it means ""."""
    return {
        spec.name: values[spec.name]
        for spec in fields
        if spec.type == "checkbox" or values[spec.name].strip() or spec.default is not None
    }


async def entries(session: PlainSession) -> list[TemplateEntry]:
    """The library's templates for the shown dialog, local ones first, then the MCP servers' prompts."""
    library = session.template_library()
    found = library.entries(session.dialog, session.center)
    servers = session.dialog.effective_mcp_servers()
    if servers and session.center.tool_source is not None:
        found += await library.mcp_entries(servers, center=session.center)
    return found


async def template(session: PlainSession, argument: str) -> None:
    found = await entries(session)
    rows = [Row(entry.name, entry.name) for entry in found]
    session.lists["templates"] = rows
    name = argument.strip()
    if not name:
        if not found:
            folder = session.template_library().folder
            session.out.line(f"No templates yet: put one in {folder} (see `visindigo config path --all`).")
            return
        session.out.line(f"{len(found)} template{'' if len(found) == 1 else 's'}; /template NAME or N fills one:")
        for number, entry in enumerate(found, start=1):
            about = f": {clean_line(entry.description, 100)}" if entry.description else ""
            session.out.line(f"{number}. {clean_line(entry.name, 80)}{about}")
        return
    if name.isdigit():
        key = number_in(session, "template", name, rows).key
        entry = next(e for e in found if e.name == key)
    else:
        matches = [e for e in found if e.name.casefold() == name.casefold()] or [
            e for e in found if e.name.casefold().startswith(name.casefold())
        ]
        if len(matches) != 1:
            what = "No template" if not matches else "More than one template"
            raise Refused(f"{what} is called {quoted(name)}: /template lists them.")
        entry = matches[0]
    await fill(session, entry)


async def fill(session: PlainSession, entry: TemplateEntry) -> None:
    """Ask the entry's fields, render it, read it out, and send it if the user says so."""
    session.workbench.refuse_while_running(session.dialog)
    library = session.template_library()
    fields = entry.fields()
    about = f": {clean_line(entry.description, 200)}" if entry.description else ""
    count = len(fields)
    session.out.line(f"Template {quoted(entry.name, 80)}{about}.")
    if count:
        session.out.line(
            f"{count} field{'' if count == 1 else 's'}. Enter keeps the value in brackets, {EMPTY} empties it, "
            "ctrl+c gives up."
        )
    remembered = library.remembered(entry.key)
    values: dict[str, str] = {}
    for number, spec in enumerate(fields, start=1):
        value = await ask_field(session, spec, number, count, spec.initial_value(remembered))
        if value is None:
            session.out.line("The template was not used.")
            return
        values[spec.name] = value
    messages = await render(session, entry.template, fields, values)
    if messages is None:
        return
    session.out.line("The message will read:")
    session.out.line("\n".join(m.content for m in messages))
    answer = await session.ask("Send it? yes, no, or edit: ")
    word = (answer or "").strip().lower()
    if word in ("e", "edit"):
        text = await session.ask(f"Your text ({BLOCK} for several lines): ", prefill=messages[-1].content, message=True)
        if not text or not text.strip():
            session.out.line("The template was not sent.")
            return
        library.remember(entry.key, values)
        last = session.workbench.add_template(messages, send=False)
        session.workbench.send_edited_template(last, text)
        return
    if word not in YES:
        session.out.line("The template was not sent.")
        return
    library.remember(entry.key, values)
    session.workbench.add_template(messages, send=True)


async def ask_field(session: PlainSession, spec: TemplateField, number: int, count: int, initial: str) -> str | None:
    session.out.line(describe(spec, number, count))
    current = initial
    while True:
        shown = shown_value(spec, current)
        typed = await session.ask(
            f"{clean_line(spec.title, 60)} [{clean_line(shown, 60)}]: " if shown else f"{clean_line(spec.title, 60)}: ",
            message=spec.type == "textarea",
        )
        if typed is None:
            return None
        value = read_value(spec, typed, current)
        problem = spec.check(value)
        if problem is None:
            return value
        session.out.line(problem, label="Problem:", kind="problem")


async def render(
    session: PlainSession, template: object, fields: list[TemplateField], values: dict[str, str]
) -> list[Message] | None:
    """The template's message(s): rendered here for a local template, by its server for an MCP prompt."""
    if isinstance(template, Prompt):
        config = session.center.config
        user = UserContext.from_environment(config.user if config is not None else None)
        return [template.render(render_values(fields, values), user=user)]
    from visindigo.engine.templates.mcp import MCPPromptTemplate

    assert isinstance(template, MCPPromptTemplate)
    session.out.line(f"Asking {quoted(template.server.name, 40)} for the prompt…", kind="status")
    try:
        return await template.render(values)
    except Exception as error:  # the server's reason is what the user needs, whatever its type
        session.out.line(f"The server could not render this prompt: {error}", kind="problem")
        return None
