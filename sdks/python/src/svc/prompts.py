"""Prompts over /api/public/v2/prompts, with the client-side cache."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .errors import ApiError, RateLimitError, ServerError, UnreachableError
from .prompt import Prompt, fallback_prompt, prompt_of
from .prompt_cache import PromptCache
from .rest import RestClient, segment

logger = logging.getLogger("svc")

DEFAULT_LABEL = "production"


class PromptsApi:
    def __init__(self, rest: RestClient, cache_ttl_s: float) -> None:
        self._rest = rest
        self._cache = PromptCache()
        self.cache_ttl_s = cache_ttl_s

    def get(self, name: str, *, version: int | None = None, label: str | None = None,
            cache_ttl_s: float | None = None, fallback: str | Sequence[Mapping[str, Any]] | None = None) -> Prompt:
        if version is not None and label is not None:
            raise ValueError("get_prompt takes version or label, not both")
        chosen_label = label or DEFAULT_LABEL
        key = PromptCache.key(name, version, chosen_label)
        ttl = self.cache_ttl_s if cache_ttl_s is None else cache_ttl_s
        cached = self._cache.fresh(key, ttl)
        if cached is not None:
            return cached
        params: dict[str, str | int | None] = {"version": version} if version is not None else {"label": chosen_label}
        try:
            body = self._rest.request("GET", f"/v2/prompts/{segment(name)}", params=params)
        except (UnreachableError, ServerError, RateLimitError) as err:
            stale = self._cache.last_good(key)
            if stale is not None:
                logger.warning("svc: serving the cached version %s of prompt %r: %s", stale.version, name, err)
                return stale
            return self._fallback_or_raise(name, fallback, err)
        except ApiError as err:
            return self._fallback_or_raise(name, fallback, err)
        prompt = prompt_of(body)
        self._cache.put(key, prompt)
        return prompt

    @staticmethod
    def _fallback_or_raise(name: str, fallback: str | Sequence[Mapping[str, Any]] | None, err: Exception) -> Prompt:
        if fallback is None:
            raise err
        logger.warning("svc: using the fallback for prompt %r: %s", name, err)
        return fallback_prompt(name, fallback)

    def create(self, name: str, prompt: str | Sequence[Mapping[str, Any]], *, type: Literal["text", "chat"] | None = None,
               config: Mapping[str, Any] | None = None, labels: Sequence[str] | None = None,
               tags: Sequence[str] | None = None, commit_message: str | None = None) -> Prompt:
        kind = type or ("text" if isinstance(prompt, str) else "chat")
        body: dict[str, Any] = {
            "name": name,
            "type": kind,
            "prompt": prompt if isinstance(prompt, str) else [dict(m) for m in prompt],
        }
        if config is not None:
            body["config"] = dict(config)
        if labels is not None:
            body["labels"] = list(labels)
        if tags is not None:
            body["tags"] = list(tags)
        if commit_message is not None:
            body["commitMessage"] = commit_message
        # A retried create could store a second version: only retried when the server surely did not process it.
        created = prompt_of(self._rest.request("POST", "/v2/prompts", json=body, idempotent=False))
        self._cache.expire(name)
        return created

    def update_labels(self, name: str, version: int, labels: Sequence[str]) -> Prompt:
        updated = prompt_of(self._rest.request("PATCH", f"/v2/prompts/{segment(name)}/versions/{version}",
                                               json={"newLabels": list(labels)}))
        self._cache.expire(name)
        return updated
