"""The price of an answer: the config's price first, then the server's reported cost, nothing on this machine,
then genai-prices (offline) for a hosted model; otherwise unknown, said as unknown. The published prices are
written out here by hand (dollars per million tokens), so the lookup is checked against the providers' lists."""

from __future__ import annotations

from visindigo.engine import ModelInfo, Provider
from visindigo.engine.context.prices import answer_cost
from visindigo.engine.context.usage import AnswerUsage

ANTHROPIC = Provider("a", kind="anthropic", base_url="https://api.anthropic.com/v1")
OPENAI = Provider("o", kind="openai", base_url="https://api.openai.com/v1")
SONNET = "claude-sonnet-4-20250514"
# one million of each kind, so each figure is the published price per million tokens
MILLION = 1_000_000


def test_a_hosted_model_is_priced_by_genai_prices_with_its_cache_reads_and_writes() -> None:
    # Claude Sonnet 4: input $3, output $15, cache read $0.30, cache write (5 minutes) $3.75
    plain = answer_cost(AnswerUsage(input_tokens=MILLION, output_tokens=MILLION, model_id=SONNET), ANTHROPIC, None)
    assert plain.source == "genai-prices" and plain.dollars is not None
    assert abs(plain.dollars - 18.0) < 1e-6
    cached = AnswerUsage(
        input_tokens=3 * MILLION, cached_tokens=MILLION, cache_write_tokens=MILLION, model_id=SONNET
    )  # input_tokens is the whole prompt: one million plain, one read, one written
    cost = answer_cost(cached, ANTHROPIC, None)
    assert cost.dollars is not None and abs(cost.dollars - (3.0 + 0.30 + 3.75)) < 1e-6
    # gpt-4o: input $2.50, cached input $1.25, output $10
    gpt = AnswerUsage(input_tokens=2 * MILLION, cached_tokens=MILLION, output_tokens=MILLION, model_id="gpt-4o")
    priced = answer_cost(gpt, OPENAI, None)
    assert priced.source == "genai-prices" and priced.dollars is not None
    assert abs(priced.dollars - (2.50 + 1.25 + 10.0)) < 1e-6


def test_the_configs_price_overrides_the_catalogue_and_the_servers_figure() -> None:
    usage = AnswerUsage(
        input_tokens=MILLION, cached_tokens=MILLION // 2, output_tokens=MILLION, reported_cost=99.0, model_id=SONNET
    )
    model = ModelInfo(SONNET, extra={"price": {"input": 1.0, "output": 2.0, "cached_input": 0.1}})
    cost = answer_cost(usage, ANTHROPIC, model)
    assert cost.source == "config price" and cost.dollars is not None
    assert abs(cost.dollars - (0.5 * 1.0 + 0.5 * 0.1 + 2.0)) < 1e-9
    # without a price in the config the server's own figure (OpenRouter's usage.cost) is the answer's cost
    reported = answer_cost(usage, Provider("r", kind="openai", base_url="https://openrouter.ai/api/v1"), None)
    assert (reported.dollars, reported.source) == (99.0, "reported by the server")


def test_a_local_server_costs_nothing_and_an_unknown_model_is_unknown() -> None:
    usage = AnswerUsage(input_tokens=1000, output_tokens=100, model_id="gpt-4o")
    # a local file named like a hosted model is not that model: a server on this machine costs nothing
    local = answer_cost(usage, Provider("l", kind="openai", base_url="http://127.0.0.1:8080/v1"), None)
    assert (local.dollars, local.source) == (0.0, "local server")
    ollama = Provider("ol", kind="openai", base_url="http://gpu-box:11434/v1", settings={"server": "ollama"})
    assert answer_cost(usage, ollama, None).source == "local server"
    invented = AnswerUsage(input_tokens=1000, output_tokens=100, model_id="claude-made-up-9")
    assert answer_cost(invented, ANTHROPIC, None) == answer_cost(invented, ANTHROPIC, ModelInfo("claude-made-up-9"))
    unknown = answer_cost(invented, ANTHROPIC, None)
    assert (unknown.dollars, unknown.source) == (None, "unknown")
    # a bad price in the config is no price: the catalogue decides, not a zero
    bad = ModelInfo("gpt-4o", extra={"price": {"input": "cheap"}})
    assert answer_cost(usage, OPENAI, bad).source == "genai-prices"
