"""The template library: the user's template files, the Center's and the dialog's prompts, and MCP prompts.

Files live in one folder (the config's prompt folder), one `*.md` file per template (format in
`fileformat`). Precedence by name, strongest first: the dialog's prompt (the spec's rule), then the file,
then the Center's prompt — the files are what the user edits here, so an edit must show, even if a script
registered a Center prompt of the same name. Create, edit, duplicate and delete only ever touch files; every
write is atomic, an edit refuses to overwrite a file that changed on disk since it was read, and delete
moves the file into `.trash/` in the same folder rather than unlinking it.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..atomic import PRIVATE_FOLDER, write_text_atomic
from ..prompt import Prompt
from .fields import TemplateField
from .fileformat import SUFFIX, TemplateFile, TemplateFileError, format_template_file, parse_template_file
from .mcp import MCPPromptSource, MCPPromptTemplate, list_mcp_templates
from .remembered import RememberedValues

if TYPE_CHECKING:
    from ..center import Center
    from ..dialog import Dialog
    from ..lookup import DialogHost
    from ..mcp_server import MCPServer

Source = Literal["dialog", "file", "center", "mcp"]
VALUES_FILE_NAME = ".values.json"
TRASH_DIR_NAME = ".trash"
_SLUG_UNSAFE = re.compile(r"[^\w-]+")


class TemplateError(ValueError):
    """A library operation was refused; the message is a sentence to show the user as is."""


@dataclass(frozen=True, slots=True)
class LibraryProblem:
    """A file in the template folder that could not be read; it is skipped and left untouched."""

    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path.name}: {self.message}"


@dataclass(frozen=True)
class TemplateEntry:
    """One template as the library lists it: a local `Prompt` or a server's `MCPPromptTemplate`."""

    template: Prompt | MCPPromptTemplate
    source: Source
    path: Path | None = None

    @property
    def name(self) -> str:
        return self.template.name

    @property
    def key(self) -> str:
        """Stable identity for remembered values: local templates by name, server prompts by `server/name`."""
        if isinstance(self.template, MCPPromptTemplate):
            return self.template.key
        return "prompt:" + self.template.name

    @property
    def description(self) -> str:
        return self.template.description

    @property
    def tags(self) -> tuple[str, ...]:
        return self.template.tags if isinstance(self.template, Prompt) else ("mcp", self.template.server.name)

    @property
    def editable(self) -> bool:
        """Only files are edited or deleted here; other entries can be duplicated into a file."""
        return self.source == "file"

    def fields(self) -> list[TemplateField]:
        return self.template.fields()


@dataclass(slots=True)
class _Loaded:
    file: TemplateFile
    path: Path
    stamp: tuple[int, int]


class TemplateLibrary:
    """Templates from a folder, plus the Center's, the dialog's and (via `mcp_entries`) MCP servers' prompts.

    `folder` need not exist: it is created by the first write. `values_path` is where the form's last values
    are kept (default: `.values.json` in the folder). `mcp` is the MCP prompt source; without one,
    `mcp_entries` uses the Center's `tool_source` when that can list prompts (the app's `MCPManager`).
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        values_path: str | os.PathLike[str] | None = None,
        mcp: MCPPromptSource | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.mcp = mcp
        self._values = RememberedValues(Path(values_path) if values_path else self.folder / VALUES_FILE_NAME)
        self._files: dict[str, _Loaded] = {}
        self._problems: list[LibraryProblem] = []
        self.reload()

    # --- reading -------------------------------------------------------------------------------------------

    def reload(self) -> list[LibraryProblem]:
        """Read the folder again; returns the files that could not be read (also kept in `problems`)."""
        files: dict[str, _Loaded] = {}
        problems: list[LibraryProblem] = []
        for path in self._template_paths(problems):
            try:
                stat = path.stat()
                parsed = parse_template_file(path.read_text(encoding="utf-8"), path.stem)
            except UnicodeDecodeError:
                problems.append(LibraryProblem(path, "is not UTF-8 text"))
                continue
            except OSError as exc:
                problems.append(LibraryProblem(path, f"cannot be read ({exc.strerror or exc})"))
                continue
            except TemplateFileError as exc:
                problems.append(LibraryProblem(path, str(exc)))
                continue
            name = parsed.prompt.name
            if not parsed.prompt.content.strip():
                problems.append(LibraryProblem(path, "has no template text"))
            elif name in files:
                problems.append(LibraryProblem(path, f"uses the name {name!r} of {files[name].path.name}; skipped"))
            else:
                files[name] = _Loaded(parsed, path, (stat.st_mtime_ns, stat.st_size))
        self._files = files
        self._problems = problems
        return list(problems)

    @property
    def problems(self) -> list[LibraryProblem]:
        return list(self._problems)

    def file_prompts(self) -> list[Prompt]:
        """The templates read from the folder, in file-name order."""
        return [_copy(loaded.file.prompt) for loaded in self._files.values()]

    def path_of(self, name: str) -> Path | None:
        loaded = self._files.get(name)
        return loaded.path if loaded else None

    def entries(self, dialog: Dialog | None = None, center: Center | None = None) -> list[TemplateEntry]:
        """Local templates, one per name (dialog over file over Center), sorted by name."""
        host = center if center is not None else (dialog.center if dialog is not None else None)
        chosen: dict[str, TemplateEntry] = {}
        for prompt in host.prompts if host is not None else []:
            chosen[prompt.name] = TemplateEntry(prompt, "center")
        for name, loaded in self._files.items():
            chosen[name] = TemplateEntry(_copy(loaded.file.prompt), "file", loaded.path)
        for prompt in dialog.prompts if dialog is not None else []:
            chosen[prompt.name] = TemplateEntry(prompt, "dialog")
        return sorted(chosen.values(), key=lambda entry: (entry.name.casefold(), entry.name))

    def get(self, name: str, dialog: Dialog | None = None, center: Center | None = None) -> TemplateEntry | None:
        return next((entry for entry in self.entries(dialog, center) if entry.name == name), None)

    async def mcp_entries(
        self, servers: Sequence[MCPServer], *, source: MCPPromptSource | None = None, center: DialogHost | None = None
    ) -> list[TemplateEntry]:
        """The prompts of these MCP servers; empty when there is no MCP source or no server."""
        chosen = source or self.mcp
        if chosen is None and center is not None and isinstance(center.tool_source, MCPPromptSource):
            chosen = center.tool_source
        if chosen is None or not servers:
            return []
        templates = await list_mcp_templates(chosen, servers)
        return [TemplateEntry(template, "mcp") for template in templates]

    # --- writing -------------------------------------------------------------------------------------------

    def create(self, prompt: Prompt) -> TemplateEntry:
        """Write a new template file; refuses a name that a file template already uses."""
        clean = _validated(prompt)
        if clean.name in self._files:
            raise TemplateError(f"A template named {clean.name!r} already exists.")
        path = self._free_path(clean.name)
        return self._write(TemplateFile(clean), path)

    def update(self, name: str, prompt: Prompt) -> TemplateEntry:
        """Rewrite the file of template `name` (it may be renamed; its file keeps its path)."""
        loaded = self._files.get(name)
        if loaded is None:
            raise TemplateError(f"There is no template file named {name!r}; only file templates can be edited.")
        clean = _validated(prompt)
        if clean.name != name and clean.name in self._files:
            raise TemplateError(f"A template named {clean.name!r} already exists.")
        if _stamp(loaded.path) != loaded.stamp:
            raise TemplateError(
                f"{loaded.path.name} changed on disk after it was read; reload the library (ctrl+r) and edit again."
            )
        del self._files[name]
        try:
            entry = self._write(TemplateFile(clean, dict(loaded.file.extra)), loaded.path)
        except BaseException:
            self._files[name] = loaded
            raise
        if clean.name != name:
            self._values.forget("prompt:" + name)
        return entry

    def duplicate(self, prompt: Prompt) -> TemplateEntry:
        """Save a copy of any local template as a new file named "<name> (copy)" (or "(copy 2)", …)."""
        base = prompt.name.strip() or "template"
        name = f"{base} (copy)"
        number = 2
        while name in self._files:
            name = f"{base} (copy {number})"
            number += 1
        return self.create(replace(_copy(prompt), name=name))

    def delete(self, name: str) -> Path:
        """Move the template's file into `.trash/`; returns where it went."""
        loaded = self._files.get(name)
        if loaded is None:
            raise TemplateError(f"There is no template file named {name!r}; only file templates can be deleted.")
        trash = self.folder / TRASH_DIR_NAME
        target = trash / f"{loaded.path.stem}.{time.strftime('%Y%m%d-%H%M%S')}{loaded.path.suffix}"
        counter = 2
        while target.exists():
            target = trash / f"{loaded.path.stem}.{time.strftime('%Y%m%d-%H%M%S')}-{counter}{loaded.path.suffix}"
            counter += 1
        try:
            trash.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
            os.replace(loaded.path, target)
        except FileNotFoundError:
            raise TemplateError(f"{loaded.path.name} is already gone from the folder; reload the library.") from None
        except OSError as exc:
            raise TemplateError(f"Could not move {loaded.path.name} to {trash}: {exc.strerror or exc}.") from None
        del self._files[name]
        self._values.forget("prompt:" + name)
        return target

    # --- remembered form values ----------------------------------------------------------------------------

    def remembered(self, key: str) -> dict[str, str]:
        """The values last submitted in the form of template `key` (`TemplateEntry.key`)."""
        return self._values.get(key)

    def remember(self, key: str, values: dict[str, str]) -> None:
        self._values.set(key, values)

    # --- helpers -------------------------------------------------------------------------------------------

    def _template_paths(self, problems: list[LibraryProblem]) -> list[Path]:
        try:
            children = list(self.folder.iterdir())
        except FileNotFoundError:
            return []
        except OSError as exc:
            problems.append(LibraryProblem(self.folder, f"cannot be listed ({exc.strerror or exc})"))
            return []
        return sorted(p for p in children if p.suffix == SUFFIX and not p.name.startswith(".") and p.is_file())

    def _free_path(self, name: str) -> Path:
        slug = _SLUG_UNSAFE.sub("-", name.casefold()).strip("-_")[:60] or "template"
        path = self.folder / f"{slug}{SUFFIX}"
        number = 2
        while path.exists():
            path = self.folder / f"{slug}-{number}{SUFFIX}"
            number += 1
        return path

    def _write(self, template: TemplateFile, path: Path) -> TemplateEntry:
        try:
            write_text_atomic(path, format_template_file(template), folder_mode=PRIVATE_FOLDER)
        except OSError as exc:
            raise TemplateError(f"Could not write {path}: {exc.strerror or exc}.") from None
        self._files[template.prompt.name] = _Loaded(template, path, _stamp(path))
        self._files = dict(sorted(self._files.items(), key=lambda item: item[1].path.name))
        return TemplateEntry(_copy(template.prompt), "file", path)


def _validated(prompt: Prompt) -> Prompt:
    name = prompt.name.strip()
    if not name:
        raise TemplateError("A template needs a name.")
    if "\n" in name or "\r" in name:
        raise TemplateError("A template name must fit on one line.")
    if not prompt.content.strip():
        raise TemplateError("A template needs some text.")
    tags = tuple(dict.fromkeys(tag.strip() for tag in prompt.tags if tag.strip()))
    return Prompt(name=name, content=prompt.content, description=prompt.description.strip(), tags=tags)


def _copy(prompt: Prompt) -> Prompt:
    return Prompt(name=prompt.name, content=prompt.content, description=prompt.description, tags=prompt.tags)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (-1, -1)
    return (stat.st_mtime_ns, stat.st_size)
