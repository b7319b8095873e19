"""IF-World Studio: what-if scenarios, belief exchange and Reasoning With a Star (package ``ifworld``)."""

__version__ = "0.2.0"  # the one place the version lives (pyproject reads it; `ifworld --version` prints it)
