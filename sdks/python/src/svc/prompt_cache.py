"""Prompts fetched before: fresh for a TTL, and kept past it as the last good version for when the service is down."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from .prompt import Prompt

CacheKey = tuple[str, str]


@dataclass
class _Entry:
    prompt: Prompt
    fetched_at: float


class PromptCache:
    def __init__(self) -> None:
        self._entries: dict[CacheKey, _Entry] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(name: str, version: int | None, label: str) -> CacheKey:
        return (name, f"version:{version}" if version is not None else f"label:{label}")

    def fresh(self, key: CacheKey, ttl_s: float) -> Prompt | None:
        """The cached prompt when it was fetched less than `ttl_s` ago."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or time.monotonic() - entry.fetched_at >= ttl_s:
            return None
        return entry.prompt

    def last_good(self, key: CacheKey) -> Prompt | None:
        """The last prompt fetched for this key, however old."""
        with self._lock:
            entry = self._entries.get(key)
        return None if entry is None else entry.prompt

    def put(self, key: CacheKey, prompt: Prompt) -> None:
        with self._lock:
            self._entries[key] = _Entry(prompt, time.monotonic())

    def expire(self, name: str) -> None:
        """Makes every cached version of `name` stale (labels moved), keeping them as last good versions."""
        with self._lock:
            for key, entry in self._entries.items():
                if key[0] == name:
                    entry.fetched_at = float("-inf")
