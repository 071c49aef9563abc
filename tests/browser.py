"""Headless Chromium driven over the DevTools protocol, for the book's browser checks and the page-load benchmark.

Only the standard library: a local HTTP server for a built book (:func:`serve`), Debian's ``/usr/bin/chromium``
started headless with software WebGL (:class:`Chromium`), and a minimal WebSocket client for the DevTools protocol.
Nothing here reaches the network: the browser runs with background networking, component updates and sync off, and
reads only what the local server serves.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

__all__ = ["CHROMIUM_FLAGS", "chromium_path", "serve", "Chromium", "DevToolsError", "page_weight"]

# The flags every run uses (tests and benchmark alike). SwiftShader is Chromium's software WebGL: this Chromium no
# longer falls back to it on its own, so it is asked for explicitly.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--hide-scrollbars",
    "--mute-audio",
)


def chromium_path() -> str | None:
    """Debian's Chromium (``/usr/bin/chromium``), or whatever ``chromium`` is on PATH; None when there is none.

    Returns
    -------
    str or None
        The executable's path.

    Examples
    --------
    >>> found = chromium_path()
    >>> found is None or (os.access(found, os.X_OK) and "chromium" in found)
    True
    """
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder and adds up the bytes of every response body it sends (``server.bytes_sent``)."""

    def log_message(self, *args):  # quiet
        pass

    def send_error(self, code, message=None, explain=None):
        with self.server.lock:
            self.server.errors.append((self.path, code))
        super().send_error(code, message, explain)

    def copyfile(self, source, outputfile):
        data = source.read()
        outputfile.write(data)
        with self.server.lock:
            self.server.bytes_sent += len(data)
            self.server.requests.append((self.path, len(data)))


@contextlib.contextmanager
def serve(directory: str | os.PathLike) -> Iterator[http.server.ThreadingHTTPServer]:
    """Serve ``directory`` on 127.0.0.1 (a free port) for the ``with`` block; yields the server, whose ``url`` is
    its address, whose ``bytes_sent`` / ``requests`` count what was served (reset them between pages) and whose
    ``errors`` lists the requests it could not answer.

    Parameters
    ----------
    directory : str or os.PathLike
        The folder to serve (a built book's ``_build/html``).

    Returns
    -------
    contextlib.AbstractContextManager
        Yields the running :class:`http.server.ThreadingHTTPServer`, with ``url``, ``bytes_sent``, ``requests`` and
        ``errors``; the server stops at the end of the block.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "page.html").write_text("<p>hello</p>")
    ...     with serve(folder) as server:
    ...         body = urllib.request.urlopen(f"{server.url}/page.html").read()
    ...         try:
    ...             urllib.request.urlopen(f"{server.url}/missing.html")
    ...         except OSError:
    ...             pass
    ...     print(body, [(path, int(status)) for path, status in server.errors])
    b'<p>hello</p>' [('/missing.html', 404)]
    """
    handler = functools.partial(_CountingHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.lock = threading.Lock()
    server.bytes_sent = 0
    server.requests = []
    server.errors = []  # (path, HTTP status) of every request answered with an error, e.g. a missing file
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def page_weight(page: str, requests: list[tuple[str, int]]) -> dict[str, int]:
    """The bytes that loading ``page`` transferred, by kind, from the ``requests`` (path, bytes) the server answered:
    ``html`` (the page itself), ``plotly`` (plotly.js), ``figure_data`` (the figures' data, ``_figures/``), ``images``
    (``_images/``), ``search_index`` (``searchindex.js``, which the search page loads) and ``shared`` (everything else:
    the style sheets, scripts and fonts that every page loads), and ``plotly_loads``, how many times plotly.js was
    requested.

    Parameters
    ----------
    page : str
        The page's path relative to the book's root (``notebooks/05_confusion_tsne.html``).
    requests : list of (str, int)
        Each request's path (as the server saw it, with its query) and the bytes of its body.

    Returns
    -------
    dict
        Bytes per kind, and ``plotly_loads``.

    Examples
    --------
    >>> page_weight("notebooks/a.html", [("/notebooks/a.html", 900), ("/_static/basic.css?v=1", 40),
    ...                                  ("/_static/plotly.min.js", 7000), ("/_figures/notebooks/a.js", 300),
    ...                                  ("/_images/x.png", 50)])
    {'html': 900, 'shared': 40, 'plotly': 7000, 'figure_data': 300, 'images': 50, 'search_index': 0, 'plotly_loads': 1}
    """
    weight = dict.fromkeys(("html", "shared", "plotly", "figure_data", "images", "search_index", "plotly_loads"), 0)
    for path, size in requests:
        path = path.split("?", 1)[0].split("#", 1)[0].lstrip("/")
        kind = (
            "html"
            if path == page
            else "plotly"
            if path == "_static/plotly.min.js"
            else "figure_data"
            if path.startswith("_figures/")
            else "images"
            if path.startswith("_images/")
            else "search_index"
            if path == "searchindex.js"
            else "shared"
        )
        weight[kind] += size
        weight["plotly_loads"] += kind == "plotly"
    return weight


class DevToolsError(RuntimeError):
    """The DevTools protocol answered with an error, or a page script threw.

    Parameters
    ----------
    message : str
        The protocol's error, or the script's exception.

    Examples
    --------
    >>> issubclass(DevToolsError, RuntimeError), str(DevToolsError("ReferenceError: x is not defined"))
    (True, 'ReferenceError: x is not defined')
    """


class _WebSocket:
    """The client side of RFC 6455, just enough for the DevTools protocol (text frames, no extensions)."""

    def __init__(self, url: str, timeout: float):
        assert url.startswith("ws://")
        host_port, _, path = url[len("ws://") :].partition("/")
        host, _, port = host_port.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the connection during the handshake")
            response += chunk
        head, _, self._buffer = response.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"DevTools refused the WebSocket: {head[:200]!r}")

    def _read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self._buffer)))
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytearray([0x81])  # FIN + text
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        header += mask
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(header) + masked)

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            opcode, n = first & 0x0F, second & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the connection")
            if opcode == 0x9:  # ping: answer with a pong
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    return message.decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class Chromium:
    """A headless Chromium with one page, driven over the DevTools protocol.

    Use as a context manager; each instance has its own fresh profile (no cache carried over), so every page load
    transfers everything it needs::

        with serve("_build/html") as server, Chromium() as browser:
            browser.navigate(f"{server.url}/intro.html")
            browser.evaluate("document.title")

    Parameters
    ----------
    width, height : int
        The window's size in CSS pixels.
    timeout : float
        Seconds allowed for the browser to start and for each page load or script.
    executable : str, optional
        The browser; by default :func:`chromium_path`.

    Raises
    ------
    FileNotFoundError
        When no Chromium is found.
    """

    def __init__(self, width: int = 1280, height: int = 1000, timeout: float = 120.0, executable: str | None = None):
        self.width, self.height, self.timeout = width, height, timeout
        self.executable = executable or chromium_path()
        if self.executable is None:
            raise FileNotFoundError("no Chromium found (Debian package `chromium`)")
        self._next_id = 0
        self._events: list[dict] = []

    def __enter__(self) -> "Chromium":
        self._profile = tempfile.TemporaryDirectory(prefix="regemb-chromium-")
        profile = Path(self._profile.name)
        self._process = subprocess.Popen(
            [
                self.executable,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                f"--window-size={self.width},{self.height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group
        )
        try:
            port_file = profile / "DevToolsActivePort"
            deadline = time.monotonic() + self.timeout
            while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
                if self._process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("Chromium did not start its DevTools endpoint")
                time.sleep(0.05)
            port = int(port_file.read_text().split("\n")[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=self.timeout) as response:
                pages = [t for t in json.load(response) if t["type"] == "page"]
            self._ws = _WebSocket(pages[0]["webSocketDebuggerUrl"], self.timeout)
            self.call("Page.enable")
            self.call("Runtime.enable")
            self.call(
                "Emulation.setDeviceMetricsOverride",
                width=self.width,
                height=self.height,
                deviceScaleFactor=1,
                mobile=False,
            )
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if getattr(self, "_ws", None) is not None:
            self._ws.close()
        # Chromium's helpers (zygote, crashpad, GPU and utility processes) may outlive the browser process and keep
        # writing into the profile: end the whole process group before removing it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, 15)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, 9)
        self._process.wait()
        self._profile.cleanup()

    # -- protocol ---------------------------------------------------------------------------------------------------
    def call(self, method: str, **params):
        """Send one DevTools command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        ident = self._next_id
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.receive())
            if message.get("id") == ident:
                if "error" in message:
                    raise DevToolsError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._events.append(message)

    def wait_for_event(self, method: str, timeout: float | None = None) -> dict:
        """The first kept or arriving event named ``method`` (consumed)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, event in enumerate(self._events):
                if event["method"] == method:
                    return self._events.pop(i)["params"]
            self._ws.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                message = json.loads(self._ws.receive())
            except socket.timeout:
                raise TimeoutError(f"no {method} within the time limit") from None
            finally:
                self._ws.sock.settimeout(self.timeout)
            if "method" in message:
                self._events.append(message)

    # -- conveniences -----------------------------------------------------------------------------------------------
    def record(self) -> None:
        """Start recording what the console and the network show (for :meth:`recorded_problems`)."""
        self.call("Log.enable")
        self.call("Network.enable")
        self._events.clear()

    def recorded_problems(self, origin: str) -> list[str]:
        """What the console and network showed since :meth:`record`: uncaught exceptions, ``console.error`` calls,
        errors the browser logs, responses with status 400 or more, and requests to any address outside ``origin``
        (``data:`` and ``blob:`` URLs are the page's own)."""
        self.call("Runtime.evaluate", expression="0")  # collects the events that arrived meanwhile
        found = []
        for event in self._events:
            method, params = event["method"], event["params"]
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append(f"exception: {details.get('exception', {}).get('description') or details['text']}")
            elif method == "Runtime.consoleAPICalled" and params["type"] == "error":
                found.append(
                    "console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
                )
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"logged error: {params['entry']['text']} {params['entry'].get('url', '')}".strip())
            elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
                found.append(f"status {params['response']['status']}: {params['response']['url']}")
            elif method == "Network.requestWillBeSent" and not params["request"]["url"].startswith(
                (origin, "data:", "blob:")
            ):
                found.append(f"outside request: {params['request']['url']}")
        self._events.clear()
        return sorted(set(found))

    def add_script_on_new_document(self, source: str) -> None:
        """Run ``source`` in every page before the page's own scripts."""
        self.call("Page.addScriptToEvaluateOnNewDocument", source=source)

    def navigate(self, url: str, timeout: float | None = None) -> None:
        """Open ``url`` and wait for its load event."""
        self._events = [e for e in self._events if e["method"] != "Page.loadEventFired"]
        result = self.call("Page.navigate", url=url)
        if result.get("errorText"):
            raise DevToolsError(f"navigating to {url}: {result['errorText']}")
        self.wait_for_event("Page.loadEventFired", timeout)

    def evaluate(self, expression: str, await_promise: bool = False, timeout: float | None = None):
        """The JSON value of a JavaScript expression in the page (a promise is awaited with ``await_promise``)."""
        result = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=await_promise,
            timeout=int(1000 * (timeout or self.timeout)),
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise DevToolsError(f"page script failed: {text}")
        return result["result"].get("value")
