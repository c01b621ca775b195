"""lsp_client.py - a minimal Language Server Protocol client for the tests
of `kpipe lsp` (tests/cli/lsp.sh runs lsp_test.py, which uses it): starts the
server, sends requests and notifications with Content-Length framing, and
collects what comes back."""

import json
import subprocess
import threading
import queue


class Client:
    def __init__(self, argv, cwd=None, env=None):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.q = queue.Queue()
        self.next_id = 0
        self.notes = []  # notifications and server requests, in order
        threading.Thread(target=self._reader, daemon=True).start()
        self.stderr = b""
        threading.Thread(target=self._err, daemon=True).start()

    def _err(self):
        self.stderr = self.p.stderr.read()

    def _reader(self):
        f = self.p.stdout
        while True:
            n = None
            while True:
                line = f.readline()
                if not line:
                    self.q.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":")[1])
            self.q.put(json.loads(f.read(n)))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def notify(self, method, params=None):
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)

    def _next(self, timeout):
        m = self.q.get(timeout=timeout)
        if m is None:
            raise EOFError("the server closed its output")
        return m

    def request(self, method, params=None, timeout=60):
        self.next_id += 1
        rid = self.next_id
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        while True:
            r = self._next(timeout)
            if r.get("id") == rid and "method" not in r:
                return r
            self.notes.append(r)

    def wait_for(self, method, pred=lambda m: True, timeout=60):
        """The first notification (or server request) `method` matching pred,
        among those already received and then those to come."""
        for i, m in enumerate(self.notes):
            if m.get("method") == method and pred(m):
                return self.notes.pop(i)
        while True:
            m = self._next(timeout)
            if m.get("method") == method and pred(m):
                return m
            self.notes.append(m)

    def close(self, timeout=30):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        return self.p.wait(timeout=timeout)
