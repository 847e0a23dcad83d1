"""Prompts against the real service: create, get by version and label, labels, compile, the cache and its fallbacks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import svc_service as service_plugin

import svc


def test_create_and_get_a_text_prompt(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("greeting")
    created = client.create_prompt(name, "Hello {{name}}, welcome to {{ place }}!", labels=["production"],
                                   config={"temperature": 0.2}, tags=["onboarding"], commit_message="first")
    assert isinstance(created, svc.TextPrompt)
    assert (created.name, created.version, created.type) == (name, 1, "text")

    fetched = client.get_prompt(name)
    assert isinstance(fetched, svc.TextPrompt)
    assert fetched.version == 1
    assert fetched.prompt == "Hello {{name}}, welcome to {{ place }}!"
    assert fetched.config == {"temperature": 0.2}
    assert set(fetched.labels) == {"production", "latest"}
    assert fetched.tags == ["onboarding"]
    assert fetched.commit_message == "first"
    assert fetched.is_fallback is False
    assert fetched.variables == ["name", "place"]
    assert fetched.compile(name="Ann", place="Oslo") == "Hello Ann, welcome to Oslo!"


def test_compile_keeps_missing_variables_and_writes_other_values_as_json(client: svc.Svc,
                                                                          unique: Callable[[str], str]) -> None:
    name = unique("partial")
    client.create_prompt(name, "{{a}} / {{b}} / {{c}}", labels=["production"])
    prompt = client.get_prompt(name)
    assert prompt.compile(a={"k": [1, 2]}, b=3) == '{"k": [1, 2]} / 3 / {{c}}'


def test_get_by_version_and_by_label(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("versions")
    client.create_prompt(name, "v1", labels=["production"])
    client.create_prompt(name, "v2", labels=["staging"])
    assert client.get_prompt(name, version=1).prompt == "v1"
    assert client.get_prompt(name, version=2).prompt == "v2"
    assert client.get_prompt(name, label="staging").prompt == "v2"
    assert client.get_prompt(name, label="latest").version == 2
    assert client.get_prompt(name).prompt == "v1"  # production by default
    with pytest.raises(ValueError, match="version or label"):
        client.get_prompt(name, version=1, label="staging")


def test_update_labels_moves_production(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("promote")
    client.create_prompt(name, "old", labels=["production"])
    client.create_prompt(name, "new")
    assert client.get_prompt(name).prompt == "old"
    updated = client.update_prompt_labels(name, 2, ["production", "reviewed"])
    assert {"production", "reviewed", "latest"} <= set(updated.labels)
    # The label change expires this client's cache entry for the name.
    assert client.get_prompt(name).prompt == "new"
    assert "production" not in client.get_prompt(name, version=1).labels


def test_chat_prompt_with_variables_and_a_placeholder(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("chat")
    created = client.create_prompt(name, [
        {"role": "system", "content": "You help with {{topic}}."},
        {"type": "placeholder", "name": "history"},
        {"role": "user", "content": "{{question}}"},
    ], labels=["production"])
    assert isinstance(created, svc.ChatPrompt)

    prompt = client.get_prompt(name)
    assert isinstance(prompt, svc.ChatPrompt)
    assert prompt.variables == ["topic", "question"]
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert prompt.compile(topic="billing", question="Why two charges?", history=history) == [
        {"role": "system", "content": "You help with billing."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "Why two charges?"},
    ]
    # A placeholder not filled stays, so the caller sees what is missing.
    assert prompt.compile(topic="x", question="y")[1] == {"type": "placeholder", "name": "history"}


def test_names_with_folders(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("team/support/welcome")
    client.create_prompt(name, "in a folder", labels=["production"])
    assert client.get_prompt(name).prompt == "in a folder"


def test_a_fresh_cache_entry_is_served_until_its_ttl(client: svc.Svc, svc_service: Any,
                                                     unique: Callable[[str], str]) -> None:
    name = unique("cached")
    client.create_prompt(name, "first", labels=["production"])
    assert client.get_prompt(name).prompt == "first"

    other = svc.Svc(svc_service.public_key, svc_service.secret_key, svc_service.admin_url)
    other.create_prompt(name, "second", labels=["production"])
    other.shutdown()

    assert client.get_prompt(name).prompt == "first"  # cached, within the default 60 s
    assert client.get_prompt(name, cache_ttl_s=0).prompt == "second"
    assert client.get_prompt(name).prompt == "second"


def test_unknown_prompt_is_a_typed_404(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("missing")
    with pytest.raises(svc.NotFoundError) as caught:
        client.get_prompt(name)
    assert caught.value.status == 404
    assert caught.value.message == f"Prompt not found: '{name}' with label 'production'"


def test_unknown_prompt_with_a_fallback(client: svc.Svc, unique: Callable[[str], str]) -> None:
    prompt = client.get_prompt(unique("missing"), fallback="Hi {{name}}")
    assert isinstance(prompt, svc.TextPrompt)
    assert prompt.is_fallback is True and prompt.version == 0
    assert prompt.compile(name="Bo") == "Hi Bo"


def test_type_answers_that_type_and_refuses_a_version_of_the_other(client: svc.Svc,
                                                                  unique: Callable[[str], str]) -> None:
    name = unique("typed")
    client.create_prompt(name, "Hi {{who}}", labels=["production"])
    text = client.get_prompt(name, type="text")
    assert text.compile(who="Ada") == "Hi Ada"
    with pytest.raises(svc.SvcError, match=f"prompt '{name}' version 1 is a text prompt, not chat"):
        client.get_prompt(name, type="chat")
    fallback = client.get_prompt(unique("missing"), type="chat", fallback=[{"role": "user", "content": "x"}])
    assert isinstance(fallback, svc.ChatPrompt) and fallback.is_fallback


def test_a_refused_create_carries_the_server_message(client: svc.Svc, unique: Callable[[str], str]) -> None:
    with pytest.raises(svc.ApiError) as caught:
        client.create_prompt(unique("bad"), "x", labels=["Not A Label"])
    assert caught.value.status == 400
    assert caught.value.message.startswith("Invalid request data: ")
    assert "labels" in caught.value.message and caught.value.body["message"] == "Invalid request data"


def test_fallbacks_when_the_server_is_unreachable_and_nothing_is_cached(svc_service: Any, dead_url: str) -> None:
    client = svc.Svc(svc_service.public_key, svc_service.secret_key, dead_url, max_retries=0)
    text = client.get_prompt("anything", fallback="Plain {{x}}")
    assert isinstance(text, svc.TextPrompt) and text.is_fallback and text.compile(x="text") == "Plain text"
    chat = client.get_prompt("anything-chat", fallback=[{"role": "system", "content": "Be {{tone}}."}])
    assert isinstance(chat, svc.ChatPrompt) and chat.is_fallback
    assert chat.compile(tone="brief") == [{"role": "system", "content": "Be brief."}]
    with pytest.raises(svc.UnreachableError):
        client.get_prompt("anything")
    client.shutdown()


def test_last_good_version_is_served_when_the_server_goes_down(tmp_path: Path) -> None:
    service = service_plugin.start_service(tmp_path)
    try:
        client = svc.Svc(service.public_key, service.secret_key, service.admin_url, max_retries=0)
        client.create_prompt("support", "Answer {{question}}", labels=["production"])
        assert client.get_prompt("support", cache_ttl_s=0).version == 1
        assert client.get_prompt("support", version=1, cache_ttl_s=0).prompt == "Answer {{question}}"
    finally:
        service.stop()

    served = client.get_prompt("support", cache_ttl_s=0)
    assert served.is_fallback is False
    assert (served.version, served.prompt) == (1, "Answer {{question}}")
    # The last good version wins over the fallback; only a never-fetched prompt gets the fallback.
    assert client.get_prompt("support", cache_ttl_s=0, fallback="other").prompt == "Answer {{question}}"
    assert client.get_prompt("support", version=1, cache_ttl_s=0).version == 1
    assert client.get_prompt("never-fetched", fallback="fallback").is_fallback
    with pytest.raises(svc.UnreachableError):
        client.get_prompt("support", label="staging")
    client.shutdown()
