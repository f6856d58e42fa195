"""Loading config.json by model id, against a local HTTP server on 127.0.0.1 (never the real Hub)."""
from __future__ import annotations

import contextlib
import http.server
import json
import socket
import sys
import threading
import time

import pytest

from engine.errors import InputError
from engine.llm.config import load_hf_config_text
from engine.llm.hub import config_url, fetch_config_text
from engine.llm.library import library_model

QWEN3 = library_model("qwen3-0.6b").config


QWEN3_PATH = "/Qwen/Qwen3-0.6B/resolve/main/config.json"
RELEASE = threading.Event()
"""Set when the module's tests end: handlers that stall or drip stop then at the latest."""
LATE_S = 2.0
"""What a machine busy with other work may add past a deadline before the waiting thread runs again: the upper
bounds below allow it (the waits they guard against are 30 to 200 s); the lower bounds are exact."""


class _Hub(http.server.BaseHTTPRequestHandler):
    files = {QWEN3_PATH: json.dumps(QWEN3).encode(),
             "/big/model/resolve/main/config.json": b" " * 2_000_000}
    seen: list[str] = []
    protocol_version = "HTTP/1.1"

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _hostile(self) -> bool:
        """The misbehaving servers: drip, stall, flood, redirect. True when the request was one of them."""
        owner = self.path.split("/")[1]
        host, port = self.server.server_address[:2]
        if owner == "drip":  # a valid answer, one byte per 0.2 s
            body = json.dumps(QWEN3).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for byte in body:
                if RELEASE.wait(0.2):
                    return True
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        elif owner == "drip-headers":  # the status line and headers themselves, one byte per 0.2 s
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}":
                if RELEASE.wait(0.2):
                    return True
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        elif owner == "stall":  # accepts, then says nothing
            RELEASE.wait(60)
        elif owner == "flood":  # no length, no end: bytes until the client hangs up
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            while not RELEASE.is_set():
                self.wfile.write(b" " * 65536)
        elif owner == "claims-huge":  # a Content-Length above the cap, then nothing
            self.send_response(200)
            self.send_header("Content-Length", str(10**12))
            self.end_headers()
            RELEASE.wait(60)
        elif owner == "away":  # another host (localhost is not 127.0.0.1's name as the client sees it)
            self._redirect(f"http://localhost:{port}{QWEN3_PATH}")
        elif owner == "elsewhere":  # same host, a path that is not a config.json
            self._redirect("/etc/passwd")
        elif owner == "query":  # same host, config.json with a query
            self._redirect(QWEN3_PATH + "?download=1")
        elif owner == "renamed":  # same host, the repository's new name: followed
            self._redirect(QWEN3_PATH)
        elif owner == "loop":
            self._redirect(self.path)
        else:
            return False
        return True

    def do_GET(self):
        self.seen.append(self.path)
        try:
            if self._hostile():
                return
        except OSError:  # the client hung up, as it should
            return
        if self.path.startswith("/gated/"):
            self.send_response(401)
            self.end_headers()
            return
        if self.path.startswith("/slow/"):
            time.sleep(2)
        body = self.files.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        if body is not None:
            self.wfile.write(body)

    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A client that hung up (the timeout tests do, on purpose) is expected; anything else is printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def local_hub():
    server = _Server(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    RELEASE.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        RELEASE.set()
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
    with pytest.raises(InputError, match=r"^model_id: the Hugging Face Hub timed out: config.json of 'slow/model' "
                                         r"did not arrive within 0.3 s"):
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


@pytest.mark.parametrize("owner", ["drip", "drip-headers", "stall", "claims-huge-late"])
def test_the_whole_download_has_one_deadline(hub, owner):
    """A server that drips a byte per 0.2 s keeps every socket read short, yet the download of a ~1 kB file
    must end at the deadline (1.5 s), not after ~200 s; so must one that stalls."""
    model_id = f"{owner}/model"
    start = time.monotonic()
    with pytest.raises(InputError) as info:
        fetch_config_text(model_id, endpoint=hub, timeout_s=1.5)
    elapsed = time.monotonic() - start
    if owner == "claims-huge-late":  # an unknown owner: an ordinary 404, quickly
        assert "HTTP 404" in str(info.value) and elapsed < 1.5 + LATE_S
        return
    assert str(info.value).startswith(f"model_id: the Hugging Face Hub timed out: config.json of '{model_id}' "
                                      "did not arrive within 1.5 s")
    assert "\n" not in str(info.value)
    assert 1.4 <= elapsed < 1.5 + LATE_S, elapsed


@pytest.mark.parametrize("owner", ["flood", "claims-huge"])
def test_too_much_is_refused_at_the_cap(hub, owner):
    """Endless bytes without a length, or a length above 1,000,000: refused at the cap, well within the
    deadline (the flood stops being read after 1,000,001 bytes)."""
    start = time.monotonic()
    with pytest.raises(InputError, match=rf"^model_id: config.json of '{owner}/model' is larger than "
                                         r"1,000,000 bytes$"):
        fetch_config_text(f"{owner}/model", endpoint=hub, timeout_s=5)
    assert time.monotonic() - start < 5 + LATE_S


@pytest.mark.parametrize("owner", ["away", "elsewhere", "query"])
def test_redirects_off_the_hub_file_are_not_followed(hub, owner):
    _Hub.seen.clear()
    with pytest.raises(InputError, match=rf"^model_id: the Hub redirected the download of '{owner}/model' to "
                                         r"another address; not followed"):
        fetch_config_text(f"{owner}/model", endpoint=hub, timeout_s=5)
    assert _Hub.seen == [f"/{owner}/model/resolve/main/config.json"]  # the target was never asked for


def test_a_renamed_repository_is_followed_on_the_same_host(hub):
    _Hub.seen.clear()
    assert json.loads(fetch_config_text("renamed/model", endpoint=hub)) == QWEN3
    assert _Hub.seen == ["/renamed/model/resolve/main/config.json", QWEN3_PATH]


def test_redirect_loops_stop(hub):
    _Hub.seen.clear()
    with pytest.raises(InputError, match=r"^model_id: the Hub redirected the download of 'loop/model' more "
                                         r"than 3 times; not followed$"):
        fetch_config_text("loop/model", endpoint=hub, timeout_s=5)
    assert len(_Hub.seen) == 4


@pytest.fixture
def slow_resolver(monkeypatch):
    """A name server that takes 30 s to answer (released when the test ends); the names asked for."""
    asked, release = [], threading.Event()

    def getaddrinfo(host, *args, **kwargs):
        asked.append(host)
        release.wait(30)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield asked
    release.set()
    ends = time.monotonic() + 5
    while any(t.name == "hub-dns" for t in threading.enumerate()) and time.monotonic() < ends:
        time.sleep(0.01)  # the lookups left behind have given their places back


def test_the_deadline_covers_the_name_lookup(slow_resolver):
    """A DNS server that does not answer: the download still ends at its deadline (1 s) with the one timeout
    line; before, the caller waited for the system resolver (here 30 s)."""
    start = time.monotonic()
    with pytest.raises(InputError) as info:
        fetch_config_text("Qwen/Qwen3-0.6B", endpoint="http://hub.example.test", timeout_s=1.0)
    elapsed = time.monotonic() - start
    assert slow_resolver == ["hub.example.test"]
    assert str(info.value) == ("model_id: the Hugging Face Hub timed out: config.json of 'Qwen/Qwen3-0.6B' did not "
                               "arrive within 1 s from http://hub.example.test; download it elsewhere and upload "
                               "it, or pick a model from the library")
    assert 0.9 <= elapsed < 1.0 + LATE_S, elapsed


def test_pending_lookups_are_bounded_and_each_download_keeps_its_deadline(slow_resolver):
    """More downloads than MAX_LOOKUPS (8) behind a silent name server: each ends at its own 0.5 s deadline,
    and no more than 8 lookups are ever pending."""
    from engine.llm import hub as hub_module

    for _ in range(hub_module.MAX_LOOKUPS + 3):
        start = time.monotonic()
        with pytest.raises(InputError, match=r"^model_id: the Hugging Face Hub timed out"):
            fetch_config_text("Qwen/Qwen3-0.6B", endpoint="http://hub.example.test", timeout_s=0.5)
        assert time.monotonic() - start < 0.5 + LATE_S
    assert len(slow_resolver) == hub_module.MAX_LOOKUPS


def test_a_name_that_does_not_resolve_is_unreachable(monkeypatch):
    def getaddrinfo(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    with pytest.raises(InputError, match=r"^model_id: the Hugging Face Hub is unreachable from this server "
                                         r"\(http://hub.example.test\); offline\?"):
        fetch_config_text("Qwen/Qwen3-0.6B", endpoint="http://hub.example.test", timeout_s=2)


def test_a_host_name_is_resolved_and_connected(hub):
    """``localhost`` goes through the lookup (and, where it answers ::1 first, on to 127.0.0.1)."""
    port = hub.rsplit(":", 1)[1]
    assert json.loads(fetch_config_text("Qwen/Qwen3-0.6B", endpoint=f"http://localhost:{port}")) == QWEN3
