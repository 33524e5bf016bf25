"""Drives courier-mock's journal page (/__admin/ui) in headless Chromium over
the DevTools protocol (--remote-debugging-pipe): the page shows a request
made before it opened, then one made while it is open; clicking that near
miss shows the stub it missed and the failed matcher; the stubs panel marks
a required stub nobody hit. Saves a screenshot. Waits on what the page
shows, with a long safety deadline only against a hang.

Usage: admin_ui_check.py BASE_URL SCREENSHOT.png
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

DEADLINE = 60.0


class Browser:
    def __init__(self):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if not binary:
            sys.exit("check-admin-ui: no chromium on PATH (scripts/bootstrap chromium installs it)")
        self.profile = tempfile.mkdtemp(prefix="courier-admin-ui-")
        to_chrome_read, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_write = os.pipe()

        def arrange_fds():
            # Chromium reads commands on fd 3 and writes answers on fd 4. The
            # pipes may already sit on 3 or 4, close-on-exec: copy them above
            # first, then dup2 (which clears close-on-exec) into place.
            read_end, write_end = os.dup(to_chrome_read), os.dup(from_chrome_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--window-size=1400,900",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=arrange_fds)
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        self.next_id = 0
        self.buffer = b""
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    sys.exit(f"check-admin-ui: chromium closed the pipe during {method} "
                             f"(exit code {self.process.poll()})")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    sys.exit(f"check-admin-ui: {method} failed: {answer['error']}")
                return answer.get("result", {})

    def open(self, url):
        target = self.send("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result.get("result", {}).get("value")

    def wait_for(self, what, expression):
        start = time.monotonic()
        while time.monotonic() - start < DEADLINE:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        state = self.evaluate("document.getElementById('status').textContent + ' | ' + "
                              "[...document.querySelectorAll('tr[data-seq]')].map(r => r.textContent).join(' / ')")
        sys.exit(f"check-admin-ui: the page never showed {what}; it showed: {state}")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))

    def close(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def request(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def websocket_frames(base, browser):
    """A WebSocket conversation while the page is open (python3-websockets'
    client): its frames appear in the selected exchange as they are said,
    while the connection is open, and its close handshake after."""
    import asyncio
    import websockets

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        socket = loop.run_until_complete(websockets.connect(base.replace("http", "ws", 1) + "/chat"))
        if loop.run_until_complete(socket.recv()) != "welcome":
            sys.exit("check-admin-ui: the chat stub did not greet")
        loop.run_until_complete(socket.send("hello from the check"))
        if loop.run_until_complete(socket.recv()) != "hello from the check":
            sys.exit("check-admin-ui: the chat stub did not echo")
        browser.wait_for("the WebSocket's row", "document.querySelectorAll('tr[data-seq]').length === 3")
        browser.evaluate("document.querySelector('tr[data-seq=\"3\"]').click()")
        frame_rows = "[...document.querySelectorAll('tr.ws-frame')].map(r => r.textContent).join('\\n')"
        said = browser.wait_for("the frames of the open connection",
                                f"(t => t.includes('hello from the check') && t.split('\\n').length >= 3 && t)({frame_rows})")
        loop.run_until_complete(socket.close(code=1000, reason="done"))
        closed = browser.wait_for("the close handshake",
                                  f"(t => (t.match(/close.*1000/g) || []).length >= 2 && t)({frame_rows})")
        tag = browser.evaluate("document.querySelector('tr[data-seq=\"3\"] .websocket').textContent")
        if not str(tag).startswith("WebSocket · "):
            sys.exit(f"check-admin-ui: the WebSocket's row said {tag!r}")
        return f"{len(closed.splitlines())} frames, {len(said.splitlines())} before the close"
    finally:
        loop.close()


def main():
    base, screenshot = sys.argv[1], sys.argv[2]
    assert request(base, "GET", "/hello") == 200
    browser = Browser()
    try:
        browser.open(base + "/__admin/ui")
        browser.wait_for("the request made before it opened",
                         "document.querySelectorAll('tr[data-seq]').length === 1")
        browser.wait_for("the stubs", "document.querySelectorAll('tr[data-stub]').length === 4")
        # A request while the page is open: a POST whose body the orders stub does not accept.
        assert request(base, "POST", "/orders", {"item": "pen"}) == 404
        browser.wait_for("the new request's row",
                         "document.querySelectorAll('tr[data-seq]').length === 2 && "
                         "document.querySelector('tr[data-seq]').classList.contains('unmatched')")
        browser.evaluate("document.querySelector('tr[data-seq=\"2\"]').click()")
        reason = browser.wait_for(
            "the near miss and its reason",
            "[...document.querySelectorAll('.near-miss')].map(e => e.textContent).join('\\n')")
        if "orders" not in reason or "body" not in reason.lower():
            sys.exit(f"check-admin-ui: the near miss said {reason!r}")
        missed = browser.wait_for(
            "the required stub nobody hit",
            "[...document.querySelectorAll('.missed-required')].map(e => e.textContent).join()")
        if "never" not in missed:
            sys.exit(f"check-admin-ui: the required-stub mark said {missed!r}")
        # The filters: only 404s, then nothing for a path no request had.
        filter_status = ("(value => {{ const f = document.getElementById('filter-status'); f.value = value; "
                         "f.dispatchEvent(new Event('input')); }})('{}')")
        browser.evaluate(filter_status.format("404"))
        browser.wait_for("the status filter", "document.querySelectorAll('tr[data-seq]').length === 1")
        browser.evaluate(filter_status.format(""))
        browser.wait_for("the cleared filter", "document.querySelectorAll('tr[data-seq]').length === 2")
        frames = websocket_frames(base, browser)
        browser.screenshot(screenshot)
        print(f"check-admin-ui: the journal page showed both requests, the near miss ({reason.strip()}), "
              f"the required stub not hit and a WebSocket's frames as they came ({frames}); "
              f"screenshot {screenshot}")
    finally:
        browser.close()


def main_openapi():
    """The page beside a served OpenAPI document: each row names its
    operation, and a request that breaks the document lists its findings."""
    base, screenshot = sys.argv[1], sys.argv[2]
    assert request(base, "GET", "/books?limit=5") == 200
    browser = Browser()
    try:
        browser.open(base + "/__admin/ui")
        browser.wait_for("the valid request", "document.querySelectorAll('tr[data-seq]').length === 1")
        assert request(base, "GET", "/books?genre=cooking&limit=500") == 400
        browser.wait_for("the refused request's row", "document.querySelectorAll('tr[data-seq]').length === 2")
        operations = browser.wait_for(
            "the operation column",
            "[...document.querySelectorAll('tr[data-seq]')].map(r => r.cells[5].textContent).join()")
        if operations != "listBooks,listBooks":
            sys.exit(f"check-admin-ui: the operation column said {operations!r}")
        browser.evaluate("document.querySelector('tr[data-seq=\"2\"]').click()")
        findings = browser.wait_for(
            "the findings",
            "[...document.querySelectorAll('.finding-line')].map(e => e.textContent).join('\\n')")
        for expected in ("schema/enum at /query/genre/0", "schema/maximum at /query/limit"):
            if expected not in findings:
                sys.exit(f"check-admin-ui: the findings said {findings!r}, not {expected!r}")
        browser.screenshot(screenshot)
        print(f"check-admin-ui: the OpenAPI page named the operation and the findings; screenshot {screenshot}")
    finally:
        browser.close()


if __name__ == "__main__":
    main_openapi() if sys.argv[3:] == ["openapi"] else main()
