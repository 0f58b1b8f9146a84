"""Small JSON requests to a llama.cpp server on 127.0.0.1 (``/health``, ``/slots``).

Chat requests do not come here (they go through the ``openai`` SDK); this is the daemon's and
the clients' housekeeping. Proxies from the environment are ignored: the server is loopback.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Protocol

__all__ = ["Http", "UrllibHttp", "HttpFailure"]


class HttpFailure(Exception):
    """The request failed: no answer, a non-2xx status, or a body that is not JSON."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Http(Protocol):
    def get(self, url: str, *, timeout: float) -> Any: ...

    def post(self, url: str, body: Any, *, timeout: float) -> Any: ...


class UrllibHttp:
    """:class:`Http` over the standard library."""

    def __init__(self) -> None:
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def get(self, url: str, *, timeout: float) -> Any:
        return self._send(urllib.request.Request(url), timeout)

    def post(self, url: str, body: Any, *, timeout: float) -> Any:
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        return self._send(request, timeout)

    def _send(self, request: urllib.request.Request, timeout: float) -> Any:
        try:
            with self._opener.open(request, timeout=timeout) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace")
            raise HttpFailure(f"{request.full_url} answered {exc.code}: {detail}", exc.code) from exc
        except (OSError, ValueError) as exc:
            raise HttpFailure(f"{request.full_url}: {exc}") from exc
