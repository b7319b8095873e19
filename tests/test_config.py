"""Settings precedence: sidebar overrides > environment > .streamlit/secrets.toml > defaults."""

from pathlib import Path

import pytest

from ifworld import config, redact
from ifworld.config import load_settings


@pytest.fixture
def secrets_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "secrets.toml"
    monkeypatch.setattr(redact, "SECRETS_FILES", (path,))
    return path


def test_defaults_disable_llm(secrets_file: Path) -> None:
    s = load_settings()
    assert not s.enabled
    assert s.model == config.DEFAULT_MODEL


def test_openai_key_alone_means_openai(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    s = load_settings()
    assert s.enabled and s.base_url is None
    assert s.api_key.get_secret_value() == "sk-test"
    assert "OpenAI" in s.endpoint_label


def test_ifworld_key_beats_openai_key(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("IFWORLD_API_KEY", "sk-ifworld")
    assert load_settings().api_key.get_secret_value() == "sk-ifworld"


def test_precedence_override_env_secrets(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets_file.write_text('IFWORLD_MODEL = "from-secrets"\nIFWORLD_BASE_URL = "http://secrets/v1"\n'
                            'IFWORLD_TIMEOUT_S = 7\n')
    s = load_settings()
    assert (s.model, s.base_url, s.timeout_s) == ("from-secrets", "http://secrets/v1", 7)
    monkeypatch.setenv("IFWORLD_MODEL", "from-env")
    s = load_settings()
    assert (s.model, s.base_url) == ("from-env", "http://secrets/v1")
    s = load_settings({"model": "from-sidebar", "base_url": ""})
    assert (s.model, s.base_url) == ("from-sidebar", "http://secrets/v1")  # empty sidebar value ignored


def test_role_models(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets_file.write_text('IFWORLD_MODEL_WHATIF__EXPERT = "expert-model"\n')
    monkeypatch.setenv("IFWORLD_MODEL", "base")
    monkeypatch.setenv("IFWORLD_MODEL_JUDGE", "judge-model")
    s = load_settings()
    assert s.model_for("whatif.judge") == "judge-model"
    assert s.model_for("rws.verifier.judge") == "judge-model"
    assert s.model_for("whatif.expert") == "expert-model"
    assert s.model_for("whatif.refiner") == "base"


def test_public_dict_has_no_key(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_API_KEY", "sk-secret-123")
    data = load_settings().public_dict()
    assert "sk-secret-123" not in str(data) and data["api_key_set"] is True


def test_invalid_values_rejected(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_MAX_CONCURRENCY", "0")
    with pytest.raises(ValueError, match="max_concurrency"):
        load_settings()
