"""Which addresses of a URL elicitation may be shown to a person (issue 25 §7)."""

from __future__ import annotations

import pytest

from visindigo.engine.mcp.url_elicitation import required_pages, safe_url


@pytest.mark.parametrize("url", ["https://sign.example/go?x=1", "http://127.0.0.1:8080/cb#done", "HTTPS://A.example"])
def test_plain_web_addresses_are_shown(url: str) -> None:
    assert safe_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,<script>",
        "https://ok.example/\x1b]52;c;cHduZWQ=\x07",
        "https://evil.example/\u202egnp.exe",
        "https://ok.example/a b",
        "https://",
        "https://[::1",
        "https://a.example/" + "x" * 3000,
        "",
        None,
        42,
    ],
)
def test_anything_else_is_not(url: object) -> None:
    assert safe_url(url) is None


def test_unusable_entries_of_an_error_are_counted_not_shown() -> None:
    data = {"elicitations": [{"url": "javascript:x"}, "text", {"url": "https://a.example", "message": "m\x1b[2J"}]}
    pages, unusable = required_pages("s", "tool", data)
    assert [(p.url, p.message, p.required_by) for p in pages] == [("https://a.example", "m", "tool")]
    assert unusable == 2
    assert required_pages("s", "tool", None) == ([], 0)
