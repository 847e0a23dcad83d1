"""Configuration from the environment and arguments, the default client, and auth_check against the real service."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import svc

ENV = ("SVC_PUBLIC_KEY", "SVC_SECRET_KEY", "SVC_HOST")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, svc_service: Any) -> pytest.MonkeyPatch:
    monkeypatch.setenv("SVC_PUBLIC_KEY", svc_service.public_key)
    monkeypatch.setenv("SVC_SECRET_KEY", svc_service.secret_key)
    monkeypatch.setenv("SVC_HOST", svc_service.admin_url + "/")
    return monkeypatch


def test_reads_the_environment_and_checks_the_keys(env: pytest.MonkeyPatch, svc_service: Any) -> None:
    client = svc.Svc()
    assert client.host == svc_service.admin_url
    assert client.public_key == svc_service.public_key
    assert client.auth_check() is True
    client.shutdown()


def test_arguments_override_the_environment(env: pytest.MonkeyPatch, svc_service: Any) -> None:
    env.setenv("SVC_HOST", "http://127.0.0.1:1")
    env.setenv("SVC_PUBLIC_KEY", "pk-svc-not-this-one")
    client = svc.Svc(public_key=svc_service.public_key, host=svc_service.admin_url)
    assert client.auth_check() is True
    client.shutdown()


@pytest.mark.parametrize("variable", ENV)
def test_a_missing_setting_is_an_error_naming_its_variable(env: pytest.MonkeyPatch, variable: str) -> None:
    env.delenv(variable)
    with pytest.raises(svc.ConfigError) as caught:
        svc.Svc()
    assert caught.value.variable == variable
    assert variable in str(caught.value)


@pytest.mark.parametrize(("variable", "value", "says"), [
    ("SVC_HOST", "localhost:8081", "http:// or https://"),
    ("SVC_HOST", "ftp://localhost:8081", "http:// or https://"),
    ("SVC_HOST", "http://localhost:8081/api/public", "without /api/public"),
    ("SVC_HOST", "http://localhost:8081?x=1", "without query"),
    ("SVC_PUBLIC_KEY", "sk-svc-abc", "other key of the pair"),
    ("SVC_SECRET_KEY", "pk-svc-abc", "other key of the pair"),
    ("SVC_SECRET_KEY", "sk-svc abc", "malformed"),
    ("SVC_PUBLIC_KEY", "   ", "is not set"),
])
def test_a_malformed_setting_is_an_error_naming_its_variable(env: pytest.MonkeyPatch, variable: str, value: str,
                                                             says: str) -> None:
    env.setenv(variable, value)
    with pytest.raises(svc.ConfigError) as caught:
        svc.Svc()
    assert caught.value.variable == variable
    assert variable in str(caught.value) and says in str(caught.value)


def test_the_secret_key_stays_out_of_reprs(env: pytest.MonkeyPatch, svc_service: Any) -> None:
    client = svc.Svc()
    assert svc_service.secret_key not in repr(client)
    assert svc_service.secret_key not in repr(client._credentials)
    client.shutdown()


@pytest.mark.parametrize(("options", "says"), [
    ({"span_queue_size": 10, "span_batch_size": 20}, "span_batch_size"),
    ({"span_batch_size": 0}, "span_batch_size"),
    ({"span_export_interval_s": 0}, "span_export_interval_s"),
    ({"export_timeout_s": -1}, "export_timeout_s"),
    ({"max_retries": -1}, "max_retries"),
])
def test_bad_export_and_retry_numbers_fail_at_construction(env: pytest.MonkeyPatch, options: dict[str, Any],
                                                           says: str) -> None:
    with pytest.raises(ValueError, match=says):
        svc.Svc(**options)


def test_get_client_builds_the_default_from_the_environment_once(env: pytest.MonkeyPatch) -> None:
    svc.set_client(None)
    try:
        first = svc.get_client()
        assert svc.get_client() is first
        mine = svc.Svc()
        svc.set_client(mine)
        assert svc.get_client() is mine
        first.shutdown()
        mine.shutdown()
    finally:
        svc.set_client(None)


def test_get_client_without_configuration_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ENV:
        monkeypatch.delenv(variable, raising=False)
    svc.set_client(None)
    with pytest.raises(svc.ConfigError, match="SVC_PUBLIC_KEY"):
        svc.get_client()


def test_observe_without_configuration_runs_the_function_and_logs_once(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    for variable in ENV:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr("svc.observe_decorator._warned_unconfigured", False)
    svc.set_client(None)

    @svc.observe
    def add(a: int, b: int) -> int:
        return a + b

    with caplog.at_level(logging.WARNING, logger="svc"):
        assert add(1, 2) == 3
        assert add(2, 3) == 5
    warnings = [r for r in caplog.records if r.name == "svc"]
    assert len(warnings) == 1 and "SVC_PUBLIC_KEY" in warnings[0].getMessage()


def test_auth_check_with_a_wrong_secret_raises_authentication_error(svc_service: Any) -> None:
    client = svc.Svc(svc_service.public_key, "sk-svc-wrong", svc_service.admin_url)
    with pytest.raises(svc.AuthenticationError) as caught:
        client.auth_check()
    assert caught.value.status == 401
    assert caught.value.message == "Invalid credentials. Confirm that you've configured the correct host."
    assert caught.value.error == "UnauthorizedError"
    client.shutdown()


def test_auth_check_with_an_unknown_public_key_raises_authentication_error(svc_service: Any) -> None:
    client = svc.Svc("pk-svc-unknown", svc_service.secret_key, svc_service.admin_url)
    with pytest.raises(svc.AuthenticationError):
        client.auth_check()
    client.shutdown()


def test_auth_check_against_the_gateway_listener_is_not_found(svc_service: Any) -> None:
    client = svc.Svc(svc_service.public_key, svc_service.secret_key, svc_service.gateway_url)
    with pytest.raises(svc.NotFoundError) as caught:
        client.auth_check()
    assert caught.value.status == 404
    client.shutdown()


def test_auth_check_when_nothing_listens_raises_unreachable(svc_service: Any, dead_url: str) -> None:
    client = svc.Svc(svc_service.public_key, svc_service.secret_key, dead_url, max_retries=1)
    with pytest.raises(svc.UnreachableError) as caught:
        client.auth_check()
    assert dead_url in str(caught.value) and "SVC_HOST" in str(caught.value)
    client.shutdown()


def test_bad_keys_surface_as_a_typed_401_on_every_resource(svc_service: Any) -> None:
    client = svc.Svc(svc_service.public_key, "sk-svc-wrong", svc_service.admin_url)
    calls = [
        lambda: client.get_prompt("anything"),
        lambda: client.get_dataset("anything"),
        lambda: client.create_score("quality", 1.0, trace_id="0" * 32),
    ]
    for call in calls:
        with pytest.raises(svc.AuthenticationError) as caught:
            call()
        assert caught.value.status == 401
    client.shutdown()
