"""JSON Schemas of config.toml and credentials.toml.

Unknown keys are allowed everywhere: a newer Visindigo (or the user) may add settings this one does not know,
and they must survive a save. `errorMessage` is ours, not JSON Schema's: the text shown when the subschema
fails, for checks whose generic message would say nothing useful (or would echo the value, which may be a
secret).
"""

from __future__ import annotations

from typing import Any

CAPABILITY_NAMES = ["text", "image", "tools", "reasoning"]
PROVIDER_KINDS = ["openai", "anthropic", "scripted"]

_STRING_MAP: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}
_POSITIVE_NUMBER: dict[str, Any] = {"type": "number", "exclusiveMinimum": 0}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_ENV_NAME: dict[str, Any] = {
    "type": "string",
    "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
    "errorMessage": "must be the name of an environment variable (letters, digits and _), not the key itself",
}

_THINKING_BUDGET: dict[str, Any] = {"type": "integer", "minimum": 1024}

MODEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "capabilities": {"type": "array", "items": {"enum": CAPABILITY_NAMES}},
        "context_window": _COUNT,
        "max_output_tokens": _COUNT,
        "starts_in_thinking": {"type": "boolean"},
        "extra_body": {"type": "object"},
        "thinking_budget": _THINKING_BUDGET,
    },
}

#: The per-provider quirks the adapters read (README, "Provider settings"). The adapters fall back to their
#: defaults on a value of the wrong type, so without these checks a typo would be ignored without a word.
PROVIDER_SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "send_reasoning_with_tool_calls": {"type": "boolean"},
        "reasoning_field": {"type": "string", "minLength": 1},
        "max_tokens": {"type": "integer", "minimum": 1},
        "max_tokens_field": {"type": "string", "minLength": 1},
        "extra_body": {"type": "object"},
        "stream_usage": {"type": "boolean"},
        "max_retries": _COUNT,
        "retry_base_delay": {"type": "number", "minimum": 0},
        "max_retry_wait": {"type": "number", "minimum": 0},
        "default_capabilities": {"type": "array", "items": {"enum": CAPABILITY_NAMES}},
        "anthropic_version": {"type": "string", "minLength": 1},
        "thinking_budget": _THINKING_BUDGET,
    },
}

PROVIDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["kind"],
    "properties": {
        "kind": {"enum": PROVIDER_KINDS},
        "name": {"type": "string"},
        "base_url": {
            "type": "string",
            "pattern": "^https?://[^\\s]+$",
            "errorMessage": "must be an http:// or https:// URL",
        },
        "api_key_env": _ENV_NAME,
        "api_key": {"type": "string"},
        "headers": _STRING_MAP,
        "default_model": {"type": "string"},
        "connect_timeout": _POSITIVE_NUMBER,
        "read_timeout": _POSITIVE_NUMBER,
        "settings": PROVIDER_SETTINGS_SCHEMA,
        "models": {"type": "array", "items": MODEL_SCHEMA},
    },
    "if": {"properties": {"kind": {"enum": ["openai", "anthropic"]}}, "required": ["kind"]},
    "then": {"required": ["base_url"]},
}

SKILL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": {"type": "string"},
        "file": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
    },
    "anyOf": [{"required": ["content"]}, {"required": ["file"]}],
    "errorMessage": "a skill needs 'content' (the text) or 'file' (a path to it)",
}

MCP_SERVER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "env": _STRING_MAP,
        "cwd": {"type": "string"},
        "url": {
            "type": "string",
            "pattern": "^https?://[^\\s]+$",
            "errorMessage": "must be an http:// or https:// URL",
        },
        "headers": _STRING_MAP,
        "type": {"enum": ["stdio", "http", "sse", "streamable-http", "streamable_http", "streamablehttp"]},
        "disabled": {"type": "boolean"},
        "enabled": {"type": "boolean"},
        "timeout": _POSITIVE_NUMBER,
        "approval": {"enum": ["ask", "read_only", "allow"]},
        "start_on_launch": {"type": "boolean"},
        "roots": {"type": "array", "items": {"type": "string"}},
        "instructions": {"type": "boolean"},
        "oauth": {"type": "boolean"},
        "protocol": {"enum": ["handshake", "auto"]},
        "log_level": {"enum": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]},
    },
    "anyOf": [{"required": ["command"]}, {"required": ["url"]}],
    "errorMessage": "an MCP server needs 'command' (a program started over stdio) or 'url' (HTTP)",
}

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "default_provider": {"type": "string"},
        "default_model": {"type": "string"},
        "theme": {"type": "string", "minLength": 1},
        "prompt_dir": {"type": "string", "minLength": 1},
        "keys": {
            "type": "object",
            "additionalProperties": {
                "type": "string",
                "minLength": 1,
                "errorMessage": "must be a key or keys, for example \"ctrl+s\" or \"ctrl+s,f2\"",
            },
        },
        "run": {
            "type": "object",
            "properties": {"max_tool_rounds": {"type": "integer", "minimum": 1, "maximum": 1000}},
        },
        "ui": {
            "type": "object",
            "properties": {"stream_fps": {"type": "number", "minimum": 0.5, "maximum": 60}},
        },
        "providers": {"type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": PROVIDER_SCHEMA},
        "skills": {"type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": SKILL_SCHEMA},
        "mcp_servers": {
            "type": "object",
            "propertyNames": {"minLength": 1},
            "additionalProperties": MCP_SERVER_SCHEMA,
        },
        # The name every other client uses; read exactly like `mcp_servers`.
        "mcpServers": {
            "type": "object",
            "propertyNames": {"minLength": 1},
            "additionalProperties": MCP_SERVER_SCHEMA,
        },
    },
}

CREDENTIALS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "providers": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"api_key": {"type": "string"}},
            },
        },
    },
}
