"""A loopback mock of the Anthropic Messages API for the scripts that run the real `claude`
CLI (check-claude-*.sh): logs every request body as a JSON line and answers each with one
text block, streamed or not, or with an error.

    python3 scripts/mock-messages.py PORT LOG [MODE [ANSWER]]

MODE: `ok` (default) answers ANSWER (default "ok"); `401`, `529` and `404` answer the error
the API gives for a rejected key, an overload and an unknown model.
"""
import http.server
import json
import sys

port, log = int(sys.argv[1]), sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "ok"
answer = sys.argv[4] if len(sys.argv) > 4 else "ok"
ERRORS = {"401": (401, "authentication_error", "invalid x-api-key"),
          "529": (529, "overloaded_error", "Overloaded"),
          "404": (404, "not_found_error", "model: claude-haiku-4-5")}


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, status, ctype, data):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body.decode("utf-8", "replace")}) + "\n")
        if mode in ERRORS:
            status, kind, msg = ERRORS[mode]
            error = {"type": "error", "error": {"type": kind, "message": msg}}
            return self.reply(status, "application/json", json.dumps(error).encode())
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        usage = {"input_tokens": 100, "output_tokens": 20}
        if not req.get("stream"):
            msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": req.get("model"),
                   "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn",
                   "stop_sequence": None, "usage": usage}
            return self.reply(200, "application/json", json.dumps(msg).encode())
        events = [
            ("message_start", {"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "model": req.get("model"),
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 1}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": answer}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 20}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        stream = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events)
        self.reply(200, "text/event-stream", stream.encode())

    def do_GET(self):
        self.reply(404, "application/json", b"{}")

    def log_message(self, *a):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
