"""The optional LLM: any OpenAI-compatible server through the `openai` 3.x client (HTTPX2 underneath).

Offline is the default: the LLM is used only when a model is named (`LLMSettings.model`, or `KGP_LLM_MODEL`).
The server and key come from the settings or, left unset, from `OPENAI_BASE_URL` / `OPENAI_API_KEY`, which the
openai client reads itself. UI calls are short: 20 s timeout, one retry.

`LLMClient.chat_json` asks for structured output (`response_format` json_schema) and validates it with pydantic.
A server that rejects `response_format` (HTTP 400) is asked once more with the schema in the prompt instead,
and remembered as prompt-only. Every other failure (timeout, connection error, HTTP error, invalid JSON, a
reply that does not fit the schema) raises `LLMUnavailable` with a short reason, so the caller can fall back to
the offline engine and tell the user (`fallback_notice`).

The API key never appears in a repr, an exception message or a log line of ours: exceptions from the client
(whose request objects carry headers) are replaced, not chained.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    import openai

DEFAULT_TIMEOUT_S = 20.0
DEFAULT_MAX_RETRIES = 1
MODEL_ENV = "KGP_LLM_MODEL"
# Local servers (llama.cpp, vLLM, Ollama) accept any key, but the client insists on one.
_PLACEHOLDER_KEY = "no-key-set"

T = TypeVar("T", bound=BaseModel)
Message = dict[str, str]


class LLMUnavailable(Exception):
    """The LLM could not give a usable answer; `reason` is short and safe to show (no key, no headers)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def fallback_notice(reason: str) -> str:
    return f"LLM unavailable ({reason}): offline result shown"


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the LLM. `api_key` is excluded from repr; None fields fall back to the environment."""
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        """The model from `KGP_LLM_MODEL`; base_url and api_key stay None so the client reads its own env."""
        values: dict[str, Any] = {"model": os.environ.get(MODEL_ENV) or None}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @property
    def enabled(self) -> bool:
        return bool(self.model)


class LLMClient:
    """A thin, failure-tolerant wrapper of `openai.OpenAI` for JSON answers."""

    def __init__(self, settings: LLMSettings | None = None) -> None:
        self.settings = settings if settings is not None else LLMSettings.from_env()
        self._client: openai.OpenAI | None = None  # created on first use: importing openai takes ~1 s
        self._json_schema_ok = True  # False once the server has rejected response_format

    def __repr__(self) -> str:
        return f"LLMClient(model={self.settings.model!r}, base_url={self.settings.base_url!r})"

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def _openai(self) -> openai.OpenAI:
        if self._client is None:
            import openai

            s = self.settings
            kwargs: dict[str, Any] = {"timeout": s.timeout, "max_retries": s.max_retries}
            if s.base_url:
                kwargs["base_url"] = s.base_url
            if s.api_key:
                kwargs["api_key"] = s.api_key
            elif not os.environ.get("OPENAI_API_KEY"):
                kwargs["api_key"] = _PLACEHOLDER_KEY
            self._client = openai.OpenAI(**kwargs)
        return self._client

    def chat_json(self, messages: list[Message], schema: type[T], name: str = "answer") -> T:
        """Send `messages`, get back a validated `schema` instance, or raise `LLMUnavailable`."""
        if not self.enabled:
            raise LLMUnavailable("not configured")
        import openai

        with _unavailable_on_error():
            if self._json_schema_ok:
                try:
                    return parse_json(self._call(messages, _json_schema_format(schema, name)), schema)
                except openai.BadRequestError:
                    self._json_schema_ok = False  # this server wants the schema in the prompt
            return parse_json(self._call(with_json_instruction(messages, schema), None), schema)

    def chat_text(self, messages: list[Message]) -> str:
        """A free-text reply (an interviewer's next question, feedback), or raise `LLMUnavailable`."""
        if not self.enabled:
            raise LLMUnavailable("not configured")
        with _unavailable_on_error():
            return self._call(messages, None)

    def _call(self, messages: list[Message], response_format: dict[str, Any] | None) -> str:
        extra: dict[str, Any] = {"response_format": response_format} if response_format else {}
        # No temperature: some models reject any but the default, and the fact check does not rely on it.
        response = self._openai().chat.completions.create(
            model=self.settings.model or "", messages=messages, **extra  # type: ignore[arg-type]
        )
        if not response.choices:
            raise LLMUnavailable("empty reply")
        return response.choices[0].message.content or ""


@contextmanager
def _unavailable_on_error() -> Iterator[None]:
    """Map the client's exceptions to `LLMUnavailable`. `from None`: theirs hold the request, headers included."""
    import openai

    try:
        yield
    except openai.APITimeoutError:
        raise LLMUnavailable("timeout") from None
    except openai.APIConnectionError:
        raise LLMUnavailable("connection error") from None
    except openai.APIStatusError as e:
        raise LLMUnavailable(f"HTTP {e.status_code}") from None
    except openai.OpenAIError as e:
        raise LLMUnavailable(type(e).__name__) from None


def _json_schema_format(schema: type[BaseModel], name: str) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema.model_json_schema(), "strict": False}}


def with_json_instruction(messages: list[Message], schema: type[BaseModel]) -> list[Message]:
    """The messages with a last system line asking for bare JSON fitting `schema` (prompt-only mode)."""
    instruction = (
        "Reply with one JSON object only, no prose and no code fences, matching this JSON Schema:\n"
        + json.dumps(schema.model_json_schema(), ensure_ascii=False)
    )
    return [*messages, {"role": "system", "content": instruction}]


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_json(content: str, schema: type[T]) -> T:
    """Validate a reply against `schema`, tolerating code fences and prose around one JSON object."""
    text = _FENCE.sub(r"\1", content).strip()
    if not text.startswith("{") and "{" in text:
        text = text[text.index("{"): text.rindex("}") + 1]
    try:
        data = json.loads(text)
    except ValueError:
        raise LLMUnavailable("invalid JSON") from None
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        fields = ", ".join(".".join(str(p) for p in err["loc"]) or "(root)" for err in e.errors()[:3])
        raise LLMUnavailable(f"reply does not fit the schema: {fields}") from None
