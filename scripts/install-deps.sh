#!/bin/sh
# Installs the Debian 12 packages quern needs to build and test, when they are missing.
# Usage: scripts/install-deps.sh [--fuzz] [extra-package ...]
#   --fuzz   also Debian's clang and its sanitizer runtimes, for make fuzz (make test needs neither)
set -eu

FUZZ_PKGS="clang libclang-rt-14-dev"
fuzz=""
if [ "${1:-}" = "--fuzz" ]; then fuzz="$FUZZ_PKGS"; shift; fi

PKGS="build-essential pkg-config libcurl4-openssl-dev libev-dev liblua5.4-dev zlib1g-dev libdw-dev \
libprotobuf-c-dev protobuf-c-compiler libsqlite3-dev libxml2-dev libjansson-dev \
libmicrohttpd-dev libcmocka-dev libssl-dev valgrind jq curl sqlite3 libxml2-utils chromium iproute2 procps man-db groff-base \
clang-format nginx prometheus prometheus-node-exporter python3-yaml libwslay-dev python3-websockets \
libsnappy-dev influxdb redis-server memcached postgresql mosquitto mosquitto-clients protobuf-compiler libprotobuf-dev python3-grpcio python3-protobuf lua-check $fuzz $*"
# Node and npm drive Chromium in the browser tests; a machine that has them
# from elsewhere keeps its own.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
  SUDO="sudo"
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
