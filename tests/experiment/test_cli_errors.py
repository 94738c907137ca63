"""One-line errors of ``certify experiment`` for a wrong base URL and unusable export paths (issue 16)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from certify.experiment import CallRecord, EndpointError, RunStore, export_bits
from exp_helpers import BUILTIN_DATASET, cli, policy, write_config


class _HtmlHandler(BaseHTTPRequestHandler):
    """A web page where an API was expected: every GET answers 200 with HTML."""

    def log_message(self, *a):
        pass

    def do_GET(self):  # noqa: N802
        data = b"<!doctype html><html><body>Welcome</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def html_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _HtmlHandler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("kind, path, model", [("openai", "/models", "m"), ("ollama", "/api/tags", "m:latest")])
def test_models_reply_that_is_not_json_is_a_config_error(tmp_path, html_server, kind, path, model):
    write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), datasets=BUILTIN_DATASET.format(n=1),
                 backends=f'[backends.web]\nkind = "{kind}"\nendpoints = ["{html_server}"]\n',
                 policies=policy("p", "web", model, 1.0, 1))
    out = cli("experiment", "run", str(tmp_path / "c.toml"), "--no-progress", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines() == [
        f"certify experiment: error: backends.web.endpoints: {html_server}{path} answered text/html, not a JSON object "
        f"('<!doctype html><html><body>Welcome</body></html>'); is {html_server} the {kind} API's base URL?"
    ]
    assert issubclass(EndpointError, ValueError)


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.sqlite"
    with RunStore(path, create=True) as s:
        s.bind_draw("d", "compare", "d.jsonl", "ab" * 32, [("e1", "Yes")])
        s.save([CallRecord("d", "p", "e1", 0, 1, "Yes", "Yes", "regex", True, True, 0.1, None, None, None, "x", 1, 0.0)])
    return path


def test_export_to_a_directory_is_refused(tmp_path, store):
    (tmp_path / "out").mkdir()
    out = cli("experiment", "export", str(store), "-o", str(tmp_path / "out"))
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"certify experiment: error: output {str(tmp_path / 'out')!r} is a directory; give a file name"
    ]
    assert list((tmp_path / "out").iterdir()) == []


def test_export_into_a_missing_folder_names_it_and_creates_nothing(tmp_path, store):
    target = tmp_path / "nonexistent" / "dir" / "x.csv"
    out = cli("experiment", "export", str(store), "-o", str(target))
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"certify experiment: error: output {str(target)!r}: the folder {str(target.parent)!r} does not exist"
    ]
    assert not (tmp_path / "nonexistent").exists()
    # the same file in an existing folder is written
    with RunStore(store) as s:
        assert export_bits(s, tmp_path / "x.csv") == 1
    assert (tmp_path / "x.csv").read_text().splitlines()[1].startswith("d,p,e1,")
