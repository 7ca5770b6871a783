"""What each server says about its windows, in its own shape, for the loopback test server.

The llama.cpp documents are what llama.cpp's own server (the xllamacpp wheel, Gemma 3 270M at `-c 512`) answered;
the others follow each server's documentation: Ollama `/api/show`, LM Studio `/api/v0/models`, OpenRouter and vLLM
`/v1/models`.
"""

from __future__ import annotations

from typing import Any

from tests.llm_server import LLMServer, Reply, json_reply

LLAMA_MODEL = "/models/gemma-3-270m.gguf"


def llama_props(n_ctx: int, slots: int = 1) -> dict[str, Any]:
    return {
        "default_generation_settings": {"params": {"n_predict": -1, "temperature": 0.8}, "n_ctx": n_ctx},
        "total_slots": slots,
        "model_alias": LLAMA_MODEL,
        "model_path": LLAMA_MODEL,
        "modalities": {"vision": False, "video": False, "audio": False},
        "endpoint_props": True,
        "chat_template": "{%- for message in messages -%}…",
        "bos_token": "<bos>",
        "eos_token": "<eos>",
        "build_info": "b0-unknown",
    }


def llama_models(n_ctx: int, n_ctx_train: int = 32768) -> dict[str, Any]:
    return {
        "models": [{"name": LLAMA_MODEL, "model": LLAMA_MODEL, "capabilities": ["completion"]}],
        "object": "list",
        "data": [
            {
                "id": LLAMA_MODEL,
                "aliases": [LLAMA_MODEL],
                "object": "model",
                "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
                "created": 1796237226,
                "owned_by": "llamacpp",
                "meta": {"vocab_type": 1, "n_vocab": 262144, "n_ctx": n_ctx, "n_ctx_train": n_ctx_train},
            }
        ],
    }


def serve_llama(server: LLMServer, n_ctx: int, *, per_slot: int | None = None) -> None:
    """A llama.cpp server: `/v1/models` with `meta.n_ctx`, `/props` with the window of one slot."""
    server.models_reply = json_reply(llama_models(n_ctx))
    server.route("GET", "/props", json_reply(llama_props(per_slot or n_ctx)))


def ollama_show(trained: int, num_ctx: int | None = None, arch: str = "qwen3") -> dict[str, Any]:
    parameters = 'stop                           "<|im_end|>"\ntemperature                    0.6'
    if num_ctx is not None:
        parameters += f"\nnum_ctx                        {num_ctx}"
    return {
        "modelfile": "FROM qwen3:8b",
        "parameters": parameters,
        "template": "{{ .Prompt }}",
        "details": {"format": "gguf", "family": arch, "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
        "model_info": {
            "general.architecture": arch,
            f"{arch}.block_count": 36,
            f"{arch}.context_length": trained,
            f"{arch}.embedding_length": 4096,
        },
        "capabilities": ["completion", "tools", "thinking"],
    }


def lmstudio_models() -> Reply:
    return json_reply(
        {
            "object": "list",
            "data": [
                {
                    "id": "qwen2.5-7b-instruct",
                    "object": "model",
                    "type": "llm",
                    "publisher": "lmstudio-community",
                    "state": "loaded",
                    "max_context_length": 32768,
                    "loaded_context_length": 8192,
                    "capabilities": ["tool_use"],
                },
                {
                    "id": "llama-3.2-1b",
                    "object": "model",
                    "type": "llm",
                    "state": "not-loaded",
                    "max_context_length": 131072,
                },
            ],
        }
    )


def openrouter_models() -> Reply:
    return json_reply(
        {
            "data": [
                {
                    "id": "qwen/qwen3-235b-a22b",
                    "name": "Qwen: Qwen3 235B A22B",
                    "context_length": 40960,
                    "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
                    "supported_parameters": ["tools", "reasoning"],
                    "top_provider": {"context_length": 40960, "max_completion_tokens": 16384},
                }
            ]
        }
    )


def vllm_models() -> Reply:
    return json_reply(
        {
            "object": "list",
            "data": [
                {
                    "id": "Qwen/Qwen3-8B",
                    "object": "model",
                    "created": 1,
                    "owned_by": "vllm",
                    "root": "Qwen/Qwen3-8B",
                    "max_model_len": 16384,
                }
            ],
        }
    )
