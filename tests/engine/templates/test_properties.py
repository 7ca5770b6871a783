"""Property tests: no text crashes the template parser, and its answers stay consistent with the text."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from visindigo.engine import Prompt
from visindigo.engine.prompt import PLACEHOLDER
from visindigo.engine.templates import FIELD_TYPES, SYSTEM_VARIABLES, TemplateField, scan


def clock() -> datetime:
    return datetime(2026, 3, 14, tzinfo=UTC)


# Text made mostly of the characters that matter to the parser, so the generator reaches the odd corners.
syntax_pieces = [*list("{}|:=\"'[],\\ \nxab1-."), "{{", "}}", " | ", "select", "number", "options=", "required"]
syntax_text = st.lists(st.sampled_from(syntax_pieces)).map("".join)
any_text = st.one_of(st.text(), syntax_text, st.lists(syntax_text).map("".join))


@given(any_text)
def test_nothing_raises_and_spans_are_ordered_slices_of_the_text(text: str) -> None:
    prompt = Prompt("p", text)
    result = scan(text)
    previous_end = 0
    for placeholder in result.placeholders:
        assert previous_end <= placeholder.start < placeholder.end <= len(text)
        assert text[placeholder.start : placeholder.end].startswith("{{")
        assert text[placeholder.start : placeholder.end].endswith("}}")
        previous_end = placeholder.end
    names = prompt.variables()
    assert len(names) == len(set(names))
    assert [f.name for f in prompt.fields()] == [n for n in names if n not in SYSTEM_VARIABLES]
    prompt.render({}, clock=clock)
    prompt.unfilled()
    for problem in prompt.problems():
        assert str(problem)


@given(syntax_text)
def test_rendering_without_values_or_defaults_changes_nothing(text: str) -> None:
    # The alphabet cannot spell "default" or a system variable, so nothing may be filled.
    assert Prompt("p", text).render({}, clock=clock).content == text


@given(st.lists(st.sampled_from([*list("{}:=\"'[],\\ \nxab1-."), "{{", "}}"])).map("".join))
def test_without_a_pipe_the_variables_are_exactly_the_specs(text: str) -> None:
    legacy = list(dict.fromkeys(m.group(1) for m in PLACEHOLDER.finditer(text)))
    assert Prompt("p", text).variables() == legacy


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,8}", fullmatch=True).filter(lambda n: not n.startswith("CURRENT_"))
chunks = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=12)


@given(st.lists(st.tuples(chunks, names), max_size=6), chunks, st.dictionaries(names, chunks, max_size=6))
def test_plain_templates_render_like_plain_substitution(
    parts: list[tuple[str, str]], tail: str, values: dict[str, str]
) -> None:
    text = "".join(f"{chunk}{{{{{name}}}}}" for chunk, name in parts) + tail
    expected = "".join(chunk + values.get(name, "{{" + name + "}}") for chunk, name in parts) + tail
    prompt = Prompt("p", text)
    assert prompt.render(values).content == expected
    assert prompt.variables() == list(dict.fromkeys(name for _, name in parts))


safe_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=15)
numbers = st.one_of(st.none(), st.integers(-1000, 1000).map(float), st.floats(-1e6, 1e6, allow_nan=False))


@st.composite
def template_fields(draw: st.DrawFn) -> TemplateField:
    kind = draw(st.sampled_from(FIELD_TYPES))
    minimum, maximum, step = draw(numbers), draw(numbers), draw(numbers)
    if kind != "number":
        minimum = maximum = step = None
    if minimum is not None and maximum is not None and minimum > maximum:
        minimum, maximum = maximum, minimum
    if step is not None and step <= 0:
        step = None
    options = tuple(draw(st.lists(safe_text, min_size=1, max_size=4))) if kind == "select" else ()
    default = draw(st.one_of(st.none(), safe_text))
    if kind == "checkbox" and default is not None:
        default = draw(st.sampled_from(["true", "false"]))
    if kind == "select" and default is not None:
        default = draw(st.sampled_from(options))
    return TemplateField(
        name=draw(names), type=kind, label=draw(safe_text), description=draw(safe_text),
        placeholder=draw(safe_text), default=default, required=draw(st.booleans()), options=options,
        min=minimum, max=maximum, step=step,
    )


@settings(max_examples=300)
@given(template_fields(), safe_text, safe_text)
def test_a_field_written_as_a_placeholder_parses_back_to_itself(spec: TemplateField, before: str, after: str) -> None:
    before, after = before.replace("{", ""), after.replace("{", "")
    prompt = Prompt("p", before + spec.to_placeholder() + after)
    assert prompt.fields() == [spec]
    assert prompt.problems() == []
    assert prompt.render({spec.name: "0"} if spec.type != "checkbox" else {spec.name: "1"}).content == (
        before + ("0" if spec.type != "checkbox" else "true") + after
    )
