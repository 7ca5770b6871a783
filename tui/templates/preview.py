"""What the template form's preview shows of a local template: the message as it will be sent, with unfilled
placeholders highlighted, and the line under it naming what is still to fill in or left as written."""

from __future__ import annotations

from collections.abc import Mapping, Set

from textual.content import Content

from visindigo.engine import Message, Prompt
from visindigo.engine.templates import Clock, UserContext
from visindigo.tui.common.sanitize import clean

#: The preview shows at most this much text; the message itself is never cut.
PREVIEW_LIMIT = 20_000


def local_preview(
    template: Prompt, values: Mapping[str, str], *, clock: Clock | None, user: UserContext | None
) -> Content:
    """The rendered message, cut at `PREVIEW_LIMIT`, with each placeholder left unfilled in reverse."""
    parts: list[str | tuple[str, str]] = []
    length = 0
    for segment in template.segments(dict(values), clock=clock, user=user):
        text = clean(segment.text)
        if length + len(text) > PREVIEW_LIMIT:
            parts.append(text[: PREVIEW_LIMIT - length] + "\n… (preview cut here; the message is complete)")
            break
        length += len(text)
        parts.append((text, "bold reverse") if segment.placeholder else text)
    return Content.assemble(*parts)


def unfilled_note(template: Prompt, values: Mapping[str, str], required: Set[str], user: UserContext | None) -> str:
    """The fields still to fill in (required) or left as written (optional), an empty clipboard, and text that
    looks like a placeholder but is not one."""
    unfilled = template.unfilled(dict(values))
    lines = []
    needed = [name for name in unfilled if name in required]
    optional = [name for name in unfilled if name not in required]
    if needed:
        lines.append("Still to fill in (required): " + ", ".join(clean(name) for name in needed))
    if optional:
        lines.append("Left as written (optional, empty): " + ", ".join("{{" + clean(n) + "}}" for n in optional))
    if user is not None and user.clipboard is None and "CLIPBOARD" in template.variables():
        lines.append(f"{{{{CLIPBOARD}}}} is empty: {clean(user.clipboard_problem)}")
    malformed = template.problems()
    lines.extend(f"Not a placeholder, left as written — {clean(str(problem))}" for problem in malformed[:3])
    if len(malformed) > 3:
        lines.append(f"… and {len(malformed) - 3} more that are not placeholders")
    return "\n".join(lines)


def joined(messages: list[Message]) -> str:
    """A server prompt's messages as one text (each with its role when there are several)."""
    if len(messages) == 1:
        return messages[0].content
    return "\n\n".join(f"[{m.role.wire_name}] {m.content}" for m in messages)
