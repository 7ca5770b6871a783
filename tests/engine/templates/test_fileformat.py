"""The template file format: Markdown with a TOML front matter block between `+++` lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visindigo.engine import Prompt
from visindigo.engine.templates.fileformat import (
    TemplateFile,
    TemplateFileError,
    format_template_file,
    parse_template_file,
)

EXAMPLE = """+++
name = "Translate"
description = "Translate text into another language"
tags = ["writing", "language"]
+++

Translate into {{language | select:options=["French","German"]:required}}:

{{text | textarea:required}}
"""


def test_reads_the_documented_example() -> None:
    parsed = parse_template_file(EXAMPLE, "translate")
    assert parsed.prompt == Prompt(
        "Translate",
        'Translate into {{language | select:options=["French","German"]:required}}:\n\n{{text | textarea:required}}',
        description="Translate text into another language",
        tags=("writing", "language"),
    )
    assert parsed.extra == {}


def test_written_file_looks_like_the_example_and_reads_back() -> None:
    parsed = parse_template_file(EXAMPLE, "x")
    assert format_template_file(parsed) == EXAMPLE


def test_file_without_front_matter_is_named_after_the_file() -> None:
    parsed = parse_template_file("Summarise {{text}}\n", "summarise")
    assert parsed.prompt == Prompt("summarise", "Summarise {{text}}")


def test_front_matter_without_blank_line_and_with_crlf() -> None:
    parsed = parse_template_file('+++\r\nname = "A"\r\n+++\r\nline 1\r\nline 2\r\n', "a")
    assert parsed.prompt.content == "line 1\r\nline 2"
    assert parsed.prompt.name == "A"


def test_unknown_keys_are_kept_and_written_back() -> None:
    text = '+++\nname = "A"\nmodel = "gpt-x"\n[extra]\nn = 1\n+++\n\nbody\n'
    parsed = parse_template_file(text, "a")
    assert parsed.extra == {"model": "gpt-x", "extra": {"n": 1}}
    again = parse_template_file(format_template_file(parsed), "a")
    assert again.extra == parsed.extra and again.prompt == parsed.prompt


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('+++\nname = "A"\nbody', "never closed"),
        ("+++\nname = A\n+++\nbody", "not valid TOML"),
        ('+++\nname = ""\n+++\nbody', "'name' must be non-empty text"),
        ("+++\nname = 3\n+++\nbody", "'name' must be non-empty text"),
        ('+++\nname = "a"\ndescription = 1\n+++\nbody', "'description' must be text"),
        ('+++\nname = "a"\ntags = [1]\n+++\nbody', "'tags' must be a list of text"),
    ],
)
def test_bad_files_raise_a_clear_reason(text: str, reason: str) -> None:
    with pytest.raises(TemplateFileError, match=reason):
        parse_template_file(text, "x")


text = st.text(st.characters(blacklist_categories=("Cs",)))


@given(
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1).filter(lambda n: n.strip() == n),
    text,
    text,
    st.lists(text, max_size=3),
)
def test_any_template_survives_a_write_and_a_read(name: str, content: str, description: str, tags: list[str]) -> None:
    prompt = Prompt(name, content, description=description, tags=tuple(tags))
    assert parse_template_file(format_template_file(TemplateFile(prompt)), "fallback").prompt == prompt
