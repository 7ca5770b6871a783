"""Commands (spec file 004): the `@command` decorator and the `CommandProvider` protocol.

A `Command` *is* a `Function`, so a command goes wherever a function does: `dialog.add_function(cmd)`.
`command_to_function` exists for readers of the architecture document and returns the command itself.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from .function import Function, check_function_id


@dataclass
class JSONSchema:
    """A JSON Schema node with the fields tools use; `required` marks the property required in its parent."""

    class Type(StrEnum):
        STRING = "string"
        ARRAY = "array"
        OBJECT = "object"
        NUMBER = "number"
        INTEGER = "integer"
        BOOLEAN = "boolean"
        NULL = "null"

    type: JSONSchema.Type | None = None
    description: str | None = None
    required: bool = False
    items: JSONSchema | None = None
    properties: dict[str, JSONSchema] | None = None
    enum: list[Any] | None = None
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON Schema; nested `required` flags become the parent's `required` list."""
        schema: dict[str, Any] = {}
        if self.type is not None:
            schema["type"] = self.type.value
        if self.description:
            schema["description"] = self.description
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.default is not None:
            schema["default"] = self.default
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.items is not None:
            schema["items"] = self.items.to_dict()
        if self.properties is not None:
            schema["properties"] = {name: spec.to_dict() for name, spec in self.properties.items()}
            required = [name for name, spec in self.properties.items() if spec.required]
            if required:
                schema["required"] = required
        return schema

    @classmethod
    def from_dict(cls, schema: Mapping[str, Any]) -> JSONSchema:
        type_name = schema.get("type")
        properties = schema.get("properties")
        required = set(schema.get("required", []))
        parsed_properties = None
        if isinstance(properties, Mapping):
            parsed_properties = {}
            for name, sub in properties.items():
                node = cls.from_dict(sub)
                node.required = name in required
                parsed_properties[name] = node
        items = schema.get("items")
        return cls(
            type=JSONSchema.Type(type_name) if isinstance(type_name, str) else None,
            description=schema.get("description"),
            items=cls.from_dict(items) if isinstance(items, Mapping) else None,
            properties=parsed_properties,
            enum=list(schema["enum"]) if "enum" in schema else None,
            default=schema.get("default"),
            minimum=schema.get("minimum"),
            maximum=schema.get("maximum"),
        )


@dataclass
class CommandParameter:
    name: str
    spec: JSONSchema


class Command(Function):
    """A callable with names, a description and parameters; usable as a `Function`.

    `names[0]` is the id sent to the model (it must satisfy the id rule); further names are aliases.
    """

    def __init__(
        self,
        names: Sequence[str],
        description: str,
        method: Callable[..., Any],
        parameters: Sequence[CommandParameter] = (),
        *,
        dangerous: bool = False,
    ) -> None:
        if not names:
            raise ValueError("a command needs at least one name")
        self.names = list(names)
        self.description_text = description
        self.method = method
        self.parameters = list(parameters)
        self.dangerous = dangerous

    def __repr__(self) -> str:
        return f"Command(names={self.names!r}, description={self.description_text!r})"

    def __get__(self, instance: object, owner: type | None = None) -> Command:
        """Accessed on an instance, a decorated method becomes a command bound to that instance."""
        if instance is None:
            return self
        return Command(
            self.names,
            self.description_text,
            types.MethodType(self.method, instance),
            self.parameters,
            dangerous=self.dangerous,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.method(*args, **kwargs)

    @property
    def requires_approval(self) -> bool:  # type: ignore[override]
        return self.dangerous

    @property
    def id(self) -> str:
        return self.names[0]

    @property
    def name(self) -> str:
        return self.names[0]

    @property
    def description(self) -> str:
        return self.description_text

    @property
    def parameter_schema(self) -> dict[str, Any]:
        root = JSONSchema(
            type=JSONSchema.Type.OBJECT, properties={p.name: p.spec for p in self.parameters}
        )
        return root.to_dict()

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.method(**arguments)
        return result if isinstance(result, dict) else {"result": result}

    async def invoke_async(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Coroutine methods are awaited on the loop; plain ones run in a thread."""
        if inspect.iscoroutinefunction(self.method):
            result = await self.method(**arguments)
            return result if isinstance(result, dict) else {"result": result}
        return await super().invoke_async(arguments)


def command(
    names: Sequence[str] | None = None,
    description: str | None = None,
    parameters: Mapping[str, JSONSchema] | None = None,
    *,
    dangerous: bool = False,
) -> Callable[[Callable[..., Any]], Command]:
    """Turn a method (or function) into a `Command`.

    The name defaults to the function's name and the description to its docstring up to the first blank
    line. Without `parameters`, they are derived from the signature's type hints (a parameter without a
    default is required), so a typed function needs nothing else.
    """

    def decorate(method: Callable[..., Any]) -> Command:
        command_names = list(names) if names else [method.__name__]
        check_function_id(command_names[0])
        text = description if description is not None else _summary(method)
        specs = dict(parameters) if parameters is not None else _parameters_from_signature(method)
        return Command(
            command_names,
            text,
            method,
            [CommandParameter(name, spec) for name, spec in specs.items()],
            dangerous=dangerous,
        )

    return decorate


def command_to_function(cmd: Command) -> Function:
    """A command already is a function; kept for the architecture's name."""
    return cmd


@runtime_checkable
class CommandProvider(Protocol):
    """A component that offers commands."""

    def get_commands(self) -> Iterator[Command]: ...


def _summary(method: Callable[..., Any]) -> str:
    doc = inspect.getdoc(method) or ""
    return doc.split("\n\n", 1)[0].strip()


_PRIMITIVES: dict[Any, JSONSchema.Type] = {
    str: JSONSchema.Type.STRING,
    int: JSONSchema.Type.INTEGER,
    float: JSONSchema.Type.NUMBER,
    bool: JSONSchema.Type.BOOLEAN,
    dict: JSONSchema.Type.OBJECT,
    list: JSONSchema.Type.ARRAY,
}


def _schema_for(annotation: Any) -> JSONSchema:
    origin = typing.get_origin(annotation)
    if annotation in _PRIMITIVES:
        return JSONSchema(type=_PRIMITIVES[annotation])
    if origin in (list, tuple, Sequence):
        args = typing.get_args(annotation)
        return JSONSchema(type=JSONSchema.Type.ARRAY, items=_schema_for(args[0]) if args else None)
    if origin in (dict, Mapping):
        return JSONSchema(type=JSONSchema.Type.OBJECT)
    if origin is typing.Literal:
        values = list(typing.get_args(annotation))
        kind = _PRIMITIVES.get(type(values[0])) if values else None
        return JSONSchema(type=kind, enum=values)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return _schema_for(options[0])
    return JSONSchema()


def _parameters_from_signature(method: Callable[..., Any]) -> dict[str, JSONSchema]:
    try:
        hints = typing.get_type_hints(method)
    except Exception:
        hints = {}
    specs: dict[str, JSONSchema] = {}
    for parameter in inspect.signature(method).parameters.values():
        if parameter.name == "self" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        spec = _schema_for(hints.get(parameter.name, Any))
        spec.required = parameter.default is inspect.Parameter.empty
        if not spec.required and parameter.default is not None:
            spec.default = parameter.default
        specs[parameter.name] = spec
    return specs
