"""Why a download stopped: each error carries a translatable :class:`Message` naming the file,
the server and what to do (a mirror for a network failure, space for a full disk), so the CLI and
the window show the same sentence in the student's language.
"""

from __future__ import annotations

from wizard.core.base.i18n import Message, msg
from wizard.core.install.failure_kind import MISSING_FILE_REASONS, MISSING_FILE_STATUSES


class DownloadError(Exception):
    """A download that cannot go on. ``message`` is a translatable :class:`Message`."""

    kind = "error"

    def __init__(self, message: Message, filename: str | None = None) -> None:
        super().__init__(message.text("en"))
        self.message = message
        self.filename = filename


class NetworkError(DownloadError):
    """The server could not be reached (or kept failing). Names the host; suggests a mirror."""

    kind = "network"

    def __init__(self, host: str, url: str, detail: str, filename: str | None = None) -> None:
        super().__init__(msg("install.error.network", host=host, detail=detail), filename)
        self.host = host
        self.url = url
        self.detail = detail


class HttpStatusError(DownloadError):
    """The server answered the file's request with an error status. 404, 403 and 410 mean the
    index lists a file it does not serve (kind ``missing-file``: a mirror that is incomplete or
    being changed -- the server was reached, so it is not a connection problem); any other
    status keeps the kind ``http``."""

    kind = "http"

    def __init__(self, host: str, url: str, status: int, filename: str | None = None) -> None:
        missing = status in MISSING_FILE_STATUSES
        key = "install.error.missing_file" if missing else "install.error.http"
        super().__init__(msg(key, host=host, status=status, file=filename or url), filename)
        if missing:
            self.kind = MISSING_FILE_REASONS[0]
        self.host = host
        self.url = url
        self.status = status


class HashMismatch(DownloadError):
    """The file's sha256 differs from the index's, twice. The file has been deleted."""

    kind = "hash"

    def __init__(self, filename: str, expected: str, actual: str, host: str) -> None:
        super().__init__(msg("install.error.hash", file=filename, expected=expected, actual=actual, host=host),
                         filename)
        self.expected = expected
        self.actual = actual
        self.host = host


class DiskFullError(DownloadError):
    kind = "disk"

    def __init__(self, folder: str, filename: str) -> None:
        super().__init__(msg("install.error.disk_full", folder=folder, file=filename), filename)
        self.folder = folder


class ResumeUnsupported(DownloadError):
    """The server answers a ``Range`` request with the whole file (as ``python -m http.server``
    and many mirrors do), and the connection broke again before the file was complete. Every
    retry starts again from byte 0, so retrying more would only fetch the same bytes again:
    the download stops and says why, instead of looping for ever."""

    kind = "no-resume"

    def __init__(self, host: str, url: str, filename: str, fetched: int, size: int | None, restarts: int) -> None:
        from wizard.core.install.plan import format_bytes

        super().__init__(msg("install.error.no_resume", host=host, file=filename, fetched=format_bytes(fetched),
                             size=format_bytes(size), restarts=restarts), filename)
        self.host = host
        self.url = url
        self.fetched = fetched
        self.size = size
        self.restarts = restarts


class DownloadGaveUp(DownloadError):
    """The file's budget is spent -- bytes over the network or connections -- and it is still not
    complete: the link keeps breaking. What arrived stays in the partial file for the next try."""

    kind = "network"

    def __init__(self, host: str, url: str, filename: str, fetched: int, size: int | None, attempts: int) -> None:
        from wizard.core.install.plan import format_bytes

        super().__init__(msg("install.error.gave_up", host=host, file=filename, fetched=format_bytes(fetched),
                             size=format_bytes(size), attempts=attempts), filename)
        self.host = host
        self.url = url
        self.fetched = fetched
        self.size = size
        self.attempts = attempts


class DownloadCancelled(DownloadError):
    kind = "cancelled"

    def __init__(self) -> None:
        super().__init__(msg("install.cancelled"))


__all__ = ["DownloadError", "NetworkError", "HttpStatusError", "HashMismatch", "DiskFullError", "DownloadCancelled",
           "DownloadGaveUp", "ResumeUnsupported"]
