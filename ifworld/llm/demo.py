"""``ifworld demo-server``: an OpenAI-compatible chat server that answers every agent role with canned text.

It lets people try the app (and scripts try the CLI) without a model: ``POST /v1/chat/completions`` (JSON and
SSE streaming, ``response_format`` json_schema / json_object, forced tool calls) and ``GET /v1/models`` on
127.0.0.1. A request is answered **by the role it names** in the :data:`~ifworld.llm.wire.ROLE_HEADER` header
(every request the product sends carries it): the rule keyed by the call name itself (``whatif.report#core``),
else by its role, else by the role's nearest dotted prefix; a pattern or method can declare its own answer in
its spec (see :func:`~ifworld.llm.demo_answers.add_source`). The prompt's words never decide who is asking. A
request without the header, or for a role nobody declared an answer for, gets a generic answer: a minimal
instance of its ``response_format`` / tool schema when it has one, else a labelled note. The built-in tables live
in :mod:`ifworld.llm.demo_answers`. Every free-text field of a demo answer starts with :data:`DEMO_LABEL`, so
nobody mistakes it for analysis.

:class:`ChatServer` is the reusable part (lifecycle, answering by role, OpenAI wire format); the test suite's
fake server (``tests/fixtures/fake_openai.py``) builds its fault injection and request log on it.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

from ifworld.config import DEMO_MODEL
from ifworld.llm.demo_answers import (
    declared_answers,
    last_user,
    message_text,
    modules,
    prompt_text,
    role_text,
    system_prompt,
)
from ifworld.llm.wire import ROLE_HEADER, role_candidates, role_of

__all__ = [
    "CHARS_PER_TOKEN", "DEFAULT_HOST", "DEFAULT_PORT", "DEMO_LABEL", "DEMO_MODEL", "ROLE_HEADER", "STOP_POLL_S",
    "STREAM_CHUNK_CHARS",
    "ChatHandler", "ChatServer", "Reply", "Rule", "as_tool_call", "bounded", "completion", "demo_rules", "label_reply",
    "last_user", "make_demo_server", "make_rule", "message_text", "module_rules", "n_chunks", "prompt_text",
    "request_problem", "role_of", "role_text", "serve", "stream_chunks", "synthesize", "system_prompt", "usage",
]

Reply = str | dict[str, Any] | Callable[[dict[str, Any]], "str | dict[str, Any]"]

DEMO_LABEL = "[demo]"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
STREAM_CHUNK_CHARS = 24
CHARS_PER_TOKEN = 4  # the token count reported in usage (and used by max_tokens) is characters / 4
STOP_POLL_S = 0.02  # stop() takes effect within this
MAX_BODY_BYTES = 8 * 1024 * 1024
DEMO_FALLBACK_TEXT = (f"{DEMO_LABEL} IF-World's demo server has no canned answer for this request. It serves "
                      "fixed example text so the app can be tried without a model; nothing here was analysed.")
DEMO_FALLBACK_STRING = f"{DEMO_LABEL} canned example value"


@dataclass
class Rule:
    """Answer requests of ``role`` with ``reply``. ``role`` is a call name (``whatif.report#core``), a role, or
    a dotted role prefix (``rws.mypattern`` answers every role of that pattern); the most specific rule wins.
    ``match`` optionally narrows a rule to requests whose prompt text matches it — content the answer depends
    on (one agent of many, a proposition a test picked), never who is asking. ``label_keys`` name the reply's
    free-text fields (a JSON reply's strings under those keys get the demo label; plain text gets it in front)."""

    role: str
    reply: Reply
    name: str
    label_keys: frozenset[str] = field(default_factory=frozenset)
    match: re.Pattern[str] | None = None


# -- reading a request ---------------------------------------------------------------------------------------
def request_problem(body: Any) -> str | None:
    """Why a chat request cannot be answered (the 400 message), or None when it can."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    messages = body.get("messages", [])
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return "messages must be a list of message objects"
    fmt = body.get("response_format")
    if fmt is not None and (not isinstance(fmt, dict) or (fmt.get("type") == "json_schema"
                                                          and not isinstance(fmt.get("json_schema"), dict))):
        return "response_format must be an object (json_schema needs a json_schema object)"
    tools = body.get("tools")
    if tools is not None and (not isinstance(tools, list) or not all(
            isinstance(t, dict) and isinstance(t.get("function"), dict) and t["function"].get("name")
            for t in tools)):
        return "tools must be a list of {type: function, function: {name, parameters}}"
    return None


# -- rules ---------------------------------------------------------------------------------------------------
def make_rule(role: str, reply: Reply, name: str | None = None, label_keys: Iterable[str] = (), *,
              match: str | None = None) -> Rule:
    """A rule answering ``role`` (a call name, a role or a dotted prefix) with ``reply``."""
    return Rule(role, reply, name or role, frozenset(label_keys), re.compile(match, re.S | re.I) if match else None)


def module_rules(module: ModuleType) -> list[Rule]:
    """The ``ANSWERS`` table of an answers module (role → reply) with its ``LABEL_KEYS``."""
    keys = getattr(module, "LABEL_KEYS", ())
    return [make_rule(role, reply, role, keys) for role, reply in getattr(module, "ANSWERS", {}).items()]


def demo_rules() -> list[Rule]:
    """The product's canned answers for every agent role (see :mod:`ifworld.llm.demo_answers`)."""
    return [rule for module in modules() for rule in module_rules(module)]


def label_reply(content: str, keys: frozenset[str], label: str = DEMO_LABEL) -> str:
    """``content`` with the label in front of its free text: before plain text, or before the strings held
    under ``keys`` anywhere in a JSON reply (identifiers and enum values elsewhere stay as they are)."""

    def walk(value: Any, labelled: bool) -> Any:
        if isinstance(value, str):
            return f"{label} {value}" if labelled and not value.startswith(label) else value
        if isinstance(value, dict):
            return {k: walk(v, k in keys) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, labelled) for v in value]
        return value

    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return content if content.startswith(label) else f"{label} {content}"
    return json.dumps(walk(value, False)) if isinstance(value, dict | list) else content


def synthesize(schema: dict[str, Any], defs: dict[str, Any] | None = None, depth: int = 0,
               text: str = "example") -> Any:
    """A minimal instance valid for a JSON schema (strings are ``text``): the answer to unscripted
    structured calls."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return synthesize(defs[schema["$ref"].split("/")[-1]], defs, depth + 1, text)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return synthesize(options[0], defs, depth + 1, text)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "default" in schema and depth > 0:
        return schema["default"]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        return {k: synthesize(v, defs, depth + 1, text) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        n = max(1, schema.get("minItems", 1))
        return [synthesize(schema.get("items", {}), defs, depth + 1, text) for _ in range(n)] if depth < 8 else []
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 0.5)
    if kind == "boolean":
        return True
    return text


# -- the OpenAI wire format ----------------------------------------------------------------------------------
def as_tool_call(body: dict[str, Any], content: str, name: str | None) -> tuple[str, str | None, list[Any] | None]:
    """A request that carries tools gets its answer as a call of the first tool (what forced calls ask)."""
    if not body.get("tools"):
        return content, name, None
    function = {"name": body["tools"][0]["function"]["name"], "arguments": content}
    return "", name, [{"id": f"call_{uuid.uuid4().hex[:8]}", "type": "function", "function": function}]


def usage(body: dict[str, Any], content: str) -> dict[str, Any]:
    prompt = sum(len(message_text(m.get("content"))) for m in body.get("messages", [])) // CHARS_PER_TOKEN + 1
    completion = len(content) // CHARS_PER_TOKEN + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def bounded(body: dict[str, Any], text: str, tool_call: bool) -> tuple[str, str]:
    """The reply cut at ``max_tokens`` (4 characters a token), and its finish reason."""
    bound = body.get("max_completion_tokens") or body.get("max_tokens")
    if bound and len(text) > int(bound) * CHARS_PER_TOKEN:
        return text[: int(bound) * CHARS_PER_TOKEN], "length"
    return text, "tool_calls" if tool_call else "stop"


def n_chunks(text: str) -> int:
    return max(1, -(-len(text) // STREAM_CHUNK_CHARS))


def completion(body: dict[str, Any], content: str, tool_calls: list[Any] | None, usage: dict[str, Any],
               finish: str = "stop") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", DEMO_MODEL),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}


def stream_chunks(body: dict[str, Any], content: str, tool_calls: list[Any] | None, usage: dict[str, Any] | None,
                  finish: str = "stop",
                  ) -> list[dict[str, Any]]:
    """SSE chunks of a reply: role, content pieces, tool-call head then argument pieces, finish, usage."""
    base = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": body.get("model", DEMO_MODEL)}
    chunks: list[dict[str, Any]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    for i in range(0, len(content), STREAM_CHUNK_CHARS):
        text = content[i : i + STREAM_CHUNK_CHARS]
        chunks.append({**base, "choices": [{"index": 0, "delta": {"content": text}}]})
    if tool_calls:  # the call's head first, then its arguments in pieces, as real servers stream them
        call = tool_calls[0]
        head = {"index": 0, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}}
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})
        args = call["function"]["arguments"]
        for i in range(0, len(args), STREAM_CHUNK_CHARS):
            piece = {"index": 0, "function": {"arguments": args[i : i + STREAM_CHUNK_CHARS]}}
            chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if usage is not None and (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**base, "choices": [], "usage": usage})
    return chunks


# -- the server ----------------------------------------------------------------------------------------------
class ChatServer:
    """Rule-matching OpenAI-compatible chat server on a background thread (context manager or start/stop).

    ``label`` (the demo server's :data:`DEMO_LABEL`) is put in front of every matched answer's free text;
    ``forgiving`` answers with the fallback when a reply callable fails (the demo) instead of raising.
    Subclasses change how a request is answered by overriding :meth:`complete`.
    """

    fallback_text = DEMO_FALLBACK_TEXT
    fallback_string = DEMO_FALLBACK_STRING
    fallback_object = {"note": DEMO_FALLBACK_TEXT}

    def __init__(self, rules: Iterable[Rule] = (), *, host: str = DEFAULT_HOST, port: int = 0,
                 latency: float = 0.0, models: Sequence[str] = (DEMO_MODEL,), label: str | None = None,
                 forgiving: bool = False) -> None:
        self.rules: list[Rule] = list(rules)
        self.host = host
        self.latency = latency
        self.models = tuple(models)
        self.context_tokens: int | None = None
        """Set: ``GET /props`` reports it as llama.cpp's server does (``n_ctx``); None: 404, the window unknown."""
        self.label = label
        self.forgiving = forgiving
        self._port = port
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        """Base URL to give ChatOpenAI / IFWORLD_BASE_URL."""
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self._port}/v1"

    def start(self) -> ChatServer:
        self._stopping.clear()
        handler = type("Handler", (ChatHandler,), {"app": self})
        server_class = _IPv6Server if ":" in self.host else ThreadingHTTPServer
        self._server = server_class((self.host, self._port), handler)
        self._server.daemon_threads = True
        self._port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(STOP_POLL_S,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (the port is kept, so start() again brings the server back on it)."""
        self._stopping.set()
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def pause(self, seconds: float) -> None:
        """Sleep, but wake up when the server stops."""
        if seconds > 0:
            self._stopping.wait(seconds)

    # -- answering ----------------------------------------------------------------------------------
    def add_rule(self, role: str, reply: Reply, name: str | None = None, *, match: str | None = None,
                 first: bool = True) -> None:
        """Answer requests of ``role`` (a call name, role or dotted prefix; ``match``: only prompts matching
        it) with ``reply``; among rules for the same key, earlier ones win."""
        rule = make_rule(role, reply, name, match=match)
        if first:
            self.rules.insert(0, rule)
        else:
            self.rules.append(rule)

    def find_rule(self, name: str | None, body: dict[str, Any]) -> Rule | None:
        """The rule for a call name: keyed by the name itself, else by its role, else by the nearest dotted
        prefix (:func:`~ifworld.llm.wire.role_candidates`); this server's rules before the answers that
        patterns and methods declare in their specs. None without a name (no header) or without a rule."""
        if not name:
            return None
        rules = [*self.rules, *(make_rule(key, reply, key, keys) for key, reply, keys in declared_answers())]
        for key in role_candidates(name):
            for rule in rules:
                if rule.role == key and (rule.match is None or rule.match.search(prompt_text(body))):
                    return rule
        return None

    def answer(self, body: dict[str, Any], role: str | None = None) -> tuple[str, str | None, list[Any] | None]:
        """(content, rule name, tool_calls) for a request from ``role`` (the call name in its header): the
        rule for that role, else the generic fallback."""
        rule = self.find_rule(role, body)
        if rule is None:
            return self.fallback(body)
        try:
            reply = rule.reply(body) if callable(rule.reply) else rule.reply
        except Exception:  # noqa: BLE001 — the demo answers anyway; the traceback goes to stderr
            if not self.forgiving:
                raise
            traceback.print_exc(file=sys.stderr)
            return self.fallback(body)
        content = reply if isinstance(reply, str) else json.dumps(reply)
        if self.label:
            content = label_reply(content, rule.label_keys, self.label)
        return as_tool_call(body, content, rule.name)

    def fallback(self, body: dict[str, Any]) -> tuple[str, str | None, list[Any] | None]:
        """The generic answer (no header, no rule): schema-valid for structured calls, else plain text."""
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return json.dumps(synthesize(fmt["json_schema"].get("schema", {}), text=self.fallback_string)), None, None
        if fmt.get("type") == "json_object":
            return json.dumps(self.fallback_object), None, None
        if body.get("tools"):
            params = body["tools"][0]["function"].get("parameters", {})
            return as_tool_call(body, json.dumps(synthesize(params, text=self.fallback_string)), None)
        return self.fallback_text, None, None

    def complete(self, handler: ChatHandler, body: dict[str, Any]) -> None:
        """Answer one chat request (after ``latency``), as JSON or as an SSE stream."""
        self.pause(self.latency)
        content, _name, tool_calls = self.answer(body, role_of(handler.headers))
        text, finish = bounded(body, tool_calls[0]["function"]["arguments"] if tool_calls else content,
                               bool(tool_calls))
        if tool_calls:
            tool_calls[0]["function"]["arguments"], content = text, ""
        else:
            content = text
        counted = usage(body, text)
        if body.get("stream"):
            handler.send_stream(stream_chunks(body, content, tool_calls, counted, finish))
        else:
            handler.send_json(200, completion(body, content, tool_calls, counted, finish))


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class ChatHandler(BaseHTTPRequestHandler):
    """Routes ``GET /v1/models`` and ``POST /v1/chat/completions`` to its :class:`ChatServer`."""

    app: ChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # quiet: requests hold prompts
        return

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "owned_by": "ifworld-demo"} for m in self.app.models]
            self.send_json(200, {"object": "list", "data": data})
        elif self.path.rstrip("/") == "/props" and self.app.context_tokens:
            self.send_json(200, {"default_generation_settings": {"n_ctx": self.app.context_tokens}})
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True
            self.send_json(400 if length < 0 else 413, {"error": {"message": "unusable Content-Length"}})
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            self.send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        problem = request_problem(body)
        if problem:
            self.send_json(400, {"error": {"message": problem, "type": "invalid_request_error"}})
            return
        self.app.complete(self, body)

    def send_json(self, status: int, payload: dict[str, Any], mangle: Callable[[bytes], bytes] | None = None) -> None:
        """Send ``payload`` as JSON; ``mangle`` (tests' hostile modes) rewrites the encoded bytes first."""
        data = json.dumps(payload).encode()
        data = mangle(data) if mangle else data
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def send_stream(self, chunks: list[dict[str, Any]], pause: Callable[[], None] | None = None,
                    mangle: Callable[[bytes], bytes] | None = None) -> None:
        """Send chunks as server-sent events; ``pause`` runs before each delta chunk, also after the client
        left (a model keeps generating); ``mangle`` rewrites each event's bytes (tests' hostile modes)."""
        gone = False
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            gone = True
        for chunk in chunks:
            if pause is not None and len(chunk["choices"]) and "delta" in chunk["choices"][0]:
                pause()
            if gone:
                continue
            try:
                data = f"data: {json.dumps(chunk)}\n\n".encode()
                self.wfile.write(mangle(data) if mangle else data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                gone = True
        if not gone:
            try:
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass


# -- the command ---------------------------------------------------------------------------------------------
def make_demo_server(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, latency: float = 0.0) -> ChatServer:
    """The demo server (not started yet): the product's canned answers, labelled, forgiving."""
    return ChatServer(demo_rules(), host=host, port=port, latency=latency, models=(DEMO_MODEL,),
                      label=DEMO_LABEL, forgiving=True)


def serve(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, latency: float = 0.0,
          ready: Callable[[ChatServer], None] | None = None) -> None:
    """Run the demo server until Ctrl-C or SIGTERM, then stop it cleanly. Raises OSError when the port is
    taken. ``ready`` is called once the server listens (the command prints the settings to use)."""
    server = make_demo_server(host=host, port=port, latency=latency).start()
    done = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: done.set()) \
        if threading.current_thread() is threading.main_thread() else None
    try:
        if ready is not None:
            ready(server)
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
