"""The SDK's version, which follows the service's."""

__version__ = "0.1.0"
