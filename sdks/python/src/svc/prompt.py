"""Prompt versions as the public API returns them, and `compile` for text and chat prompts."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union

# The service's variable syntax (admin/public-api/routes/prompts.ts): {{name}}, spaces allowed inside the braces.
_VARIABLE = re.compile(r"\{\{\s*([\w.-]+)\s*\}\}")

ChatMessage = dict[str, Any]
"""A chat entry: `{"role", "content"}`, or a placeholder `{"type": "placeholder", "name"}`."""


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _fill(template: str, variables: Mapping[str, Any]) -> str:
    # A variable that is not given stays as written, so a partly compiled prompt shows what is missing.
    return _VARIABLE.sub(lambda m: _text_of(variables[m.group(1)]) if m.group(1) in variables else m.group(0), template)


@dataclass(frozen=True, kw_only=True)
class _PromptVersion:
    name: str
    version: int
    """The stored version number; 0 for a fallback."""
    config: dict[str, Any] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    commit_message: str | None = None
    is_fallback: bool = False
    """True when this is the caller's fallback, not a version the service stored."""


@dataclass(frozen=True, kw_only=True)
class TextPrompt(_PromptVersion):
    """A text prompt version."""

    prompt: str
    type: Literal["text"] = "text"

    @property
    def variables(self) -> list[str]:
        """The `{{variable}}` names of the prompt, in order, without repeats."""
        return list(dict.fromkeys(_VARIABLE.findall(self.prompt)))

    def compile(self, **variables: Any) -> str:
        """The text with each `{{name}}` replaced by `variables[name]` (strings as they are, other values as JSON);
        names not given stay as written."""
        return _fill(self.prompt, variables)


@dataclass(frozen=True, kw_only=True)
class ChatPrompt(_PromptVersion):
    """A chat prompt version: a list of messages and placeholders."""

    prompt: list[ChatMessage]
    type: Literal["chat"] = "chat"

    @property
    def variables(self) -> list[str]:
        names = [n for m in self.prompt if isinstance(m.get("content"), str) for n in _VARIABLE.findall(m["content"])]
        return list(dict.fromkeys(names))

    def compile(self, **variables: Any) -> list[ChatMessage]:
        """Messages `{"role", "content"}` ready for a chat completion: `{{name}}` variables filled in the contents, and
        each placeholder replaced by the list of messages given under its name (a placeholder not given stays)."""
        out: list[ChatMessage] = []
        for message in self.prompt:
            if message.get("type") == "placeholder":
                filling = variables.get(str(message.get("name")))
                if isinstance(filling, Sequence) and not isinstance(filling, str):
                    out.extend(dict(m) for m in filling)
                else:
                    out.append(dict(message))
                continue
            compiled = {k: v for k, v in message.items() if k != "type"}
            compiled["content"] = _fill(str(message.get("content", "")), variables)
            out.append(compiled)
        return out


Prompt = Union[TextPrompt, ChatPrompt]


def prompt_of(body: Mapping[str, Any]) -> Prompt:
    """A prompt from the API's prompt object."""
    name, version = str(body["name"]), int(body["version"])
    config = dict(body.get("config") or {})
    labels, tags = list(body.get("labels") or []), list(body.get("tags") or [])
    commit = body.get("commitMessage")
    if body.get("type") == "chat":
        return ChatPrompt(name=name, version=version, prompt=[dict(m) for m in body["prompt"]], config=config,
                          labels=labels, tags=tags, commit_message=commit)
    return TextPrompt(name=name, version=version, prompt=str(body["prompt"]), config=config, labels=labels, tags=tags,
                      commit_message=commit)


def fallback_prompt(name: str, fallback: str | Sequence[Mapping[str, Any]]) -> Prompt:
    """The caller's fallback as a prompt (version 0, `is_fallback` True)."""
    if isinstance(fallback, str):
        return TextPrompt(name=name, version=0, prompt=fallback, is_fallback=True)
    return ChatPrompt(name=name, version=0, prompt=[dict(m) for m in fallback], is_fallback=True)
