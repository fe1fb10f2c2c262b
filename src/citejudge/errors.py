"""Domain exceptions. The CLI turns them into one line and a non-zero exit."""

from __future__ import annotations

__all__ = [
    "BackendUnavailableError",
    "CitejudgeError",
    "ConfigError",
    "IndexError_",
    "InputError",
    "MissingDependencyError",
]


class CitejudgeError(Exception):
    """Base class of every error citejudge raises on purpose.

    ``hint`` tells the user what to do next; the CLI prints it after the message.
    """

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint on one line, for the CLI."""
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


class ConfigError(CitejudgeError):
    """A configuration or usage error."""


class InputError(CitejudgeError):
    """Unusable input (a file that does not exist, an unreadable source)."""


class IndexError_(CitejudgeError):
    """The index is missing, corrupt or of another schema version."""


class MissingDependencyError(CitejudgeError):
    """An optional dependency is not installed; the hint names the install command."""


class BackendUnavailableError(CitejudgeError):
    """The model backend cannot run at all (its engine failed to start): fatal, never per item."""
