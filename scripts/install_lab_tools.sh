#!/bin/sh
# Install the tools the collectors and the namespace lab test drive (issue 7):
# iperf3, iproute2 (ip, tc, ss), ethtool, ping, and cmake + g++ for the llama.cpp lab's one-time
# build (scripts/build_llama_cpp.sh), and redis-server, the broker of the Celery scale-out test
# (tests/orchestration/test_scale_out.py starts and stops its own on a loopback port), and
# PostgreSQL's server, the Dagster instance of test_scale_out_postgres.py (Debian keeps initdb and
# postgres in /usr/lib/postgresql/<version>/bin; the test finds them there). Idempotent: does nothing when every
# tool is already on PATH, so Makefile/CI can call it on every run.
# Needs root (or sudo) and a Debian/Ubuntu apt; elsewhere it says what is missing.
set -eu

missing=""
for tool in iperf3:iperf3 ip:iproute2 tc:iproute2 ss:iproute2 ethtool:ethtool ping:iputils-ping \
            cmake:cmake g++:g++ redis-server:redis-server initdb:postgresql; do
    bin=${tool%%:*}
    pkg=${tool#*:}
    # /usr/sbin is not on every user's PATH, but ip/tc/ethtool live there; Debian's PostgreSQL
    # programs are in /usr/lib/postgresql/<version>/bin.
    if ! command -v "$bin" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$bin" ] && [ ! -x "/sbin/$bin" ] \
            && ! ls /usr/lib/postgresql/*/bin/"$bin" >/dev/null 2>&1; then
        case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
    fi
done

if [ -z "$missing" ]; then
    echo "lab tools present: iperf3 ip tc ss ethtool ping cmake g++ redis-server postgresql"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_lab_tools: no apt-get; install these packages yourself:$missing" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install_lab_tools: need root to install:$missing" >&2
        exit 1
    fi
fi

echo "installing:$missing"
# iperf3's postinst asks whether to start a daemon; answer no, non-interactively.
echo "iperf3 iperf3/start_daemon boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086  # word splitting of the package list is intended
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
