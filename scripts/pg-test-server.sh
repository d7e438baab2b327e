#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on loopback for the tests and prints its URL on stdout.
# Needs Debian's postgresql package (`npm run setup` installs it); exits 3 when it is missing.
#   scripts/pg-test-server.sh start [PORT]   → prints postgres://postgres@127.0.0.1:PORT/postgres
#   scripts/pg-test-server.sh stop DIR
set -euo pipefail
cmd=${1:-start}
if [ "$cmd" = stop ]; then
  dir=$2
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "PostgreSQL is not installed (npm run setup installs it)" >&2
  exit 3
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
port=${2:-$((40000 + RANDOM % 20000))}
dir=$(mktemp -d /tmp/pufferfish-pg.XXXXXX)
chown postgres "$dir"
runuser -u postgres -- "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -o "-p $port -k $dir -c listen_addresses=127.0.0.1" -l "$dir/log" -w start >/dev/null
echo "postgres://postgres@127.0.0.1:$port/postgres $dir"
