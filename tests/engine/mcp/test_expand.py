"""`${VAR}` expansion, the child environment and redaction: secrets are used, never stored or shown."""

from __future__ import annotations

import pytest

from visindigo.engine import MCPServer
from visindigo.engine.mcp import SAFE_ENV_VARS, UnsetVariable, child_environment, expand, references, resolve
from visindigo.engine.mcp.expand import redact

ENV = {"TOKEN": "tok-123", "EMPTY": "", "HOME": "/home/u"}


def test_plain_and_embedded_references_expand() -> None:
    assert expand("Bearer ${TOKEN}", ENV) == "Bearer tok-123"
    assert expand("${HOME}/data:${HOME}", ENV) == "/home/u/data:/home/u"
    assert expand("no references, $TOKEN stays", ENV) == "no references, $TOKEN stays"


def test_defaults_apply_when_unset_or_empty_like_a_shell() -> None:
    assert expand("${MISSING:-fallback}", ENV) == "fallback"
    assert expand("${EMPTY:-fallback}", ENV) == "fallback"
    assert expand("${TOKEN:-fallback}", ENV) == "tok-123"
    assert expand("${MISSING:-}", ENV) == ""
    assert expand("${EMPTY}", ENV) == ""


def test_vs_code_env_form_is_understood() -> None:
    assert expand("${env:TOKEN}", ENV) == "tok-123"
    assert expand("${input:token}", ENV) == "${input:token}"


def test_unset_variable_without_default_names_the_variable_and_the_place_but_no_value() -> None:
    with pytest.raises(UnsetVariable) as caught:
        expand("a ${NOPE} b ${TOKEN}", ENV, where="MCP server 'gh' env GH")
    message = str(caught.value)
    assert "NOPE" in message and "env GH" in message and "${NOPE:-default}" in message
    assert "tok-123" not in message


def test_references_lists_variable_names_in_order() -> None:
    assert references("${A} ${B:-x} ${env:C} $D") == ["A", "B", "C"]


def test_resolve_expands_every_field_and_remembers_the_secret_values() -> None:
    server = MCPServer(
        "svc",
        command="${HOME}/bin/svc",
        args=("--token", "${TOKEN}", "--mode=${MODE:-fast}"),
        env={"API_KEY": "${TOKEN}"},
        cwd="${HOME}",
        url="",
        headers={"Authorization": "Bearer ${TOKEN}"},
    )
    resolved = resolve(server, ENV)
    assert resolved.command == "/home/u/bin/svc"
    assert resolved.args == ("--token", "tok-123", "--mode=fast")
    assert resolved.env == {"API_KEY": "tok-123"}
    assert resolved.cwd == "/home/u"
    assert resolved.headers == {"Authorization": "Bearer tok-123"}
    assert "tok-123" in resolved.secrets
    # The config itself is untouched: what is saved keeps the references.
    assert server.to_json()["env"] == {"API_KEY": "${TOKEN}"}
    assert server.to_json()["headers"] == {"Authorization": "Bearer ${TOKEN}"}


def test_resolve_reports_which_field_needs_the_missing_variable() -> None:
    server = MCPServer("gh", command="gh-mcp", env={"GITHUB_TOKEN": "${GITHUB_PAT}"})
    with pytest.raises(UnsetVariable, match=r"GITHUB_PAT.*MCP server 'gh' env GITHUB_TOKEN"):
        resolve(server, {})


def test_child_environment_is_the_allow_list_plus_configured_env() -> None:
    parent = {"PATH": "/usr/bin", "HOME": "/h", "OPENAI_API_KEY": "sk-secret", "AWS_SECRET": "x", "LANG": "C.UTF-8"}
    env = child_environment({"GREETING": "hi", "PATH": "/custom"}, parent)
    assert env == {"PATH": "/custom", "HOME": "/h", "LANG": "C.UTF-8", "GREETING": "hi"}
    assert "OPENAI_API_KEY" not in env and "AWS_SECRET" not in env
    assert set(SAFE_ENV_VARS) >= {"PATH", "HOME"}


def test_child_environment_skips_exported_shell_functions() -> None:
    assert "SHELL" not in child_environment({}, {"SHELL": "() { evil; }"})


def test_redact_replaces_every_secret_longest_first() -> None:
    text = "token tok-123 and tok-123456 in https://x/?k=tok-123456"
    assert redact(text, {"tok-123", "tok-123456"}) == "token *** and *** in https://x/?k=***"
