"""One template per file: Markdown with a TOML front matter block between `+++` lines.

```
+++
name = "Translate"
description = "Translate text into another language"
tags = ["writing"]
+++

Translate into {{language | select:options=["French","German"]:required}}:

{{text | textarea:required}}
```

TOML because the standard library reads it and the project already writes it (tomli-w); `+++` because that
is how Hugo and Zola mark TOML front matter, so editors highlight it. A file without front matter is a
template whose name is the file name and whose content is the whole file. Keys this version does not know
are kept and written back, so an edit never drops what a newer version (or the user) put there.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

import tomlkit

from ..prompt import Prompt

DELIMITER = "+++"
SUFFIX = ".md"


class TemplateFileError(ValueError):
    """A template file that cannot be read; the message says what is wrong, without the path."""


@dataclass(slots=True)
class TemplateFile:
    prompt: Prompt
    #: Front-matter keys other than name/description/tags, written back unchanged.
    extra: dict[str, Any] = field(default_factory=dict)


def parse_template_file(text: str, fallback_name: str) -> TemplateFile:
    """Read a template file's text; raises `TemplateFileError` with a reason a user can act on."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    crlf = lines[0].endswith("\r")
    if lines[0].rstrip() != DELIMITER:
        return TemplateFile(Prompt(name=fallback_name, content=_trim_content(text, crlf)))
    try:
        closing = next(i for i in range(1, len(lines)) if lines[i].rstrip() == DELIMITER)
    except StopIteration:
        raise TemplateFileError(f"the front matter opened by '{DELIMITER}' on line 1 is never closed") from None
    try:
        meta = tomllib.loads("\n".join(line.removesuffix("\r") for line in lines[1:closing]))
    except tomllib.TOMLDecodeError as exc:
        raise TemplateFileError(f"the front matter is not valid TOML ({exc})") from None
    body = "\n".join(lines[closing + 1 :])
    body = body.removeprefix("\r\n" if crlf else "\n")
    name = meta.pop("name", fallback_name)
    description = meta.pop("description", "")
    tags = meta.pop("tags", [])
    if not isinstance(name, str) or not name.strip():
        raise TemplateFileError("'name' must be non-empty text")
    if not isinstance(description, str):
        raise TemplateFileError("'description' must be text")
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise TemplateFileError("'tags' must be a list of text, as in tags = [\"writing\"]")
    prompt = Prompt(name=name.strip(), content=_trim_content(body, crlf), description=description, tags=tuple(tags))
    return TemplateFile(prompt, meta)


def format_template_file(template: TemplateFile) -> str:
    """The file text for a template; `parse_template_file` reads it back to an equal template."""
    prompt = template.prompt
    meta: dict[str, Any] = {"name": prompt.name}
    if prompt.description:
        meta["description"] = prompt.description
    head = tomlkit.dumps(meta)
    if prompt.tags:
        head += "tags = [" + ", ".join(_toml_string(tag) for tag in prompt.tags) + "]\n"
    extra = {key: value for key, value in template.extra.items() if key not in ("name", "description", "tags")}
    return f"{DELIMITER}\n{head}{tomlkit.dumps(extra)}{DELIMITER}\n\n{prompt.content}\n"


def _toml_string(text: str) -> str:
    """A TOML basic string, escaped as tomlkit escapes one."""
    return str(tomlkit.string(text).as_string())


def _trim_content(body: str, crlf: bool) -> str:
    """Drop the one line break that ends the file (CRLF in a file whose first line ends so)."""
    return body.removesuffix("\r\n" if crlf else "\n")
