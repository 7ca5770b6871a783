"""A dialog's generation parameters: output limit, sampling, stop sequences, reasoning effort, tool choice.

They belong to the dialog (stored and exported with it) rather than to the provider, because what a user tries
— a short answer, a fixed seed, forcing one tool — is about this conversation. Only what is set is sent: an
unset parameter leaves the server's default alone, which matters for servers that reject fields they do not
know. `tool_choice` is "auto", "none", "required" or the name of one tool; a forced choice ("required" or a
name) applies to the first round of a run only, and the rounds after a tool result use "auto", so a forced call
cannot repeat itself until the round limit (the OpenAI Agents SDK does the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "PARAMETER_NAMES",
    "REASONING_EFFORTS",
    "TOOL_CHOICE_MODES",
    "ParameterError",
    "clean_parameters",
    "is_forced_tool_choice",
    "summary",
]

#: In the order the parameters screen and the status line show them.
PARAMETER_NAMES = ("max_tokens", "temperature", "top_p", "seed", "stop", "reasoning_effort", "tool_choice")
REASONING_EFFORTS = ("minimal", "low", "medium", "high")
TOOL_CHOICE_MODES = ("auto", "none", "required")


class ParameterError(ValueError):
    """A parameter value that cannot be sent; the message names the parameter and what it accepts."""


def clean_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters that are set, checked and in their wire types; raises `ParameterError` on a bad value.

    None, "" and [] mean "not set" and are dropped; unknown names are dropped too (a newer version's field in an
    old export must not break loading it).
    """
    cleaned: dict[str, Any] = {}
    for name in PARAMETER_NAMES:
        value = values.get(name)
        if value is None or value == "" or value == []:
            continue
        checked = _CHECKS[name](value)
        if checked != []:
            cleaned[name] = checked
    return cleaned


def is_forced_tool_choice(value: Any) -> bool:
    """Whether a tool choice (ours, or an OpenAI / Anthropic wire value) forces a call."""
    if isinstance(value, str):
        return value not in ("auto", "none", "")
    if isinstance(value, dict):
        return value.get("type") not in ("auto", "none", None)
    return False


def summary(parameters: Mapping[str, Any]) -> str:
    """The set parameters in a few characters for the status line, e.g. `max 256 · t 0.7 · tool get_time`."""
    short = {
        "max_tokens": "max",
        "temperature": "t",
        "top_p": "p",
        "seed": "seed",
        "stop": "stop",
        "reasoning_effort": "effort",
        "tool_choice": "tool",
    }
    pieces = []
    for name in PARAMETER_NAMES:
        if name not in parameters:
            continue
        value = parameters[name]
        shown = f"{len(value)}" if name == "stop" else f"{value:g}" if isinstance(value, float) else str(value)
        pieces.append(f"{short[name]} {shown}")
    return " · ".join(pieces)


def _positive_int(name: str, value: Any) -> int:
    number = _number(name, value)
    if number != int(number) or number < 1:
        raise ParameterError(f"{name} must be a whole number of 1 or more, not {value!r}")
    return int(number)


def _any_int(name: str, value: Any) -> int:
    number = _number(name, value)
    if number != int(number):
        raise ParameterError(f"{name} must be a whole number, not {value!r}")
    return int(number)


def _in_range(name: str, value: Any, low: float, high: float) -> float:
    number = _number(name, value)
    if not low <= number <= high:
        raise ParameterError(f"{name} must be between {low:g} and {high:g}, not {value!r}")
    return float(number)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ParameterError(f"{name} must be a number, not {value!r}")
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        raise ParameterError(f"{name} must be a number, not {value!r}") from None


def _stop(value: Any) -> list[str]:
    pieces = [value] if isinstance(value, str) else value
    if not isinstance(pieces, list | tuple) or not all(isinstance(piece, str) for piece in pieces):
        raise ParameterError(f"stop must be a list of texts, not {value!r}")
    kept = [piece for piece in pieces if piece]
    if len(kept) > 4:
        raise ParameterError("stop takes at most 4 sequences (OpenAI's limit)")
    return kept


def _effort(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in REASONING_EFFORTS:
        raise ParameterError(f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, not {value!r}")
    return text


def _tool_choice(value: Any) -> str:
    text = str(value).strip()
    if not text:
        raise ParameterError("tool_choice must be auto, none, required or the name of a tool")
    return text


_CHECKS: dict[str, Any] = {
    "max_tokens": lambda value: _positive_int("max_tokens", value),
    "temperature": lambda value: _in_range("temperature", value, 0.0, 2.0),
    "top_p": lambda value: _in_range("top_p", value, 0.0, 1.0),
    "seed": lambda value: _any_int("seed", value),
    "stop": _stop,
    "reasoning_effort": _effort,
    "tool_choice": _tool_choice,
}
