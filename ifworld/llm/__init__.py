"""The model layer: the one place that builds chat models and calls them (any OpenAI-compatible endpoint).

Everything else asks for a model by *role* (``"whatif.expert"``, ``"rws.pace.critic"`` …) through this front
door, whose names load on first use (``__init__.pyi`` lists them with their types), so importing it is cheap.
Modules:

- :mod:`~ifworld.llm.client` — ``complete`` / ``structured`` (and async twins) over ``ChatOpenAI``: bounds,
  retries, the process-wide concurrency limit.
- :mod:`~ifworld.llm.streaming` — reading one reply: streamed (or whole), cut at the bound, partial JSON for
  progress.
- :mod:`~ifworld.llm.methods` — which structured-output method an endpoint takes (``auto`` probes once per
  endpoint and model and remembers it beside the run store).
- :mod:`~ifworld.llm.reply` — reply text, ``<think>`` stripping, JSON extraction, the model-layer errors.
- :mod:`~ifworld.llm.context` — each role's context window (from the server, a setting or the default) and a
  token counter (the server's tokenizer, else tiktoken's cl100k_base shipped offline, else an estimate).
- :mod:`~ifworld.llm.packing` — the one packer: a prompt filled from named parts, whole when they fit, trimmed in
  proportion when not, with the share of each part that reached the prompt.
- :mod:`~ifworld.llm.schema` — the JSON schema sent to a model (standard keywords, bounds, required content).
- :mod:`~ifworld.llm.usage` — per-call accounting (role, round, tokens, latency, retries, status).
- :mod:`~ifworld.llm.connection` — the connection test shown on Settings and run by ``ifworld model check``.
- :mod:`~ifworld.llm.diagnose` — why a call failed, in words with the address (one classifier for the page, the
  CLI and run errors), the preflight before long jobs, the "waiting for the model — retry …" notes.
- :mod:`~ifworld.llm.status` — the connection's state as the facts left it (ok / failing since … / untested).
- :mod:`~ifworld.llm.tracing` — optional LangSmith tracing switch.
- :mod:`~ifworld.llm.wire` — the ``X-IFWorld-Role`` header: every request names the role that asks.
- :mod:`~ifworld.llm.demo` and :mod:`~ifworld.llm.demo_answers` — ``ifworld demo-server``: an OpenAI-compatible
  server with labelled canned answers for every role, picked by the role a request names (to try the app
  without a model); the command itself is
  :func:`demo_server` (:mod:`~ifworld.llm.demo_cli`, which loads the server only when run).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
