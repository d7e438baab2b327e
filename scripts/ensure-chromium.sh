#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests when it is missing (root, as on CI).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
fi
