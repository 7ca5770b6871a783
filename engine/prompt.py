"""Prompt templates (spec file 002): text with `{{variable}}` placeholders, rendered into a message.

A placeholder the caller does not fill stays in the rendered text as written. That is deliberate (the spec):
a half-filled template sent as is makes the model guess, while a visible `{{name}}` shows at once what is
missing.

Beyond the spec, and compatible with it: a placeholder may carry a type in Open WebUI's syntax
(`{{name | select:options=["a","b"]:required}}`, see `templates.syntax`), which `fields()` turns into form
fields; a typed placeholder's `default=` fills it when no value is given; and the system variables
(`{{CURRENT_DATE}}`, …) fill themselves from a clock unless the caller gives a value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from .message import Message, Role
from .record import record

if TYPE_CHECKING:
    from .templates.fields import TemplateField
    from .templates.render import Segment
    from .templates.syntax import SyntaxProblem
    from .templates.system import Clock, UserContext

# The template language (`templates.*`: its parser, field types, the clock and time zones, ~20 ms to import) is
# imported by the methods that use it: every Dialog holds prompts, but only rendering or inspecting one needs it,
# and start-up does neither.

#: `{{ name }}`: the spec's plain placeholder. Typed placeholders are found by `templates.syntax.scan`.
PLACEHOLDER = re.compile(r"\{\{\s*([^\W\d][\w.-]*)\s*\}\}")


@record
class Prompt:
    name: str = ""
    content: str = ""
    description: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        self.tags = tuple(self.tags)

    def variables(self) -> list[str]:
        """Placeholder names (plain, typed and system), each once, in order of first appearance."""
        from .templates.syntax import scan

        seen: dict[str, None] = {}
        for placeholder in scan(self.content).placeholders:
            seen.setdefault(placeholder.name, None)
        return list(seen)

    def fields(self) -> list[TemplateField]:
        """One form field per variable, in order of first appearance; system variables are not fields.

        A plain `{{name}}` is an optional text field. When a name appears more than once, the first typed
        occurrence describes the field (so `{{x}} … {{x | number}}` asks for a number).
        """
        from .templates.fields import TemplateField
        from .templates.syntax import scan
        from .templates.system import is_system_variable

        found: dict[str, TemplateField | None] = {}
        for placeholder in scan(self.content).placeholders:
            if is_system_variable(placeholder.name):
                continue
            if found.get(placeholder.name) is None:
                found[placeholder.name] = placeholder.field
        return [spec if spec is not None else TemplateField(name) for name, spec in found.items()]

    def problems(self) -> list[SyntaxProblem]:
        """Typed placeholders that do not parse (they stay in the text as written), with the reason."""
        from .templates.syntax import scan

        return list(scan(self.content).problems)

    def render(
        self,
        variables: Mapping[str, object] | None = None,
        *,
        clock: Clock | None = None,
        user: UserContext | None = None,
    ) -> Message:
        """A `Role.PROMPT` message named after this prompt.

        Each placeholder takes, in order: the caller's value; for a system variable, the clock's value; for a
        typed placeholder, its `default=`. Anything else is left as written. A checkbox value is written as
        "true" or "false". `user` gives USER_NAME, USER_LANGUAGE, USER_LOCATION and CLIPBOARD (by default from
        the environment, with an empty clipboard).
        """
        return Message(Role.PROMPT, self.fill(variables, clock=clock, user=user), name=self.name)

    def fill(
        self,
        variables: Mapping[str, object] | None = None,
        *,
        clock: Clock | None = None,
        user: UserContext | None = None,
    ) -> str:
        """The rendered text alone (what `render()` puts in the message)."""
        return "".join(segment.text for segment in self.segments(variables, clock=clock, user=user))

    def segments(
        self,
        variables: Mapping[str, object] | None = None,
        *,
        clock: Clock | None = None,
        user: UserContext | None = None,
    ) -> list[Segment]:
        """The rendered text in runs, each placeholder left as written marked with its name (for previews)."""
        from .templates.render import resolve_values, segments

        values = resolve_values(self.content, self.fields(), variables or {}, clock, user)
        return segments(self.content, values)

    def unfilled(self, variables: Mapping[str, object] | None = None) -> list[str]:
        """The variables that `render(variables)` would leave as written, in order of first appearance."""
        from .templates.system import is_system_variable

        given = variables or {}
        defaults = {spec.name for spec in self.fields() if spec.default is not None}
        return [
            name
            for name in self.variables()
            if name not in given and name not in defaults and not is_system_variable(name)
        ]

    def is_valid(self) -> bool:
        """Usable when both the name and the content are non-empty."""
        return bool(self.name) and bool(self.content)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "content": self.content}
        if self.description:
            data["description"] = self.description
        if self.tags:
            data["tags"] = list(self.tags)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Prompt:
        tags = data.get("tags") or ()
        return cls(
            name=str(data.get("name", "")),
            content=str(data.get("content", "")),
            description=str(data.get("description", "")),
            tags=tuple(str(t) for t in tags) if isinstance(tags, Iterable) and not isinstance(tags, str) else (),
        )
