#!/usr/bin/env bash
# What tests/test_app_browser.py needs: Debian's headless Chromium and its driver, CJK and emoji fonts (so the
# screenshots show text, not boxes), and selenium in the virtualenv. A fast no-op once everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PACKAGES=(chromium chromium-driver fonts-noto-cjk fonts-noto-color-emoji)

if ! dpkg -s "${PACKAGES[@]}" >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${PACKAGES[@]}"
fi
if ! "$VENV/bin/python" -c "import selenium" 2>/dev/null; then
  "$VENV/bin/python" -m pip install --quiet 'selenium>=4.20,<5'
fi
