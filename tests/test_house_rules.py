"""House rules that keep the layers apart."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engines_never_import_streamlit() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "ifworld").rglob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


def test_only_llm_module_builds_chat_clients() -> None:
    offenders = []
    for p in (ROOT / "ifworld").rglob("*.py"):
        if p.name != "llm.py" and ("langchain_openai" in _imports(p) or "openai" in _imports(p)):
            offenders.append(str(p.relative_to(ROOT)))
    for p in (ROOT / "app_pages").glob("*.py"):
        if {"langchain_openai", "openai"} & _imports(p):
            offenders.append(str(p.relative_to(ROOT)))
    assert offenders == []


def test_prompts_render_strictly() -> None:
    from ifworld import prompts

    for name in prompts.names():
        for section in prompts.sections(name):
            fields = prompts.fields(name, section)
            text = prompts.render(name, section, **{f: f"<{f}>" for f in fields})
            assert text.strip(), (name, section)
