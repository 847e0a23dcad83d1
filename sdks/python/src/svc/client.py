"""`Svc`: the client of one project (its key pair and host) for the public API and tracing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Literal, overload

import httpx
from opentelemetry import trace

from . import config
from .datasets import Dataset, DatasetItem, DatasetRun, DatasetRunItem, DatasetsApi
from .errors import SvcError
from .prompt import ChatPrompt, Prompt, TextPrompt
from .prompts import PromptsApi
from .rest import RestClient
from .scores import Score, ScoreDataType, ScoresApi
from .tracing.attributes import GenerationType, Level, SpanType
from .tracing.observation import SvcGeneration, SvcSpan
from .tracing.provider import ExportSettings
from .tracing.tracing import Tracing, as_current


class Svc:
    """A client of one svc project.

    Settings come from the arguments, else from the environment: `SVC_PUBLIC_KEY`, `SVC_SECRET_KEY` and `SVC_HOST`
    (the admin listener's base URL, e.g. `http://localhost:8081`), and `SVC_TIMEOUT` (seconds each REST request may
    take; 5 by default). A missing or malformed one raises `ConfigError` naming the variable. Nothing is sent until a
    method needs it.
    """

    def __init__(
        self,
        public_key: str | None = None,
        secret_key: str | None = None,
        host: str | None = None,
        *,
        timeout_s: float | None = None,
        max_retries: int = 3,
        max_retry_wait_s: float = 30.0,
        prompt_cache_ttl_s: float = 60.0,
        export_timeout_s: float = 10.0,
        span_queue_size: int = 2048,
        span_batch_size: int = 512,
        span_batch_bytes: int = 4 * 1024 * 1024,
        span_export_interval_s: float = 1.0,
        set_global_tracer_provider: bool = False,
        http_transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._credentials = config.credentials(public_key, secret_key, host)
        export = ExportSettings(timeout_s=export_timeout_s, max_queue_size=span_queue_size,
                                max_batch_size=span_batch_size, max_batch_bytes=span_batch_bytes,
                                interval_s=span_export_interval_s, set_global=set_global_tracer_provider)
        self._rest = RestClient(self._credentials, timeout_s=config.timeout_seconds(timeout_s), max_retries=max_retries,
                                max_retry_wait_s=max_retry_wait_s, transport=http_transport)
        self._prompts = PromptsApi(self._rest, prompt_cache_ttl_s)
        self._datasets = DatasetsApi(self._rest)
        self._scores = ScoresApi(self._rest)
        self._tracing = Tracing(self._credentials, export)

    def __repr__(self) -> str:
        return f"Svc(host={self.host!r}, public_key={self.public_key!r})"

    @property
    def host(self) -> str:
        return self._credentials.host

    @property
    def public_key(self) -> str:
        return self._credentials.public_key

    # --- credentials ---------------------------------------------------------------------------------------------

    def auth_check(self) -> Literal[True]:
        """True when the host answers and accepts the key pair (GET /api/public/projects). Raises
        `AuthenticationError` (401: wrong or expired keys), `ForbiddenError` (403), `NotFoundError` (404: the host is
        not an svc admin listener), `UnreachableError` (nothing answers at the host), or another `ApiError`."""
        self._rest.request("GET", "/projects")
        return True

    # --- prompts -------------------------------------------------------------------------------------------------

    @overload
    def get_prompt(self, name: str, *, version: int | None = None, label: str | None = None,
                   cache_ttl_s: float | None = None, fallback: str | None = None,
                   type: Literal["text"]) -> TextPrompt: ...

    @overload
    def get_prompt(self, name: str, *, version: int | None = None, label: str | None = None,
                   cache_ttl_s: float | None = None, fallback: Sequence[Mapping[str, Any]] | None = None,
                   type: Literal["chat"]) -> ChatPrompt: ...

    @overload
    def get_prompt(self, name: str, *, version: int | None = None, label: str | None = None,
                   cache_ttl_s: float | None = None, fallback: str | Sequence[Mapping[str, Any]] | None = None,
                   type: None = None) -> Prompt: ...

    def get_prompt(self, name: str, *, version: int | None = None, label: str | None = None,
                   cache_ttl_s: float | None = None, fallback: str | Sequence[Mapping[str, Any]] | None = None,
                   type: Literal["text", "chat"] | None = None) -> Prompt:
        """A prompt version by `version` or `label` (default `production`), from the cache while fresh
        (`cache_ttl_s`, default the client's `prompt_cache_ttl_s`). When the service is unreachable or failing, the
        last version fetched is served however old; when none was, `fallback` (a text, or chat messages) is returned
        as a prompt with `is_fallback` True; without a fallback the error is raised. With `type` the answer is typed
        as a `TextPrompt` or `ChatPrompt`, and a version of the other type raises `SvcError`."""
        prompt = self._prompts.get(name, version=version, label=label, cache_ttl_s=cache_ttl_s, fallback=fallback)
        if type is not None and prompt.type != type:
            raise SvcError(f"prompt {name!r} version {prompt.version} is a {prompt.type} prompt, not {type}")
        return prompt

    def create_prompt(self, name: str, prompt: str | Sequence[Mapping[str, Any]], *,
                      type: Literal["text", "chat"] | None = None, config: Mapping[str, Any] | None = None,
                      labels: Sequence[str] | None = None, tags: Sequence[str] | None = None,
                      commit_message: str | None = None) -> Prompt:
        """A new version of the prompt `name` (text when `prompt` is a string, chat when it is a list of messages)."""
        return self._prompts.create(name, prompt, type=type, config=config, labels=labels, tags=tags,
                                    commit_message=commit_message)

    def update_prompt_labels(self, name: str, version: int, labels: Sequence[str]) -> Prompt:
        """Adds labels to a version; a label moves from the version that had it."""
        return self._prompts.update_labels(name, version, labels)

    # --- datasets ------------------------------------------------------------------------------------------------

    def create_dataset(self, name: str, *, description: str | None = None, metadata: Any = None,
                       input_schema: Any = None, expected_output_schema: Any = None) -> Dataset:
        """Creates the dataset, or updates the one of that name."""
        return self._datasets.create(name, description=description, metadata=metadata, input_schema=input_schema,
                                     expected_output_schema=expected_output_schema)

    def get_dataset(self, name: str) -> Dataset:
        return self._datasets.get(name)

    def create_dataset_item(self, dataset_name: str, *, input: Any = None, expected_output: Any = None,
                            metadata: Any = None, id: str | None = None, source_trace_id: str | None = None,
                            source_observation_id: str | None = None,
                            status: Literal["ACTIVE", "ARCHIVED"] | None = None) -> DatasetItem:
        """Creates an item (or updates the item `id`)."""
        return self._datasets.create_item(dataset_name, input=input, expected_output=expected_output,
                                          metadata=metadata, id=id, source_trace_id=source_trace_id,
                                          source_observation_id=source_observation_id, status=status)

    def list_dataset_items(self, dataset_name: str, *, source_trace_id: str | None = None,
                           source_observation_id: str | None = None) -> list[DatasetItem]:
        """Every ACTIVE item of the dataset, newest first."""
        return self._datasets.list_items(dataset_name, source_trace_id=source_trace_id,
                                         source_observation_id=source_observation_id)

    def create_dataset_run_item(self, run_name: str, dataset_item_id: str, *, trace_id: str | None = None,
                                observation_id: str | None = None, run_description: str | None = None,
                                metadata: Any = None) -> DatasetRunItem:
        """Links a trace (or an observation) to a dataset item in the run `run_name`, created when new."""
        return self._datasets.create_run_item(run_name, dataset_item_id, trace_id=trace_id,
                                              observation_id=observation_id, run_description=run_description,
                                              metadata=metadata)

    def get_dataset_run(self, dataset_name: str, run_name: str) -> DatasetRun:
        return self._datasets.get_run(dataset_name, run_name)

    # --- scores --------------------------------------------------------------------------------------------------

    def create_score(self, name: str, value: float | str | bool, *, trace_id: str | None = None,
                     observation_id: str | None = None, session_id: str | None = None,
                     data_type: ScoreDataType | None = None, config_id: str | None = None,
                     comment: str | None = None, metadata: Any = None, id: str | None = None) -> str:
        """Records a score and returns its id. A number is NUMERIC, a string CATEGORICAL, a bool BOOLEAN (or give
        `data_type`); the target is `trace_id` (with `observation_id` for one observation) or `session_id`."""
        return self._scores.create(name, value, trace_id=trace_id, observation_id=observation_id,
                                   session_id=session_id, data_type=data_type, config_id=config_id, comment=comment,
                                   metadata=metadata, id=id)

    def get_score(self, score_id: str) -> Score:
        return self._scores.get(score_id)

    # --- tracing -------------------------------------------------------------------------------------------------

    @contextmanager
    def start_as_current_span(self, name: str, *, as_type: SpanType = "span", input: Any = None,
                              metadata: Mapping[str, Any] | None = None) -> Iterator[SvcSpan]:
        """A span, current inside the block (a child of the span current before). An exception leaving the block
        marks it ERROR and propagates."""
        with as_current(self._tracing.start(name, as_type, input=input, metadata=metadata)) as span:
            yield span

    @contextmanager
    def start_as_current_generation(self, name: str, *, as_type: GenerationType = "generation", input: Any = None,
                                    metadata: Mapping[str, Any] | None = None, model: str | None = None,
                                    model_parameters: Mapping[str, Any] | None = None, usage: Any = None,
                                    cost: float | Mapping[str, float] | None = None,
                                    completion_start_time: datetime | None = None,
                                    prompt: TextPrompt | ChatPrompt | None = None) -> Iterator[SvcGeneration]:
        """A generation, current inside the block; set what is known later with `update(...)`."""
        generation = self._tracing.start_generation(name, as_type, input=input, metadata=metadata)
        generation.update(model=model, model_parameters=model_parameters, usage=usage, cost=cost,
                          completion_start_time=completion_start_time, prompt=prompt)
        with as_current(generation) as current:
            yield current

    def update_current_trace(self, *, name: str | None = None, user_id: str | None = None,
                             session_id: str | None = None, tags: Iterable[str] | None = None,
                             metadata: Mapping[str, Any] | None = None, input: Any = None,
                             output: Any = None) -> bool:
        """Sets fields of the current trace (None leaves a field as it is; tags add up, metadata keys merge). The user
        and session ids are also sent by the gateway link within this trace. False when no span is current."""
        current = self._tracing.current_observation()
        if current is None:
            return False
        current.update_trace(name=name, user_id=user_id, session_id=session_id, tags=tags, metadata=metadata,
                             input=input, output=output)
        return True

    def update_current_span(self, *, input: Any = None, output: Any = None, metadata: Mapping[str, Any] | None = None,
                            level: Level | None = None, status_message: str | None = None) -> bool:
        """Updates the current span (see `SvcSpan.update`). False when no span is current."""
        current = self._tracing.current_observation()
        if current is None:
            return False
        current.update(input=input, output=output, metadata=metadata, level=level, status_message=status_message)
        return True

    def update_current_generation(self, *, input: Any = None, output: Any = None,
                                  metadata: Mapping[str, Any] | None = None, level: Level | None = None,
                                  status_message: str | None = None, model: str | None = None,
                                  model_parameters: Mapping[str, Any] | None = None, usage: Any = None,
                                  cost: float | Mapping[str, float] | None = None,
                                  completion_start_time: datetime | None = None,
                                  prompt: TextPrompt | ChatPrompt | None = None) -> bool:
        """Updates the current generation (see `SvcGeneration.update`), e.g. inside `@observe(as_type="generation")`.
        False when no span is current."""
        current = self._tracing.current_observation()
        if current is None:
            return False
        current.update(input=input, output=output, metadata=metadata, level=level, status_message=status_message,
                       model=model, model_parameters=model_parameters, usage=usage, cost=cost,
                       completion_start_time=completion_start_time, prompt=prompt)
        return True

    @staticmethod
    def get_current_trace_id() -> str | None:
        """The current trace's id (32 hex digits), or None outside a span."""
        context = trace.get_current_span().get_span_context()
        return format(context.trace_id, "032x") if context.is_valid else None

    @staticmethod
    def get_current_observation_id() -> str | None:
        """The current span's id (16 hex digits), or None outside a span."""
        context = trace.get_current_span().get_span_context()
        return format(context.span_id, "016x") if context.is_valid else None

    @property
    def dropped_spans(self) -> int:
        """Spans that could not be exported (the service unreachable or refusing them); they are not retried."""
        return self._tracing.dropped_spans

    @property
    def exported_spans(self) -> int:
        return self._tracing.exported_spans

    def flush(self, timeout_s: float = 30.0) -> None:
        """Exports every span ended so far; blocks until done or until `timeout_s`. Never raises for export failures."""
        self._tracing.flush(timeout_s)

    def shutdown(self) -> None:
        """Flushes, stops the export thread and closes connections. The client is unusable afterwards."""
        self._tracing.shutdown()
        self._rest.close()
