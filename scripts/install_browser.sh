#!/bin/sh
# Install what tests/publish/test_browser.py drives: Debian's `chromium` (apt) and the `playwright`
# Python package (pip, into the project's venv). No browser is ever downloaded by Playwright:
# the test launches /usr/bin/chromium with executable_path.
#
# Idempotent and quiet: does nothing when both are present, so `make test` can call it on
# every run. Without root (and without password-less sudo) or without apt-get it says so and
# exits 0: the browser test then skips with that reason (under CI=true it fails instead).
#
# usage: scripts/install_browser.sh [python]   (default .venv/bin/python)
set -eu

PY=${1:-.venv/bin/python}
CHROMIUM=/usr/bin/chromium

if [ ! -x "$CHROMIUM" ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            SUDO="sudo -n"
        else
            echo "install_browser: not root and no password-less sudo; $CHROMIUM not installed (the browser test will skip)" >&2
            SUDO="none"
        fi
    fi
    if [ "$SUDO" != "none" ]; then
        if command -v apt-get >/dev/null 2>&1; then
            $SUDO apt-get update -qq >/dev/null
            $SUDO env DEBIAN_FRONTEND=noninteractive \
                apt-get install -y -qq --no-install-recommends chromium >/dev/null
        else
            echo "install_browser: no apt-get; install Chromium at $CHROMIUM yourself (the browser test will skip)" >&2
        fi
    fi
fi

if ! "$PY" -c "import playwright.sync_api" >/dev/null 2>&1; then
    "$PY" -m pip install -q "playwright>=1.40"
fi
