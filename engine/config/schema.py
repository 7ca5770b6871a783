"""JSON Schemas of config.toml and credentials.toml.

Unknown keys are allowed everywhere: a newer Visindigo (or the user) may add settings this one does not know,
and they must survive a save. `errorMessage` is ours, not JSON Schema's: the text shown when the subschema
fails, for checks whose generic message would say nothing useful (or would echo the value, which may be a
secret).

Every property carries a `description` and an example (`examples`): `visindigo config example` is generated
from them (engine/config/example.py), and a test fails when a property has neither, so the example cannot
fall behind the schema. `x-instead-of` marks a property that replaces another (an MCP server's `url` instead
of its `command`): the example shows it as a comment only.
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
_PRICE: dict[str, Any] = {"type": "number", "minimum": 0}


def doc(schema: dict[str, Any], description: str, example: Any, **more: Any) -> dict[str, Any]:
    """`schema` with its description and example for the generated example config."""
    return {**schema, "description": description, "examples": [example], **more}


MODEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": doc({"type": "string", "minLength": 1}, "the model id the server knows", "qwen3-8b"),
        "name": doc({"type": "string"}, "the name shown in the model picker", "Qwen3 8B"),
        "capabilities": doc(
            {"type": "array", "items": {"enum": CAPABILITY_NAMES}},
            "what it can do: text, image, tools, reasoning",
            ["text", "tools", "reasoning"],
        ),
        "context_window": doc(_COUNT, "tokens the model reads at most", 32768),
        "max_output_tokens": doc(_COUNT, "tokens it writes at most per answer", 8192),
        "starts_in_thinking": doc({"type": "boolean"}, "the answer starts inside <think> without the tag", True),
        "extra_body": doc({"type": "object"}, "JSON fields added to every request for this model", {"top_k": 20}),
        "thinking_budget": doc(_THINKING_BUDGET, "Anthropic: reasoning tokens per answer", 4096),
        "num_ctx": doc({"type": "integer", "minimum": 512}, "Ollama: the context window to ask for", 16384),
        "price": doc(
            {
                "type": "object",
                "properties": {
                    "input": doc(_PRICE, "dollars per million tokens read", 0.15),
                    "output": doc(_PRICE, "dollars per million tokens written", 0.6),
                    "cached_input": doc(_PRICE, "dollars per million tokens read from the prompt cache", 0.075),
                    "cache_write": doc(_PRICE, "dollars per million tokens written to the prompt cache", 0.1875),
                },
                "errorMessage": "must be { input = <dollars>, output = <dollars> } per million tokens",
            },
            "dollars per million tokens: the cost of each answer (it overrides genai-prices' figures)",
            {"input": 0.15, "output": 0.6},
        ),
    },
}

#: The per-provider quirks the adapters read (docs/providers.md, "Provider settings"). The adapters fall back to their
#: defaults on a value of the wrong type, so without these checks a typo would be ignored without a word.
PROVIDER_SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "send_reasoning_with_tool_calls": doc(
            {"type": "boolean"}, "send reasoning back with tool calls (DeepSeek thinking mode)", True
        ),
        "reasoning_field": doc(
            {"type": "string", "minLength": 1}, "the field the server streams reasoning in", "reasoning_content"
        ),
        "max_tokens": doc({"type": "integer", "minimum": 1}, "output limit sent with every request", 4096),
        "max_tokens_field": doc(
            {"type": "string", "minLength": 1}, "the request field for that limit", "max_completion_tokens"
        ),
        "extra_body": doc({"type": "object"}, "JSON fields added to every request", {"temperature": 0.6}),
        "stream_usage": doc({"type": "boolean"}, "ask for token counts at the end of the stream", True),
        "max_retries": doc(_COUNT, "attempts after the first for 429 / 5xx before any byte arrived", 3),
        "retry_base_delay": doc({"type": "number", "minimum": 0}, "first backoff in seconds, doubled each time", 0.5),
        "max_retry_wait": doc({"type": "number", "minimum": 0}, "longest Retry-After waited for, seconds", 60),
        "default_capabilities": doc(
            {"type": "array", "items": {"enum": CAPABILITY_NAMES}},
            "capabilities of models the server lists without saying",
            ["text", "tools"],
        ),
        "anthropic_version": doc({"type": "string", "minLength": 1}, "Anthropic: the API version header", "2023-06-01"),
        "max_concurrent_runs": doc(
            {"type": "integer", "minimum": 0}, "runs that may have a request out at once (0: no limit)", 1
        ),
        "server": doc({"type": "string"}, "which server this is: where capabilities are asked", "ollama"),
        "thinking_budget": doc(_THINKING_BUDGET, "Anthropic: reasoning tokens per answer", 4096),
        "attachment_text_limit": doc(
            {"type": "integer", "minimum": 1}, "most bytes of one attached text file (default 100000)", 50000
        ),
        "image_long_side": doc(
            {"type": "integer", "minimum": 1}, "attached images are scaled to this many pixels on the long side", 1024
        ),
        "image_max_bytes": doc({"type": "integer", "minimum": 1}, "largest attached image sent, in bytes", 4000000),
        "pdf_as_text": doc(
            {"type": "boolean"},
            "Anthropic wire: attached PDFs go as their text, not as document blocks (default on for llama.cpp)",
            True,
        ),
        "prompt_caching": doc(
            {"type": "boolean"}, "Anthropic: cache_control breakpoints on the stable prefix (default on)", True
        ),
        "ollama_native": doc(
            {"type": "boolean"}, "Ollama: answers over /api/chat, which can set num_ctx (default on)", True
        ),
        "ollama_num_ctx_cap": doc(
            {"type": "integer", "minimum": 512}, "Ollama: the largest num_ctx sent for a model's trained length", 32768
        ),
    },
}

PROVIDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["kind"],
    "properties": {
        "kind": doc({"enum": PROVIDER_KINDS}, "openai (any OpenAI-compatible endpoint) or anthropic", "openai"),
        "name": doc({"type": "string"}, "the name shown in the app", "Local llama.cpp"),
        "base_url": doc(
            {
                "type": "string",
                "pattern": "^https?://[^\\s]+$",
                "errorMessage": "must be an http:// or https:// URL",
            },
            "the API's base URL",
            "http://127.0.0.1:8080/v1",
        ),
        "api_key_env": doc(_ENV_NAME, "the environment variable holding the key", "LOCAL_API_KEY"),
        "api_key": doc(
            {"type": "string"},
            "the key itself — better typed into the app (it goes to credentials.toml, mode 0600)",
            "sk-...",
            **{"x-instead-of": "api_key_env"},
        ),
        "headers": doc(_STRING_MAP, "extra headers; ${VAR} is expanded at each request", {"X-Client": "visindigo"}),
        "default_model": doc({"type": "string"}, "the model a new dialog uses", "qwen3-8b"),
        "connect_timeout": doc(_POSITIVE_NUMBER, "seconds to connect", 10),
        "read_timeout": doc(_POSITIVE_NUMBER, "seconds to wait for the next bytes of an answer", 300),
        "settings": doc(PROVIDER_SETTINGS_SCHEMA, "per-provider quirks, read by the adapter", {}),
        "models": doc(
            {"type": "array", "items": MODEL_SCHEMA}, "the models it offers (else asked from the server)", []
        ),
    },
    "if": {"properties": {"kind": {"enum": ["openai", "anthropic"]}}, "required": ["kind"]},
    "then": {"required": ["base_url"]},
}

SKILL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": doc({"type": "string"}, "the text added to the system prompt", "Answer briefly."),
        "file": doc(
            {"type": "string", "minLength": 1},
            "or a file holding the text (relative to the config's folder)",
            "skills/terse.md",
            **{"x-instead-of": "content"},
        ),
        "description": doc({"type": "string"}, "what it is for, shown in the skills screen", "short answers"),
    },
    "anyOf": [{"required": ["content"]}, {"required": ["file"]}],
    "errorMessage": "a skill needs 'content' (the text) or 'file' (a path to it)",
}

MCP_SERVER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": doc({"type": "string", "minLength": 1}, "the program, started over stdio", "uvx"),
        "args": doc({"type": "array", "items": {"type": "string"}}, "its arguments", ["mcp-server-time"]),
        "env": doc(_STRING_MAP, "environment for it; ${VAR} is expanded", {"TZ": "Europe/Berlin"}),
        "cwd": doc({"type": "string"}, "the folder it starts in", "~"),
        "url": doc(
            {
                "type": "string",
                "pattern": "^https?://[^\\s]+$",
                "errorMessage": "must be an http:// or https:// URL",
            },
            "an HTTP server (Streamable HTTP, or legacy SSE)",
            "https://example.com/mcp",
            **{"x-instead-of": "command"},
        ),
        "headers": doc(
            _STRING_MAP,
            "HTTP headers; ${VAR} is expanded",
            {"Authorization": "Bearer ${TOKEN}"},
            **{"x-instead-of": "command"},
        ),
        "type": doc(
            {"enum": ["stdio", "http", "sse", "streamable-http", "streamable_http", "streamablehttp"]},
            "the transport, when it cannot be told from command/url",
            "stdio",
        ),
        "disabled": doc({"type": "boolean"}, "keep it configured but off", False),
        "enabled": doc({"type": "boolean"}, "the opposite of disabled (VS Code's spelling)", True),
        "timeout": doc(_POSITIVE_NUMBER, "seconds for it to start and for each call", 30),
        "approval": doc(
            {"enum": ["ask", "read_only", "allow"]},
            "ask: each call needs your OK; read_only: tools marked read-only run at once; allow: none asks",
            "ask",
        ),
        "start_on_launch": doc({"type": "boolean"}, "start it with the app, not at first use", False),
        "roots": doc({"type": "array", "items": {"type": "string"}}, "folders offered as roots", ["~/src"]),
        "instructions": doc({"type": "boolean"}, "pass the server's instructions to the model", True),
        "oauth": doc({"type": "boolean"}, "sign in to this HTTP server with OAuth", False),
        "protocol": doc(
            {"enum": ["handshake", "auto"]}, "handshake (initialize) or auto (2026-07-28 if offered)", "handshake"
        ),
        "log_level": doc(
            {"enum": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]},
            "least severe log message it sends to its log",
            "warning",
        ),
    },
    "anyOf": [{"required": ["command"]}, {"required": ["url"]}],
    "errorMessage": "an MCP server needs 'command' (a program started over stdio) or 'url' (HTTP)",
}

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "default_provider": doc({"type": "string"}, "the provider new dialogs use (a key of [providers])", "local"),
        "default_model": doc({"type": "string"}, "replaces that provider's default_model", "qwen3-8b"),
        "theme": doc(
            {"type": "string", "minLength": 1},
            "visindigo-dark, visindigo-light, visindigo-high-contrast, visindigo-colour-blind, visindigo-ansi, "
            "a Textual or a user theme",
            "visindigo-dark",
        ),
        "prompt_dir": doc(
            {"type": "string", "minLength": 1}, "the template folder; relative to this file's folder", "prompts"
        ),
        "keys": doc(
            {
                "type": "object",
                "additionalProperties": {
                    "type": "string",
                    "minLength": 1,
                    "errorMessage": 'must be a key or keys, for example "ctrl+s" or "ctrl+s,f2"',
                },
            },
            'key overrides: binding id = "key" or "key1,key2" (the ids are in the help screen, f1)',
            {"regenerate": "ctrl+r,f5"},
        ),
        "context": doc(
            {
                "type": "object",
                "properties": {
                    "keep_turns": doc(_COUNT, "turns a compaction keeps word for word", 2),
                    "summary_provider": doc({"type": "string"}, "the provider that writes summaries", "local"),
                    "summary_model": doc({"type": "string"}, "the model that writes summaries", "qwen3-8b"),
                    "summary_prompt": doc(
                        {"type": "string", "minLength": 1},
                        "the summary template: {{transcript}} and {{count}} are filled in",
                        "Summarise this: {{transcript}}",
                    ),
                    "auto_compact": doc({"type": "boolean"}, "compact into a branch near the window's end", False),
                    "auto_compact_at": doc(
                        {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        "the share of the window that starts an automatic compaction",
                        0.9,
                    ),
                },
            },
            "the context window: compaction into a branch",
            {},
        ),
        "run": doc(
            {
                "type": "object",
                "properties": {
                    "max_tool_rounds": doc(
                        {"type": "integer", "minimum": 1, "maximum": 1000},
                        "tool rounds per run before it stops and asks",
                        16,
                    ),
                    "max_tool_calls": doc(
                        {"type": "integer", "minimum": 1, "maximum": 1000},
                        'tool calls run per reply; the rest get a "not run" result',
                        32,
                    ),
                },
            },
            "how a run goes",
            {},
        ),
        "ui": doc(
            {
                "type": "object",
                "properties": {
                    "stream_fps": doc(
                        {"type": "number", "minimum": 0.5, "maximum": 60},
                        "redraws per second while an answer streams (1-2 for slow SSH links)",
                        4,
                    ),
                    "cursor_blink": doc(
                        {"type": "boolean"},
                        "a blinking text cursor (off: an idle app writes nothing to the terminal)",
                        False,
                    ),
                    "composer_keys": doc(
                        {"type": "string", "enum": ["standard", "vim"]},
                        "the composer's keys: standard, or vim (normal, insert and visual modes; esc → normal mode)",
                        "standard",
                    ),
                    "images": doc(
                        {"type": "string", "enum": ["auto", "kitty", "sixel", "iterm", "cells"]},
                        "attached images: auto (kitty graphics in kitty and Ghostty; sixel or iTerm2 images "
                        "where the terminal is known to draw them; else half-block cells), kitty, sixel, iterm, "
                        "or cells",
                        "auto",
                    ),
                },
            },
            "the screen",
            {},
        ),
        "user": doc(
            {
                "type": "object",
                "properties": {
                    "name": doc({"type": "string"}, "{{USER_NAME}} in templates (default: your login name)", "Ada"),
                    "language": doc({"type": "string"}, "{{USER_LANGUAGE}} (default: from LANG, as en-GB)", "en-GB"),
                    "location": doc({"type": "string"}, "{{USER_LOCATION}} (default: Unknown)", "Berlin, Germany"),
                },
            },
            "what templates' user variables say",
            {},
        ),
        "tools": doc(
            {
                "type": "object",
                "properties": {
                    "enabled": doc(
                        {"type": "array", "items": {"type": "string", "minLength": 1}},
                        "package tools offered to every dialog (names from `visindigo tools`); none by default",
                        ["weather"],
                    ),
                    "allow": doc(
                        {"type": "array", "items": {"type": "string", "minLength": 1}},
                        "package tools that run without asking first (default: each call needs your OK)",
                        [],
                    ),
                },
            },
            "tools from installed packages (entry-point group visindigo.tools)",
            {},
        ),
        "providers": doc(
            {"type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": PROVIDER_SCHEMA},
            "the endpoints, one table each",
            {},
        ),
        "skills": doc(
            {"type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": SKILL_SCHEMA},
            "resident system-prompt fragments, for every dialog",
            {},
        ),
        "mcp_servers": doc(
            {
                "type": "object",
                "propertyNames": {"minLength": 1},
                "additionalProperties": MCP_SERVER_SCHEMA,
            },
            "tool servers; the same fields as a Claude Desktop entry",
            {},
        ),
        # The name every other client uses; read exactly like `mcp_servers`.
        "mcpServers": doc(
            {
                "type": "object",
                "propertyNames": {"minLength": 1},
                "additionalProperties": MCP_SERVER_SCHEMA,
            },
            "the other clients' spelling of [mcp_servers], read the same way",
            {},
            **{"x-alias-of": "mcp_servers"},
        ),
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
