"""svc SDK: prompts, datasets and scores over the public API, OpenTelemetry tracing to the service, and OpenAI clients
linked to the svc gateway. Reference: docs/sdks/python.md."""

from .client import Svc
from .datasets import Dataset, DatasetItem, DatasetRun, DatasetRunItem
from .default_client import get_client, set_client
from .errors import (
    ApiError,
    AuthenticationError,
    ConfigError,
    ForbiddenError,
    NotFoundError,
    RateLimitError,
    ServerError,
    SvcError,
    UnreachableError,
)
from .gateway import async_openai_client, gateway_headers, openai_client
from .observe_decorator import observe
from .prompt import ChatPrompt, Prompt, TextPrompt
from .scores import Score
from .tracing.observation import SvcGeneration, SvcSpan
from .version import __version__

__all__ = [
    "ApiError",
    "AuthenticationError",
    "ChatPrompt",
    "ConfigError",
    "Dataset",
    "DatasetItem",
    "DatasetRun",
    "DatasetRunItem",
    "ForbiddenError",
    "NotFoundError",
    "Prompt",
    "RateLimitError",
    "Score",
    "ServerError",
    "Svc",
    "SvcError",
    "SvcGeneration",
    "SvcSpan",
    "TextPrompt",
    "UnreachableError",
    "__version__",
    "async_openai_client",
    "gateway_headers",
    "get_client",
    "observe",
    "openai_client",
    "set_client",
]
