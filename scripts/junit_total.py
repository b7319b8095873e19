"""Print one closing line over every tier's JUnit XML: 'tests: N passed, N failed, N skipped'."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def main(paths: list[str]) -> None:
    passed = failed = skipped = 0
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            continue
        for suite in root.iter("testsuite"):
            tests, fails = int(suite.get("tests", 0)), int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skips = int(suite.get("skipped", 0))
            passed, failed, skipped = passed + tests - fails - skips, failed + fails, skipped + skips
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")


if __name__ == "__main__":
    main(sys.argv[1:])
