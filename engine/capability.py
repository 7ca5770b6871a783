"""What a model can do (`Model::Capabilities` in the spec)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntFlag


class Capability(IntFlag):
    """Capability flags; a dialog's requirement is the bitwise OR of what it needs."""

    NONE = 0
    TEXT = 1
    IMAGE = 2
    TOOLS = 4
    REASONING = 8

    @classmethod
    def from_names(cls, names: Iterable[str]) -> Capability:
        """Parse names such as ``["text", "tools"]``; unknown names raise ValueError naming them."""
        result = cls.NONE
        unknown = []
        for name in names:
            try:
                result |= cls[name.strip().upper()]
            except KeyError:
                unknown.append(name)
        if unknown:
            valid = ", ".join(c.name.lower() for c in cls if c.name and c is not cls.NONE)
            raise ValueError(f"unknown capability {', '.join(map(repr, unknown))} (valid: {valid})")
        return result

    def names(self) -> list[str]:
        """Lower-case names of the flags that are set, in declaration order."""
        return [c.name.lower() for c in Capability if c and c.name and c in self]

    def marks(self) -> str:
        """A compact label for status lines: T text, I image, F tools (functions), R reasoning."""
        letters = {Capability.TEXT: "T", Capability.IMAGE: "I", Capability.TOOLS: "F", Capability.REASONING: "R"}
        return "".join(letter for flag, letter in letters.items() if flag in self)
