#!/usr/bin/env bash
# System packages the full test suite needs, from Debian (root): PostgreSQL for the database
# source tests, Chromium for the web-app tests. `npm run setup` and .ci/run call this; `npm test`
# never installs anything (without them those tests are skipped, saying why; under CI=true they fail).
set -euo pipefail
need=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
