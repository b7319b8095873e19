"""IF-World Studio. Importing the package masks known secrets in every log record of the process."""

from ifworld.redact import install_logging

install_logging()
