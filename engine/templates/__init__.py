"""Prompt templates beyond the spec: typed placeholders, system variables, the library on disk, MCP prompts.

`Prompt` itself lives in `visindigo.engine.prompt` and uses the template language defined here. The library
and the MCP adapter import `Prompt`, so they are loaded on first use (PEP 562) rather than here: importing
`visindigo.engine.prompt` first must not pull them in half-initialised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import names_on_first_use
from .fields import FIELD_TYPES, FieldType, TemplateField
from .syntax import Placeholder, Scan, SyntaxProblem, scan
from .system import SYSTEM_VARIABLES, Clock, UserContext, local_now, system_values, user_values

if TYPE_CHECKING:
    from .library import LibraryProblem, TemplateEntry, TemplateError, TemplateLibrary
    from .mcp import MCPPromptSource, MCPPromptTemplate

_LAZY = {
    "LibraryProblem": "library",
    "TemplateEntry": "library",
    "TemplateError": "library",
    "TemplateLibrary": "library",
    "MCPPromptSource": "mcp",
    "MCPPromptTemplate": "mcp",
}


__getattr__ = names_on_first_use(__name__, _LAZY)


__all__ = [
    "FIELD_TYPES",
    "SYSTEM_VARIABLES",
    "Clock",
    "FieldType",
    "LibraryProblem",
    "MCPPromptSource",
    "MCPPromptTemplate",
    "Placeholder",
    "Scan",
    "SyntaxProblem",
    "TemplateEntry",
    "TemplateError",
    "TemplateField",
    "TemplateLibrary",
    "UserContext",
    "local_now",
    "scan",
    "system_values",
    "user_values",
]
