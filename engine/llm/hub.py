"""Download one model's ``config.json`` from the Hugging Face Hub — only that file, within one deadline.

URL: ``{endpoint}/{owner}/{name}/resolve/{revision}/config.json``, the endpoint being ``HF_ENDPOINT``
(the variable huggingface_hub reads; default https://huggingface.co). The whole download (connect, headers,
body, redirects) must finish within ``timeout_s`` seconds: the host name is resolved in a worker thread that
is waited on for the time left (the system resolver cannot be interrupted, so a slow DNS server leaves that
thread behind, not the caller), and a watchdog closes the connection at the deadline, so a server that drips
one byte at a time cannot hold it longer. A redirect is followed only to the same
scheme and host and to a path that still names a ``config.json`` (a renamed repository), at most
``MAX_REDIRECTS`` times; anywhere else is refused. The body is at most ``MAX_CONFIG_BYTES``. Offline,
blocked, gated, missing, redirected away, too slow or oversized: one ``InputError`` on ``model_id``.
"""
from __future__ import annotations

import http.client
import os
import re
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request

from ..errors import InputError, quoted
from .config import MAX_CONFIG_BYTES

DEFAULT_ENDPOINT = "https://huggingface.co"
TIMEOUT_S = 10.0
MAX_REDIRECTS = 3
MAX_LOOKUPS = 8
"""Name lookups that may be pending at once (each a daemon thread); past that, a download waits for a free one
within its own deadline."""
_LOOKUPS = threading.BoundedSemaphore(MAX_LOOKUPS)
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SAME_SITE_PATH = re.compile(r"(/[A-Za-z0-9._-]{1,100}){1,8}/config\.json")
"""A redirect target's path on the Hub's own host: plain segments ending in config.json, no query, no '..'."""


def hub_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def config_url(model_id: str, revision: str = "main", endpoint: str | None = None) -> str:
    """The address of ``config.json`` for ``owner/name``; ``InputError`` for anything else."""
    model_id = model_id.strip()
    if not _MODEL_ID.fullmatch(model_id) or ".." in model_id:
        raise InputError("model_id", f"{quoted(model_id)} is not a Hub model id (owner/name, e.g. "
                                     "Qwen/Qwen3-8B)")
    if not _REVISION.fullmatch(revision) or ".." in revision:
        raise InputError("revision", f"{quoted(revision)} is not a branch, tag or commit")
    return f"{endpoint or hub_endpoint()}/{model_id}/resolve/{revision}/config.json"


class _Deadline(Exception):
    """The whole download ran past its deadline."""


class _Fetch:
    """One GET (no redirects) bounded by an absolute deadline: each socket wait is at most the time left,
    and a watchdog shuts the socket at the deadline whatever it is doing."""

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.sock: socket.socket | None = None

    def left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Deadline
        return left

    def resolve(self, host: str, port: int) -> list[tuple]:
        """``socket.getaddrinfo(host, port)`` for at most the time left: ``_Deadline`` when it does not answer."""
        if not _LOOKUPS.acquire(timeout=self.left()):
            raise _Deadline
        answer: list = []
        done = threading.Event()

        def lookup() -> None:
            try:
                answer.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
            except OSError as exc:
                answer.append(exc)
            finally:
                _LOOKUPS.release()
                done.set()

        threading.Thread(target=lookup, name="hub-dns", daemon=True).start()
        if not done.wait(self.left()):
            raise _Deadline
        if isinstance(answer[0], OSError):
            raise answer[0]
        return answer[0]

    def connect(self, address: tuple[str, int], timeout=None, source_address=None) -> socket.socket:
        """``socket.create_connection`` with the lookup and every connect attempt bounded by the deadline
        (http.client calls it as ``_create_connection``)."""
        host, port = address
        error: OSError = OSError(f"no address for {host}")
        for family, kind, proto, _, where in self.resolve(host, port):
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(self.left())
                sock.connect(where)
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error

    def _expire(self) -> None:
        sock = self.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def get(self, url: str) -> tuple[int, dict[str, str], bytes]:
        parts = urllib.parse.urlsplit(url)
        proxy = _proxy_for(parts)
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(
                proxy.hostname if proxy else parts.hostname, proxy.port if proxy else parts.port,
                timeout=self.left(), context=ssl.create_default_context())
            if proxy:
                connection.set_tunnel(parts.hostname, parts.port)
            target = parts.path
        else:
            connection = http.client.HTTPConnection(
                proxy.hostname if proxy else parts.hostname, (proxy.port if proxy else parts.port),
                timeout=self.left())
            target = url if proxy else parts.path
        connection._create_connection = self.connect
        watchdog = threading.Timer(self.left(), self._expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            connection.connect()
            self.sock = connection.sock  # kept: http.client drops its own reference on "Connection: close"
            self.sock.settimeout(self.left())
            connection.request("GET", target, headers={"User-Agent": "FLOPscope (config.json only)",
                                                            "Accept-Encoding": "identity"})
            response = connection.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            if response.status != 200:
                return response.status, headers, b""
            length = headers.get("content-length", "")
            if length.isdigit() and int(length) > MAX_CONFIG_BYTES:
                return response.status, headers, b" " * (MAX_CONFIG_BYTES + 1)
            body = bytearray()
            while len(body) <= MAX_CONFIG_BYTES:
                self.sock.settimeout(self.left())
                chunk = response.read1(min(65536, MAX_CONFIG_BYTES + 1 - len(body)))
                if not chunk:
                    break
                body += chunk
            self.left()
            return response.status, headers, bytes(body)
        except (OSError, http.client.HTTPException):
            if time.monotonic() >= self.deadline:
                raise _Deadline from None
            raise
        finally:
            watchdog.cancel()
            connection.close()
            if self.sock is not None:
                self.sock.close()
            self.sock = None


def _proxy_for(parts: urllib.parse.SplitResult) -> urllib.parse.SplitResult | None:
    """The proxy the environment names for this address (``https_proxy``, ``no_proxy``), if any."""
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.parse.urlsplit(proxy if "://" in proxy else "http://" + proxy)


def _allowed_redirect(origin: str, location: str) -> str | None:
    """The absolute target of a redirect if it stays on the origin's scheme and host and names a
    config.json; None otherwise."""
    target = urllib.parse.urlsplit(urllib.parse.urljoin(origin, location))
    here = urllib.parse.urlsplit(origin)
    if (target.scheme, target.netloc) != (here.scheme, here.netloc) or target.query or target.fragment:
        return None
    if not _SAME_SITE_PATH.fullmatch(target.path) or ".." in target.path:
        return None
    return target.geturl()


def fetch_config_text(model_id: str, revision: str = "main", timeout_s: float = TIMEOUT_S,
                      endpoint: str | None = None) -> bytes:
    """The bytes of ``config.json`` (at most ``MAX_CONFIG_BYTES``) within ``timeout_s`` seconds in all,
    or an ``InputError`` saying why not."""
    url = config_url(model_id, revision, endpoint)
    shown = hub_endpoint() if endpoint is None else endpoint
    fetch = _Fetch(time.monotonic() + timeout_s)
    try:
        for _ in range(MAX_REDIRECTS + 1):
            status, headers, body = fetch.get(url)
            if status not in (301, 302, 303, 307, 308):
                break
            target = _allowed_redirect(url, headers.get("location", ""))
            if target is None:
                raise InputError("model_id", f"the Hub redirected the download of {quoted(model_id)} to another "
                                             "address; not followed (only config.json on the Hub itself is "
                                             "downloaded) — download config.json yourself and upload it")
            url = target
        else:
            raise InputError("model_id", f"the Hub redirected the download of {quoted(model_id)} more than "
                                         f"{MAX_REDIRECTS} times; not followed")
    except InputError:
        raise
    except _Deadline:
        raise InputError("model_id", f"the Hugging Face Hub timed out: config.json of {quoted(model_id)} did "
                                     f"not arrive within {timeout_s:g} s from {shown}; download it elsewhere and "
                                     "upload it, or pick a model from the library") from None
    except (OSError, http.client.HTTPException, ValueError):
        raise InputError("model_id", f"the Hugging Face Hub is unreachable from this server ({shown}); "
                                     "offline? Download config.json elsewhere and upload it, or pick a model "
                                     "from the library") from None
    if status in (401, 403):
        raise InputError("model_id", f"the Hub refused {quoted(model_id)} (HTTP {status}): a gated or "
                                     "private model; download its config.json yourself and upload it")
    if status == 404:
        raise InputError("model_id", f"no config.json for {quoted(model_id)} on the Hub (HTTP 404): check the id")
    if status != 200:
        raise InputError("model_id", f"the Hub answered HTTP {status} for {quoted(model_id)}")
    if len(body) > MAX_CONFIG_BYTES:
        raise InputError("model_id", f"config.json of {quoted(model_id)} is larger than {MAX_CONFIG_BYTES:,} bytes")
    return body
