"""`@observe`: a span for each call of a function, coroutine function, generator or async generator."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar, cast, overload

from .default_client import get_client
from .errors import ConfigError
from .tracing.attributes import ObservationType
from .tracing.observation import SvcSpan
from .tracing.tracing import Tracing, activated, as_current

logger = logging.getLogger("svc")

F = TypeVar("F", bound=Callable[..., Any])

_warned_unconfigured = False


def _default_tracing() -> Tracing | None:
    """The default client's tracing; None (and one log line) when the SDK is not configured, so that the decorated
    function still runs."""
    global _warned_unconfigured
    try:
        return get_client()._tracing
    except ConfigError as err:
        if not _warned_unconfigured:
            _warned_unconfigured = True
            logger.warning("svc: @observe records nothing: %s", err)
        return None


def _input_of(signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The call's arguments by parameter name (`self` and `cls` left out, `**kwargs` spread)."""
    if signature is None:
        return {"args": list(args), "kwargs": kwargs}
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return {"args": list(args), "kwargs": kwargs}
    out: dict[str, Any] = {}
    for index, (name, value) in enumerate(bound.arguments.items()):
        if index == 0 and name in ("self", "cls"):
            continue
        if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        else:
            out[name] = value
    return out


def _collected(items: list[Any]) -> Any:
    """What a generator yielded: one string when it yielded strings (streamed text), else the list."""
    return "".join(items) if items and all(isinstance(i, str) for i in items) else items


Start = Callable[[tuple[Any, ...], dict[str, Any]], "SvcSpan | None"]


def _active(observation: SvcSpan | None) -> AbstractContextManager[None]:
    return nullcontext() if observation is None else activated(observation)


def _finish(observation: SvcSpan | None, items: list[Any], capture_output: bool) -> None:
    if observation is not None:
        if capture_output:
            observation.record_output(_collected(items))
        observation.end()


def _wrap_generator(fn: Callable[..., Generator[Any, Any, Any]], start: Start,
                    capture_output: bool) -> Callable[..., Generator[Any, Any, Any]]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        observation = start(args, kwargs)
        generator = fn(*args, **kwargs)
        # The span is current only while the generator body runs, never in the consumer's code between items.
        items: list[Any] = []
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                with _active(observation):
                    try:
                        item = generator.send(sent) if thrown is None else generator.throw(thrown)
                    except StopIteration as stop:
                        return stop.value
                items.append(item)
                try:
                    sent, thrown = (yield item), None
                except GeneratorExit:
                    raise
                except BaseException as error:  # thrown in by the consumer: the generator decides what it means
                    sent, thrown = None, error
        except GeneratorExit:
            with _active(observation):
                generator.close()
            raise
        except Exception as error:
            if observation is not None:
                observation.record_error(error)
            raise
        finally:
            _finish(observation, items, capture_output)
    return wrapper


def _wrap_async_generator(fn: Callable[..., AsyncGenerator[Any, Any]], start: Start,
                          capture_output: bool) -> Callable[..., AsyncGenerator[Any, Any]]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
        observation = start(args, kwargs)
        generator = fn(*args, **kwargs)
        items: list[Any] = []
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                with _active(observation):
                    try:
                        item = await (generator.asend(sent) if thrown is None else generator.athrow(thrown))
                    except StopAsyncIteration:
                        return
                items.append(item)
                try:
                    sent, thrown = (yield item), None
                except GeneratorExit:
                    raise
                except BaseException as error:
                    sent, thrown = None, error
        except GeneratorExit:
            with _active(observation):
                await generator.aclose()
            raise
        except Exception as error:
            if observation is not None:
                observation.record_error(error)
            raise
        finally:
            _finish(observation, items, capture_output)
    return wrapper


def _wrap_coroutine(fn: Callable[..., Awaitable[Any]], start: Start, capture_output: bool) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        observation = start(args, kwargs)
        if observation is None:
            return await fn(*args, **kwargs)
        with as_current(observation):
            result = await fn(*args, **kwargs)
            if capture_output:
                observation.record_output(result)
            return result
    return wrapper


def _wrap_function(fn: Callable[..., Any], start: Start, capture_output: bool) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        observation = start(args, kwargs)
        if observation is None:
            return fn(*args, **kwargs)
        with as_current(observation):
            result = fn(*args, **kwargs)
            if capture_output:
                observation.record_output(result)
            return result
    return wrapper


@overload
def observe(func: F, /) -> F: ...


@overload
def observe(*, name: str | None = None, as_type: ObservationType = "span", capture_input: bool = True,
            capture_output: bool = True) -> Callable[[F], F]: ...


def observe(func: F | None = None, /, *, name: str | None = None, as_type: ObservationType = "span",
            capture_input: bool = True, capture_output: bool = True) -> F | Callable[[F], F]:
    """Records each call as a span of the default client (`svc.get_client()`), a child of the span current at the
    call: named `name` or after the function, with the arguments as input and the return value as output (the yielded
    items for generators: one string when they are strings) unless `capture_input` / `capture_output` is False. An
    exception is recorded (level ERROR) and re-raised. `as_type="generation"` makes it a generation, which
    `update_current_generation` fills in. When the SDK is not configured the function runs untraced (logged once)."""

    def decorate(fn: F) -> F:
        span_name = name or fn.__name__
        try:
            signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = None

        def start(args: tuple[Any, ...], kwargs: dict[str, Any]) -> SvcSpan | None:
            tracing = _default_tracing()
            if tracing is None:
                return None
            return tracing.start(span_name, as_type, input=_input_of(signature, args, kwargs) if capture_input else None)

        if inspect.isasyncgenfunction(fn):
            return cast(F, _wrap_async_generator(fn, start, capture_output))
        if inspect.isgeneratorfunction(fn):
            return cast(F, _wrap_generator(fn, start, capture_output))
        if inspect.iscoroutinefunction(fn):
            return cast(F, _wrap_coroutine(fn, start, capture_output))
        return cast(F, _wrap_function(fn, start, capture_output))

    return decorate(func) if func is not None else decorate
