"""Where the files that ship beside the code live: prompts/, data/ and the Streamlit app.

In a checkout (or an editable install) they sit at the repository root, next to ``ifworld/``. A built wheel
carries copies inside the package at ``ifworld/_bundle/`` (see ``setup.py``), found with
``importlib.resources`` so that ``pip install`` of the wheel gives a working CLI and ``ifworld app``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

BUNDLE = "_bundle"
MARKER = "app.py"  # present in both layouts: the directory holding it is the resource root


@lru_cache(maxsize=1)
def root() -> Path:
    """The directory holding ``app.py``, ``app_pages/``, ``ui/``, ``prompts/`` and ``data/``."""
    bundled = Path(str(resources.files("ifworld") / BUNDLE))
    if (bundled / MARKER).is_file():
        return bundled
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / MARKER).is_file():
        return checkout
    raise FileNotFoundError(f"IF-World resources not found (looked in {bundled} and {checkout})")


def prompts_dir() -> Path:
    return root() / "prompts"


def data_path(name: str) -> Path:
    """A file shipped in ``data/`` (e.g. ``rws_sample.jsonl``)."""
    return root() / "data" / name


def app_script() -> Path:
    return root() / MARKER
