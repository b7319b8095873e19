#!/usr/bin/env bash
# Make sure PostgreSQL's server binaries (initdb, pg_ctl) are present for the `postgres` test tier: the tests
# start a throwaway cluster of their own (tests/fixtures/postgres.py); nothing here starts a server. Installs
# Debian's `postgresql` when missing and root; otherwise says so, and the postgres tests skip saying why.
set -uo pipefail
if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "setup: installing postgresql from Debian (server binaries for the throwaway test cluster)" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >/dev/null 2>&1 \
    || echo "setup: could not install postgresql; the postgres tests will be skipped" >&2
  # the package may start its own cluster on 5432: the tests do not use it
else
  echo "setup: PostgreSQL server missing and not root; install it (apt-get install postgresql) for the postgres tests" >&2
fi
exit 0
