#!/usr/bin/env bash
# Make sure Debian's Chromium is present for the Playwright browser tests (Playwright's own download
# does not work here). Skips quietly when it cannot install; the browser tests then say why they skip.
set -uo pipefail
cd "$(dirname "$0")/.."
# axe-core (accessibility rules, issue #35) from the npm registry into .cache/axe — no global install.
AXE_VERSION=4.14.1
if [ ! -f .cache/axe/node_modules/axe-core/axe.min.js ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing axe-core@$AXE_VERSION from npm into .cache/axe" >&2
    npm install --prefix .cache/axe --no-audit --no-fund --silent "axe-core@$AXE_VERSION" >/dev/null 2>&1 \
      || echo "setup: could not install axe-core; the accessibility tests will be skipped" >&2
  else
    echo "setup: npm missing; install node/npm for the accessibility tests (axe-core)" >&2
  fi
fi
if command -v chromium >/dev/null 2>&1 && [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "setup: installing chromium from Debian" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-color-emoji) >/dev/null 2>&1 \
    || echo "setup: could not install chromium; browser tests will be skipped" >&2
else
  echo "setup: chromium missing and not root; install it (apt-get install chromium) for browser tests" >&2
fi
exit 0
