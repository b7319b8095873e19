"""Build hook: the wheel carries the app, prompts and data inside the package (``ifworld/_bundle/``).

The repository keeps its top-level layout (``app.py``, ``app_pages/``, ``ui/``, ``prompts/``, ``data/``, as the
design notes fix it); ``ifworld.resources`` finds them there in a checkout and in ``_bundle`` in an installed
wheel. Copying at build time (rather than ``package-dir`` mappings) keeps ``ui`` from being installed as a
top-level package with a generic name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED_DIRS = ("app_pages", "ui", "prompts", "data", ".streamlit")
BUNDLED_FILES = ("app.py",)
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "secrets.toml")


class BuildWithBundle(build_py):
    """Copy the non-package resources into ``build/lib/ifworld/_bundle`` next to the compiled modules."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads them straight from the checkout
            return
        target = Path(self.build_lib) / "ifworld" / "_bundle"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in BUNDLED_DIRS:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, target / name, ignore=IGNORE)
        for name in BUNDLED_FILES:
            shutil.copy2(ROOT / name, target / name)


setup(cmdclass={"build_py": BuildWithBundle})
