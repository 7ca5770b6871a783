"""Checking an elicitation answer against the server's schema (issue 25 §11): the words, and hostile input."""

from __future__ import annotations

from visindigo.engine.mcp.answer_check import answer_problems
from visindigo.engine.mcp.client_side import schema_problem

SCHEMA = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "title": "Tags\x1b]0;owned\x07", "items": {"enum": ["a", "b"]}, "uniqueItems": True},
        "size": {"type": "number", "exclusiveMinimum": 0},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "One"}, {"const": "h2", "title": "Two"}]},
    },
    "required": ["size"],
}


def test_each_problem_names_the_field_by_its_cleaned_title_and_never_repeats_the_value() -> None:
    problems = answer_problems(SCHEMA, {"tags": ["a", "a", "zz-secret"], "size": 0, "hero": "h9"})
    assert problems == [
        "Tags, choice 3: must be one of a, b",
        "Tags: each choice only once",
        "size: must be more than 0",
        "hero: must be one of h1, h2",
    ]
    assert not any("zz-secret" in problem or "\x1b" in problem for problem in problems)
    assert answer_problems(SCHEMA, {"size": 2, "hero": "h2", "tags": ["b"]}) == []
    assert answer_problems(SCHEMA, ["not", "an", "object"]) == ["the answer must be an object of fields"]


def test_a_schema_that_is_not_json_schema_is_refused_before_anyone_is_asked() -> None:
    broken = {"type": "object", "properties": {"n": {"type": "string", "minLength": "three"}}}
    assert schema_problem(broken).startswith("it is not a valid JSON Schema (properties/n/minLength: ")
    assert schema_problem(SCHEMA) == ""
