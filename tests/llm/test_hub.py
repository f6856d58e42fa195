"""Loading config.json by model id, against a local HTTP server on 127.0.0.1 (never the real Hub)."""
from __future__ import annotations

import contextlib
import http.server
import json
import socket
import threading
import time

import pytest

from engine.errors import InputError
from engine.llm.config import load_hf_config_text
from engine.llm.hub import config_url, fetch_config_text
from engine.llm.library import library_model

QWEN3 = library_model("qwen3-0.6b").config


class _Hub(http.server.BaseHTTPRequestHandler):
    files = {"/Qwen/Qwen3-0.6B/resolve/main/config.json": json.dumps(QWEN3).encode(),
             "/big/model/resolve/main/config.json": b" " * 2_000_000}
    seen: list[str] = []

    def do_GET(self):
        self.seen.append(self.path)
        if self.path.startswith("/gated/"):
            self.send_response(401)
            self.end_headers()
            return
        if self.path.startswith("/slow/"):
            time.sleep(2)
        body = self.files.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.end_headers()
        if body is not None:
            self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def local_hub():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def hub():
    with local_hub() as url:
        yield url


def test_downloads_only_config_json(hub):
    _Hub.seen.clear()
    text = fetch_config_text("Qwen/Qwen3-0.6B", endpoint=hub)
    assert _Hub.seen == ["/Qwen/Qwen3-0.6B/resolve/main/config.json"]
    assert load_hf_config_text(text).architecture_name == "Qwen3ForCausalLM"


def test_endpoint_from_hf_endpoint(hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", hub + "/")
    assert config_url("a/b") == f"{hub}/a/b/resolve/main/config.json"
    assert json.loads(fetch_config_text("Qwen/Qwen3-0.6B")) == QWEN3


@pytest.mark.parametrize("model_id,needle", [
    ("no/such-model", "no config.json for 'no/such-model' on the Hub (HTTP 404)"),
    ("gated/llama", "the Hub refused 'gated/llama' (HTTP 401)"),
    ("big/model", "larger than 1,000,000 bytes"),
])
def test_hub_answers(hub, model_id, needle):
    with pytest.raises(InputError) as info:
        fetch_config_text(model_id, endpoint=hub)
    assert str(info.value).startswith("model_id: ") and needle in str(info.value)


def test_timeout_and_offline_say_so(hub):
    with pytest.raises(InputError, match=r"^model_id: the Hugging Face Hub is timed out"):
        fetch_config_text("slow/model", endpoint=hub, timeout_s=0.3)
    with contextlib.closing(socket.socket()) as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(InputError, match=r"^model_id: the Hugging Face Hub is unreachable .*offline\?"):
        fetch_config_text("Qwen/Qwen3-0.6B", endpoint=closed, timeout_s=2)


@pytest.mark.parametrize("model_id", ["", "llama", "a/b/c", "../etc/passwd", "a/..", "x/y?z=1", "a b/c",
                                      "<script>/x", "a/" + "b" * 200])
def test_bad_ids_never_reach_the_network(model_id):
    with pytest.raises(InputError, match=r"^model_id: .* is not a Hub model id"):
        config_url(model_id, endpoint="http://127.0.0.1:9")
