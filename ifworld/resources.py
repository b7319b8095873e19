"""Where the files that ship beside the code live: prompts/, data/ and the Streamlit app.

In a checkout (or an editable install) they sit at the repository root, next to ``ifworld/``. A built wheel
carries copies inside the package at ``ifworld/_bundle/`` (see ``setup.py``), found with
``importlib.resources`` so that ``pip install`` of the wheel gives a working CLI and ``ifworld app``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from ifworld.errors import PackageError

BUNDLE = "_bundle"
MARKER = "app.py"  # present in both layouts: the directory holding it is the resource root


class ResourcesNotFound(PackageError, FileNotFoundError):
    """Neither a bundled copy nor a checkout holds the app, prompts and data: the install is incomplete."""


@lru_cache(maxsize=1)
def root() -> Path:
    """The directory holding ``app.py``, ``app_pages/``, ``ui/``, ``prompts/`` and ``data/``."""
    bundled = Path(str(resources.files("ifworld") / BUNDLE))
    if (bundled / MARKER).is_file():
        return bundled
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / MARKER).is_file():
        return checkout
    raise ResourcesNotFound(f"IF-World resources not found (looked in {bundled} and {checkout}); "
                            "reinstall the package (pip install --force-reinstall ifworld)")


def prompts_dir() -> Path:
    return root() / "prompts"


def data_path(name: str) -> Path:
    """A file shipped in ``data/`` (e.g. ``rws_sample.jsonl``)."""
    return root() / "data" / name


def app_script() -> Path:
    return root() / MARKER
