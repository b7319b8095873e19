"""Settings for the model connection and the run store.

Precedence (highest first): explicit overrides (the sidebar) > environment > ``.streamlit/secrets.toml``
> defaults. Environment names are a shared contract (DESIGN.md): ``IFWORLD_BASE_URL``,
``IFWORLD_API_KEY`` (falls back to ``OPENAI_API_KEY``), ``IFWORLD_MODEL``, ``IFWORLD_MODEL_<ROLE>``
per-role overrides (``IFWORLD_MODEL_JUDGE``; ``__`` stands for a dot, e.g. ``IFWORLD_MODEL_WHATIF__JUDGE``),
``IFWORLD_TEMPERATURE``, ``IFWORLD_MAX_CONCURRENCY``, ``IFWORLD_TIMEOUT_S``, ``IFWORLD_DB``,
``IFWORLD_STRUCTURED_METHOD``, ``IFWORLD_MAX_TOKENS`` and per-role ``IFWORLD_MAX_TOKENS_<ROLE>`` (same naming as
the model overrides), ``IFWORLD_CONTEXT_TOKENS`` and per-role ``IFWORLD_CONTEXT_TOKENS_<ROLE>`` (the model's context
window when its server does not say it; see :mod:`ifworld.llm.context`), ``IFWORLD_STREAM``.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from ifworld import redact
from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.errors import ConfigError
from ifworld.files import FileRefused, read_text_bounded
from ifworld.limits import MAX_SECRETS_BYTES

__all__ = ["CONNECT_HELP", "DEFAULT_DB", "DEFAULT_MAX_TOKENS", "DEFAULT_MODEL", "DEMO_HINT", "DEMO_MODEL", "DEMO_URL",
           "MAX_CONTEXT_TOKENS", "MAX_TOKENS_LIMIT", "MIN_CONTEXT_TOKENS", "NO_MODEL_HELP", "POSTGRES_SCHEMES",
           "ROLE_CONTEXT_PREFIX", "ROLE_MAX_TOKENS", "ROLE_MAX_TOKENS_PREFIX", "ROLE_MODEL_PREFIX",
           "STRUCTURED_METHODS", "Settings", "load_settings", "store_url"]

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_DB = Path.home() / ".ifworld" / "runs.sqlite"
POSTGRES_SCHEMES = ("postgresql", "postgres")
"""``IFWORLD_DB`` schemes that select the PostgreSQL store; other ``scheme://`` are refused (a path is SQLite)."""
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
ROLE_MODEL_PREFIX = "IFWORLD_MODEL_"
ROLE_MAX_TOKENS_PREFIX = "IFWORLD_MAX_TOKENS_"
ROLE_CONTEXT_PREFIX = "IFWORLD_CONTEXT_TOKENS_"
MIN_CONTEXT_TOKENS = 1_024
MAX_CONTEXT_TOKENS = 10_000_000
STRUCTURED_METHODS = ("json_schema", "function_calling", "json_mode", "prompt")
"""Order in which ``auto`` tries structured-output methods (the first one the endpoint accepts is kept)."""
MAX_TOKENS_LIMIT = 16_384
"""Upper bound for any generation bound, including the larger bound of a retry after truncation."""
DEFAULT_MAX_TOKENS = 2_048
ROLE_MAX_TOKENS: dict[str, int] = {
    # Sized from the schemas' full outputs with headroom: a bound is a guard against runaway generation on
    # local servers, not a length target. Matched like model overrides (exact role, dotted prefix, last part).
    "whatif.expert": 3_000, "whatif.report": 3_000, "whatif.single": 4_000, "whatif.tree": 4_000,
    "whatif.tree.critic": 400, "whatif.refiner": 1_500, "whatif.resolver": 2_500, "whatif.debate": 800,
    "whatif.debate.judge": 4_000, "whatif.judge": 800,
    "rws": 1_500, "rws.verifier": 500, "beliefs.agent": 600, "connection": 64,
}
DEMO_MODEL = "demo"  # the model name `ifworld demo-server` answers to
DEMO_URL = "http://127.0.0.1:8765/v1"  # its default address
DEMO_HINT = (
    f"To try it without a model, run `ifworld demo-server` and set IFWORLD_BASE_URL={DEMO_URL} "
    f"IFWORLD_MODEL={DEMO_MODEL}: it serves canned answers labelled [demo], not analysis."
)
CONNECT_HELP = (
    "No model is connected. Set IFWORLD_API_KEY (or OPENAI_API_KEY) for OpenAI, or IFWORLD_BASE_URL for a "
    "local OpenAI-compatible server such as Ollama (http://localhost:11434/v1), vLLM, LM Studio or "
    "llama.cpp, or fill in the sidebar."
)
NO_MODEL_HELP = f"{CONNECT_HELP} {DEMO_HINT}"


class Settings(BaseSettings):
    """Resolved configuration. ``api_key`` is a SecretStr so it never prints by accident."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True, populate_by_name=True, hide_input_in_errors=True)

    base_url: str | None = Field(None, validation_alias=AliasChoices("base_url", "IFWORLD_BASE_URL"))
    api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("api_key", "IFWORLD_API_KEY", "OPENAI_API_KEY")
    )
    model: str = Field(DEFAULT_MODEL, validation_alias=AliasChoices("model", "IFWORLD_MODEL"))
    role_models: dict[str, str] = Field(default_factory=dict)
    temperature: float = Field(0.7, ge=0, le=2, validation_alias=AliasChoices("temperature", "IFWORLD_TEMPERATURE"))
    max_concurrency: int = Field(
        4, ge=1, le=64, validation_alias=AliasChoices("max_concurrency", "IFWORLD_MAX_CONCURRENCY")
    )
    timeout_s: float = Field(60.0, gt=0, validation_alias=AliasChoices("timeout_s", "IFWORLD_TIMEOUT_S"))
    max_retries: int = Field(2, ge=0, le=10, validation_alias=AliasChoices("max_retries", "IFWORLD_MAX_RETRIES"))
    retry_backoff_s: float = Field(
        1.0, ge=0, validation_alias=AliasChoices("retry_backoff_s", "IFWORLD_RETRY_BACKOFF_S")
    )
    structured_method: Literal["auto", "json_schema", "function_calling", "json_mode", "prompt"] = Field(
        "auto", validation_alias=AliasChoices("structured_method", "IFWORLD_STRUCTURED_METHOD")
    )
    max_tokens: int | None = Field(
        None, ge=1, le=MAX_TOKENS_LIMIT, validation_alias=AliasChoices("max_tokens", "IFWORLD_MAX_TOKENS")
    )
    role_max_tokens: dict[str, int] = Field(default_factory=dict)
    context_tokens: int | None = Field(
        None, ge=MIN_CONTEXT_TOKENS, le=MAX_CONTEXT_TOKENS,
        validation_alias=AliasChoices("context_tokens", "IFWORLD_CONTEXT_TOKENS"))
    """The model's context window in tokens when its server does not report it (``IFWORLD_CONTEXT_TOKENS``)."""
    role_context_tokens: dict[str, int] = Field(default_factory=dict)
    stream: bool = Field(True, validation_alias=AliasChoices("stream", "IFWORLD_STREAM"))
    db_path: Path = Field(DEFAULT_DB, validation_alias=AliasChoices("db_path", "IFWORLD_DB"))
    db_url: str | None = None
    """Set (from ``IFWORLD_DB``) when the store is PostgreSQL; ``db_path`` then keeps its default."""

    @model_validator(mode="before")
    @classmethod
    def _store_location(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("db_path"), str):
            url = store_url(data["db_path"])
            if url is not None:
                data = {**data, "db_url": url}
                del data["db_path"]
        return data

    @property
    def store(self) -> str:
        """Where the run store is: the PostgreSQL URL, else the SQLite file's path."""
        return self.db_url or str(self.db_path)

    @property
    def store_label(self) -> str:
        """:attr:`store` fit to show or log (a URL's password masked)."""
        return redact.redact_url(self.store)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, _SecretsTomlSource(settings_cls)

    @property
    def enabled(self) -> bool:
        """LLM features are on when an endpoint or a key is configured."""
        return bool(self.base_url or self.api_key)

    @property
    def endpoint_label(self) -> str:
        return self.base_url or "OpenAI (api.openai.com)"

    def model_for(self, role: str) -> str:
        """Model for a role: exact role, then its dotted prefixes, then its last segment, then default."""
        return _by_role(self.role_models, role, self.model)

    def max_tokens_for(self, role: str) -> int:
        """Generation bound for a role: ``IFWORLD_MAX_TOKENS_<ROLE>``, else ``IFWORLD_MAX_TOKENS``, else the
        role's default (:data:`ROLE_MAX_TOKENS`), else :data:`DEFAULT_MAX_TOKENS`."""
        if (own := _by_role(self.role_max_tokens, role, None)) is not None:
            return int(own)
        return self.max_tokens or _by_role(ROLE_MAX_TOKENS, role, DEFAULT_MAX_TOKENS)

    def max_tokens_setting(self, role: str) -> str:
        """The environment variable that sets ``role``'s bound (for messages that tell users what to change)."""
        for key in _candidates(role):
            if key in self.role_max_tokens:
                return ROLE_MAX_TOKENS_PREFIX + key.upper().replace(".", "__")
        return "IFWORLD_MAX_TOKENS"

    def context_setting(self, role: str) -> tuple[int | None, str]:
        """The context window set for ``role`` (``IFWORLD_CONTEXT_TOKENS_<ROLE>``, else ``IFWORLD_CONTEXT_TOKENS``)
        and the variable that set it; ``(None, "")`` when neither is set."""
        for key in _candidates(role):
            if key in self.role_context_tokens:
                return int(self.role_context_tokens[key]), ROLE_CONTEXT_PREFIX + key.upper().replace(".", "__")
        return (self.context_tokens, "IFWORLD_CONTEXT_TOKENS") if self.context_tokens else (None, "")

    def public_dict(self) -> dict[str, Any]:
        """Settings safe to store or show: never the key itself."""
        data = self.model_dump(exclude={"api_key"}, mode="json")
        data["db_url"] = redact.redact_url(self.db_url) if self.db_url else None
        data["api_key_set"] = self.api_key is not None
        return data


def store_url(value: str) -> str | None:
    """The PostgreSQL URL in an ``IFWORLD_DB`` value, or None for a file path; any other URL is refused.

    Raises :class:`ConfigError` (with the URL's password masked) for ``mysql://…``, ``http://…`` and the like:
    they used to become a SQLite file named after the URL."""
    text = value.strip()
    found = _SCHEME_RE.match(text)
    if found is None:
        return None
    if found[1].lower() in POSTGRES_SCHEMES:
        password = re.search(r"://[^/@:]*:([^/@]+)@", text)
        if password:
            redact.register_secret(password[1])  # masked from now on, wherever it would be written
        return text
    raise ConfigError(f"IFWORLD_DB={redact.redact_url(text)} is not usable: give a file path (SQLite, one machine) "
                      "or a postgresql://user:password@host:port/database URL (several app processes)")


class _SecretsTomlSource(PydanticBaseSettingsSource):
    """Reads top-level keys of ``.streamlit/secrets.toml`` named like the environment variables."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for path in redact.SECRETS_FILES:
            if path.is_file():
                try:
                    loaded = tomllib.loads(read_text_bounded(path, MAX_SECRETS_BYTES, what="secrets file"))
                except (FileRefused, tomllib.TOMLDecodeError):
                    continue
                for key, value in loaded.items():
                    if isinstance(value, str | int | float) and key.upper() == key:
                        data.setdefault(key, value)
        return data


def _endpoint(url: Any) -> str:
    return str(url or "").strip().rstrip("/").lower()


def _same_endpoint(url: Any) -> bool:
    """Whether ``url`` is the endpoint configured outside the session (environment or ``secrets.toml``)."""
    configured = os.environ.get("IFWORLD_BASE_URL") or _SecretsTomlSource(Settings)().get("IFWORLD_BASE_URL")
    return bool(configured) and _endpoint(url) == _endpoint(configured)


def _candidates(role: str) -> list[str]:
    parts = role.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)] + [parts[-1]]


def _by_role(table: dict[str, Any], role: str, default: Any) -> Any:
    return next((table[k] for k in _candidates(role) if k in table), default)


def _role_models_from(mapping: dict[str, Any], prefix: str = ROLE_MODEL_PREFIX) -> dict[str, str]:
    out = {}
    for key, value in mapping.items():
        if key.startswith(prefix) and value:
            out[key[len(prefix):].lower().replace("__", ".")] = str(value)
    return out


def _role_bounds_from(mapping: dict[str, Any], prefix: str = ROLE_MAX_TOKENS_PREFIX, low: int = 1,
                      high: int = MAX_TOKENS_LIMIT) -> dict[str, int]:
    out = {}
    for role, value in _role_models_from(mapping, prefix).items():
        try:
            bound = int(value)
        except ValueError as exc:
            raise ConfigError(f"{prefix}{role.upper()} must be a whole number, got {value!r}") from exc
        if not low <= bound <= high:
            raise ConfigError(f"{prefix}{role.upper()} must be {low}..{high}, got {bound}")
        out[role] = bound
    return out


def _role_windows_from(mapping: dict[str, Any]) -> dict[str, int]:
    return _role_bounds_from(mapping, ROLE_CONTEXT_PREFIX, MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS)


def load_settings(overrides: dict[str, Any] | None = None, *, caller: Caller | None = OPERATOR) -> Settings:
    """Resolve settings; ``overrides`` (e.g. from the sidebar) win, empty values are ignored.

    Changing the model connection is the facilitator's (``caller``; a participant's browser is refused with
    :class:`~ifworld.access.AccessDenied`). A key is bound to the endpoint it was configured for: overriding the
    base URL without giving a key drops the key from the environment or ``secrets.toml``, so it is never sent
    to an address somebody typed (they type a key for it)."""
    clean = {k: v for k, v in (overrides or {}).items() if v not in (None, "")}
    store_url(str(clean.get("db_path") or os.environ.get("IFWORLD_DB") or ""))  # a bad URL: ConfigError, not pydantic's
    if clean:
        require_facilitator(caller, "change the model connection")
    if isinstance(clean.get("api_key"), str):
        redact.register_secret(clean["api_key"])  # a key typed in the sidebar is masked from now on
    if "base_url" in clean and "api_key" not in clean and not _same_endpoint(clean["base_url"]):
        clean["api_key"] = None  # explicit None beats the environment and secrets.toml
    secrets = _SecretsTomlSource(Settings)()
    role_models = {**_role_models_from(secrets), **_role_models_from(dict(os.environ))}
    role_models.update(clean.pop("role_models", {}) or {})
    role_max_tokens = {**_role_bounds_from(secrets), **_role_bounds_from(dict(os.environ))}
    role_max_tokens.update(clean.pop("role_max_tokens", {}) or {})
    role_context = {**_role_windows_from(secrets), **_role_windows_from(dict(os.environ))}
    role_context.update(clean.pop("role_context_tokens", {}) or {})
    return Settings(**clean, role_models=role_models, role_max_tokens=role_max_tokens,
                    role_context_tokens=role_context)
