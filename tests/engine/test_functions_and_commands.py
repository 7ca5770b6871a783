"""Functions (spec 000), commands (spec 004) and the tool runner that shields the dialog from tool failures."""

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from visindigo.engine import (
    Command,
    CommandParameter,
    CommandProvider,
    Dialog,
    Function,
    InvalidFunctionId,
    JSONSchema,
    check_function_id,
    command,
)
from visindigo.engine.tool_runner import run_function


class Echo(Function):
    """A minimal hand-written function, as a user of the spec would write one."""

    def __init__(self, function_id: str = "echo") -> None:
        self._id = function_id
        self.threads: list[str] = []

    @property
    def id(self) -> str:
        return self._id

    @property
    def name(self) -> str:
        return "回声 (echo)"

    @property
    def description(self) -> str:
        return "Repeat the given text."

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.threads.append(threading.current_thread().name)
        if arguments["text"] == "boom":
            raise RuntimeError("exploded")
        return {"echo": arguments["text"]}


@pytest.mark.parametrize("good", ["a", "get_time", "A-b_9", "x" * 64])
def test_valid_function_ids_pass(good: str) -> None:
    assert check_function_id(good) == good


@pytest.mark.parametrize(
    ("bad", "reason"),
    [("", "empty"), ("x" * 65, "65 characters"), ("get.time", "'.'"), ("获取时间", "contains"), ("a b", "' '")],
)
def test_invalid_function_ids_are_refused_with_the_reason(bad: str, reason: str) -> None:
    with pytest.raises(InvalidFunctionId, match=reason):
        check_function_id(bad)


def test_adding_a_function_with_a_bad_id_fails_at_once() -> None:
    dialog = Dialog()
    with pytest.raises(InvalidFunctionId):
        dialog.add_function(Echo("has space"))
    assert dialog.function_ids == []


async def test_invoke_async_runs_invoke_off_the_event_loop_thread() -> None:
    echo = Echo()
    assert await echo.invoke_async({"text": "hi"}) == {"echo": "hi"}
    assert echo.threads and echo.threads[0] != threading.current_thread().name


class Calculator:
    """A component in the style of spec file 004."""

    @command(
        parameters={
            "a": JSONSchema(type=JSONSchema.Type.INTEGER, description="first number", required=True),
            "b": JSONSchema(type=JSONSchema.Type.INTEGER, description="second number", required=True),
        }
    )
    def multiply(self, a: int, b: int) -> str:
        """
        Multiply two numbers.

        Args:
            a: the first number
        """
        return str(a * b)

    @command(names=["add_numbers"], description="Add two numbers.")
    def add_command(self, a: int, b: float = 1.5, note: str | None = None) -> float:
        return a + b

    def get_commands(self) -> Iterator[Command]:
        yield self.multiply
        yield self.add_command


def test_command_takes_name_from_method_and_description_up_to_first_blank_line() -> None:
    multiply = Calculator().multiply
    assert multiply.names == ["multiply"]
    assert multiply.id == "multiply"
    assert multiply.description == "Multiply two numbers."
    assert multiply.parameter_schema == {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "first number"},
            "b": {"type": "integer", "description": "second number"},
        },
        "required": ["a", "b"],
    }


def test_decorator_overrides_and_schema_from_type_hints() -> None:
    add = Calculator().add_command
    assert add.id == "add_numbers"
    assert add.description == "Add two numbers."
    assert add.parameter_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "number", "default": 1.5}, "note": {"type": "string"}},
        "required": ["a"],
    }


def test_a_command_provider_yields_bound_commands_usable_as_functions() -> None:
    calculator = Calculator()
    assert isinstance(calculator, CommandProvider)
    commands = list(calculator.get_commands())
    assert [c.id for c in commands] == ["multiply", "add_numbers"]
    assert commands[0].invoke({"a": 6, "b": 7}) == {"result": "42"}
    dialog = Dialog()
    dialog.add_function(commands[0])
    assert dialog.get_function("multiply") is commands[0]


def test_command_built_directly_and_nested_schema_to_dict() -> None:
    def tag(items: list[str]) -> dict[str, int]:
        return {"count": len(items)}

    spec = JSONSchema(
        type=JSONSchema.Type.ARRAY,
        description="things",
        required=True,
        items=JSONSchema(
            type=JSONSchema.Type.OBJECT,
            properties={
                "label": JSONSchema(type=JSONSchema.Type.STRING, required=True),
                "weight": JSONSchema(type=JSONSchema.Type.NUMBER),
            },
        ),
    )
    cmd = Command(names=["tag"], description="Tag things.", method=tag, parameters=[CommandParameter("items", spec)])
    schema = cmd.parameter_schema
    assert schema["required"] == ["items"]
    assert schema["properties"]["items"]["items"] == {
        "type": "object",
        "properties": {"label": {"type": "string"}, "weight": {"type": "number"}},
        "required": ["label"],
    }
    assert JSONSchema.from_dict(schema["properties"]["items"]).to_dict() == schema["properties"]["items"]
    assert cmd.invoke({"items": ["a", "b"]}) == {"count": 2}


def test_command_names_are_checked_by_the_id_rule() -> None:
    with pytest.raises(InvalidFunctionId):

        @command(names=["not valid!"])
        def broken() -> None:
            """Nothing."""


async def test_async_command_methods_are_awaited() -> None:
    @command()
    async def wait_a_bit(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "done"

    assert await wait_a_bit.invoke_async({"seconds": 0}) == {"result": "done"}


async def test_runner_returns_the_result_as_compact_json() -> None:
    outcome = await run_function(Echo(), "echo", '{"text": "héllo"}')
    assert outcome.text == '{"echo":"héllo"}'
    assert outcome.is_error is False
    assert outcome.arguments == {"text": "héllo"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"text": 5}', "5 is not of type 'string'"),
        ("{}", "'text' is a required property"),
        ('{"text": ', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
async def test_bad_arguments_become_an_error_result_and_invoke_is_not_called(raw: str, expected: str) -> None:
    echo = Echo()
    outcome = await run_function(echo, "echo", raw)
    assert outcome.is_error
    assert expected in json.loads(outcome.text)["error"]
    assert echo.threads == []


async def test_an_exception_inside_a_tool_becomes_a_readable_result() -> None:
    outcome = await run_function(Echo(), "echo", {"text": "boom"})
    assert outcome.is_error
    assert json.loads(outcome.text) == {"error": "echo failed: RuntimeError: exploded"}


async def test_unknown_tools_and_empty_arguments() -> None:
    outcome = await run_function(None, "teleport", "{}")
    assert outcome.is_error and "unknown tool 'teleport'" in outcome.text

    @command()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert (await run_function(ping, "ping", "")).text == '{"result":"pong"}'
