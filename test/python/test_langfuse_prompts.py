"""Prompt management with the Langfuse Python SDK: create text and chat prompts (a folder name, labels, config, tags,
versions), get them by label and version, compile them, move labels, link a prompt to a generation; checked through
our public API and the stored rows."""

from __future__ import annotations

import uuid
from typing import Any

from compat_testing import Compat


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def test_text_prompt_versions_labels_and_compile(compat: Compat, langfuse: Any) -> None:
    name = unique("support/welcome")  # a folder: the SDK sends the name URL-encoded
    v1 = langfuse.create_prompt(name=name, prompt="Hello {{user}}, welcome to {{product}}!", labels=["production"],
                                config={"temperature": 0.3}, tags=["onboarding"], commit_message="first")
    v2 = langfuse.create_prompt(name=name, prompt="Hi {{user}}! {{product}} is ready.", labels=["staging"])
    assert (v1.version, v2.version) == (1, 2)

    production = langfuse.get_prompt(name, cache_ttl_seconds=0)
    assert production.version == 1
    assert production.config == {"temperature": 0.3}
    assert production.compile(user="Ada", product="svc") == "Hello Ada, welcome to svc!"
    assert langfuse.get_prompt(name, label="staging", cache_ttl_seconds=0).compile(user="Ada", product="svc") == "Hi Ada! svc is ready."
    latest = langfuse.get_prompt(name, label="latest", cache_ttl_seconds=0)
    assert (latest.version, sorted(latest.labels)) == (2, ["latest", "staging"])
    assert langfuse.get_prompt(name, version=1, cache_ttl_seconds=0).prompt == "Hello {{user}}, welcome to {{product}}!"

    langfuse.update_prompt(name=name, version=2, new_labels=["production"])
    assert langfuse.get_prompt(name, cache_ttl_seconds=0).version == 2

    encoded = name.replace("/", "%2F")
    fetched = compat.get(f"/v2/prompts/{encoded}", label="production")
    assert (fetched["version"], fetched["type"], fetched["isActive"]) == (2, "text", True)
    assert sorted(fetched["labels"]) == ["latest", "production", "staging"]
    assert fetched["tags"] == ["onboarding"], "tags omitted on a new version are the previous version's"
    listed = compat.get("/v2/prompts", name=name)["data"]
    assert [(p["name"], p["versions"]) for p in listed] == [(name, [1, 2])]

    rows = compat.rows("SELECT version, type, prompt, labels, config, commit_message FROM prompts WHERE name = %s ORDER BY version", name)
    rows = [{**r, "labels": sorted(r["labels"])} for r in rows]
    assert rows == [
        {"version": 1, "type": "text", "prompt": "Hello {{user}}, welcome to {{product}}!", "labels": [],
         "config": {"temperature": 0.3}, "commit_message": "first"},
        {"version": 2, "type": "text", "prompt": "Hi {{user}}! {{product}} is ready.", "labels": ["latest", "production", "staging"],
         "config": {}, "commit_message": None},
    ]


def test_chat_prompt_with_placeholder_compiles(compat: Compat, langfuse: Any) -> None:
    name = unique("chat-assistant")
    messages = [
        {"role": "system", "content": "You are {{persona}}."},
        {"type": "placeholder", "name": "history"},
        {"role": "user", "content": "{{question}}"},
    ]
    created = langfuse.create_prompt(name=name, type="chat", prompt=messages, labels=["production"])
    assert created.version == 1

    prompt = langfuse.get_prompt(name, type="chat", cache_ttl_seconds=0)
    compiled = prompt.compile(persona="a librarian", question="Where is Dune?",
                              history=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert compiled == [
        {"role": "system", "content": "You are a librarian."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "Where is Dune?"},
    ]

    fetched = compat.get(f"/v2/prompts/{name}", version=1)
    assert fetched["type"] == "chat"
    assert [m.get("role") or m.get("type") for m in fetched["prompt"]] == ["system", "placeholder", "user"]
    [row] = compat.rows("SELECT type, prompt FROM prompts WHERE name = %s", name)
    assert row["type"] == "chat"
    assert row["prompt"][1] == {"type": "placeholder", "name": "history"}
    assert row["prompt"][2]["content"] == "{{question}}"


def test_a_generation_links_its_prompt(compat: Compat, langfuse: Any) -> None:
    name = unique("linked")
    langfuse.create_prompt(name=name, prompt="Summarise {{text}}", labels=["production"])
    prompt = langfuse.get_prompt(name, cache_ttl_seconds=0)
    with langfuse.start_as_current_observation(name="summarise", as_type="generation", model="gpt-4o-mini", prompt=prompt) as generation:
        generation.update(input=prompt.compile(text="a book"), output="short")
        generation_id = generation.id
    langfuse.flush()

    observation = compat.get(f"/observations/{generation_id}")
    assert (observation["promptName"], observation["promptVersion"]) == (name, 1)
    [row] = compat.rows("SELECT prompt_name, prompt_version, input FROM observations WHERE id = %s", generation_id)
    assert row == {"prompt_name": name, "prompt_version": 1, "input": "Summarise a book"}
