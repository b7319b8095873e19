"""IF-World Studio: what-if scenarios, belief exchange and Reasoning With a Star (package ``ifworld``).

Importing the package masks known secrets in every log record of the process (:mod:`ifworld.redact`).
"""

from ifworld.redact import install_logging

__version__ = "0.2.0"  # the one place the version lives (pyproject reads it; `ifworld --version` prints it)

install_logging()
