#!/usr/bin/env bash
# Installs the system packages Strata builds and tests with, where they are missing (Debian/Ubuntu).
# C libraries: SQLite, LMDB, libxml2 (+ pkg-config); command-line tools the tests use to read
# stores the way a user would: sqlite3, mdb_stat/mdb_dump (lmdb-utils), xmllint (libxml2-utils).
# PostgreSQL: its client library (libpq-dev) and, for the tests, a server (postgresql; the tests
# start a throwaway cluster of their own with scripts/postgres-test-server) and psql.
set -euo pipefail

packages=(libsqlite3-dev liblmdb-dev libxml2-dev pkg-config sqlite3 lmdb-utils libxml2-utils libpq-dev postgresql
  postgresql-client)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${missing[*]}, and there is no apt-get here; install them with your package manager" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
