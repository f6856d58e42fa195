"""Download one model's ``config.json`` from the Hugging Face Hub — only that file, with a timeout.

URL: ``{endpoint}/{owner}/{name}/resolve/{revision}/config.json``, the endpoint being ``HF_ENDPOINT``
(the variable huggingface_hub reads; default https://huggingface.co). Offline, blocked, gated, missing
or oversized: one ``InputError`` on ``model_id`` that says which.
"""
from __future__ import annotations

import os
import re
import socket
import urllib.error
import urllib.request

from engine.errors import InputError, quoted
from engine.llm.config import MAX_CONFIG_BYTES

DEFAULT_ENDPOINT = "https://huggingface.co"
TIMEOUT_S = 10.0
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


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


def fetch_config_text(model_id: str, revision: str = "main", timeout_s: float = TIMEOUT_S,
                      endpoint: str | None = None) -> bytes:
    """The bytes of ``config.json`` (at most ``MAX_CONFIG_BYTES``), or an ``InputError`` saying why not."""
    url = config_url(model_id, revision, endpoint)
    request = urllib.request.Request(url, headers={"User-Agent": "FLOPscope (config.json only)"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = response.read(MAX_CONFIG_BYTES + 1)
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise InputError("model_id", f"the Hub refused {quoted(model_id)} (HTTP {exc.code}): a gated or "
                                         "private model; download its config.json yourself and upload it") from None
        if exc.code == 404:
            raise InputError("model_id", f"no config.json for {quoted(model_id)} on the Hub (HTTP 404): "
                                         "check the id") from None
        raise InputError("model_id", f"the Hub answered HTTP {exc.code} for {quoted(model_id)}") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        kind = "timed out" if isinstance(reason, (socket.timeout, TimeoutError)) else "unreachable"
        raise InputError("model_id", f"the Hugging Face Hub is {kind} from this server ({hub_endpoint()}); "
                                     "offline? Download config.json elsewhere and upload it, or pick a model "
                                     "from the library") from None
    if len(body) > MAX_CONFIG_BYTES:
        raise InputError("model_id", f"config.json of {quoted(model_id)} is larger than {MAX_CONFIG_BYTES:,} bytes")
    return body
