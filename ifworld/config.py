"""Settings for the model connection and the run store.

Precedence (highest first): explicit overrides (the sidebar) > environment > ``.streamlit/secrets.toml``
> defaults. Environment names are a shared contract (DESIGN.md): ``IFWORLD_BASE_URL``,
``IFWORLD_API_KEY`` (falls back to ``OPENAI_API_KEY``), ``IFWORLD_MODEL``, ``IFWORLD_MODEL_<ROLE>``
per-role overrides (``IFWORLD_MODEL_JUDGE``; ``__`` stands for a dot, e.g. ``IFWORLD_MODEL_WHATIF__JUDGE``),
``IFWORLD_TEMPERATURE``, ``IFWORLD_MAX_CONCURRENCY``, ``IFWORLD_TIMEOUT_S``, ``IFWORLD_DB``.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_DB = Path.home() / ".ifworld" / "runs.sqlite"
ROLE_MODEL_PREFIX = "IFWORLD_MODEL_"
NO_MODEL_HELP = (
    "No model is connected. Set IFWORLD_API_KEY (or OPENAI_API_KEY) for OpenAI, or IFWORLD_BASE_URL for a "
    "local OpenAI-compatible server such as Ollama (http://localhost:11434/v1), vLLM, LM Studio or "
    "llama.cpp, or fill in the sidebar."
)
SECRETS_FILES = (Path(".streamlit/secrets.toml"), Path.home() / ".streamlit" / "secrets.toml")


class Settings(BaseSettings):
    """Resolved configuration. ``api_key`` is a SecretStr so it never prints by accident."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True, populate_by_name=True)

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
    structured_method: Literal["auto", "json_schema", "json_mode", "prompt"] = Field(
        "auto", validation_alias=AliasChoices("structured_method", "IFWORLD_STRUCTURED_METHOD")
    )
    db_path: Path = Field(DEFAULT_DB, validation_alias=AliasChoices("db_path", "IFWORLD_DB"))

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
        parts = role.split(".")
        candidates = [".".join(parts[:i]) for i in range(len(parts), 0, -1)] + [parts[-1]]
        for key in candidates:
            if key in self.role_models:
                return self.role_models[key]
        return self.model

    def public_dict(self) -> dict[str, Any]:
        """Settings safe to store or show: never the key itself."""
        data = self.model_dump(exclude={"api_key"}, mode="json")
        data["api_key_set"] = self.api_key is not None
        return data


class _SecretsTomlSource(PydanticBaseSettingsSource):
    """Reads top-level keys of ``.streamlit/secrets.toml`` named like the environment variables."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for path in SECRETS_FILES:
            if path.is_file():
                try:
                    loaded = tomllib.loads(path.read_text(encoding="utf-8"))
                except (OSError, tomllib.TOMLDecodeError):
                    continue
                for key, value in loaded.items():
                    if isinstance(value, str | int | float) and key.upper() == key:
                        data.setdefault(key, value)
        return data


def _role_models_from(mapping: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in mapping.items():
        if key.startswith(ROLE_MODEL_PREFIX) and value:
            out[key[len(ROLE_MODEL_PREFIX):].lower().replace("__", ".")] = str(value)
    return out


def load_settings(overrides: dict[str, Any] | None = None) -> Settings:
    """Resolve settings; ``overrides`` (e.g. from the sidebar) win, empty values are ignored."""
    clean = {k: v for k, v in (overrides or {}).items() if v not in (None, "")}
    if isinstance(clean.get("api_key"), str):
        from ifworld.redact import register_secret  # a key typed in the sidebar is masked from now on

        register_secret(clean["api_key"])
    secrets = _SecretsTomlSource(Settings)()
    role_models = {**_role_models_from(secrets), **_role_models_from(dict(os.environ))}
    role_models.update(clean.pop("role_models", {}) or {})
    return Settings(**clean, role_models=role_models)
