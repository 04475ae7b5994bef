#!/bin/bash
# make test-package: the Debian package of make deb, installed into a clean
# Debian 12 root made by debootstrap (kept in build/debroot.tar between runs,
# its first making takes minutes and needs a Debian mirror): it installs with
# its dependencies, `quern --version` answers, its unit passes
# systemd-analyze verify, and a local run inside the root serves a target
# there. Ends with "N passed, N failed". Needs root (chroot).
set -u
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d /tmp/quern-package.XXXXXX)
passed=0 failed=0
check() {
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok - $what"; passed=$((passed + 1)); else echo "not ok - $what"; failed=$((failed + 1)); fi
}
R=$TMP/root
cleanup() {
  for m in proc dev sys; do umount -l "$R/$m" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
finish() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }
[ "$(id -u)" = 0 ] || { echo "not ok - test-package needs root (chroot)"; failed=1; finish; }
scripts/install-deps.sh debootstrap systemd

V=$(sed -n 's/^#define QUERN_VERSION "\(.*\)"/\1/p' common/version.h)
make -s deb >"$TMP/deb.log" 2>&1
check "make deb: built, lintian clean but for the explained overrides" test $? = 0
DEB=$(ls build/deb/quern_"$V"_*.deb 2>/dev/null | head -n 1)
check "the package is quern $V" test -n "$DEB"
[ -n "$DEB" ] || { tail -n 20 "$TMP/deb.log"; finish; }

if [ ! -s build/debroot.tar ]; then
  debootstrap --variant=minbase bookworm "$TMP/fresh" http://deb.debian.org/debian >"$TMP/debootstrap.log" 2>&1 &&
    tar -C "$TMP/fresh" -cf build/debroot.tar . && rm -rf "$TMP/fresh"
fi
mkdir -p "$R" && tar -C "$R" -xf build/debroot.tar
check "a clean Debian 12 root" test -f "$R/etc/debian_version"
for m in proc dev sys; do mount --bind "/$m" "$R/$m"; done
cp /etc/resolv.conf "$R/etc/resolv.conf"
cp "$DEB" "$R/tmp/"
chroot "$R" sh -c 'apt-get update -qq && apt-get install -y -qq /tmp/'"$(basename "$DEB")" >"$TMP/apt.log" 2>&1
check "apt-get installs it with its dependencies" test $? = 0
check "quern --version in the root" bash -c "chroot '$R' quern --version | grep -qx 'quern $V'"
check "its man page is there" test -s "$R/usr/share/man/man1/quern-run.1.gz"
check "the Lua annotations are there" test -s "$R/usr/share/quern/annotations/quern/http.lua"
# systemd and man-db as a host that runs the agent has them, for verify.
chroot "$R" apt-get install -y -qq systemd man-db >>"$TMP/apt.log" 2>&1
chroot "$R" systemd-analyze verify /lib/systemd/system/quern-agent.service >"$TMP/verify.log" 2>&1
check "its unit passes systemd-analyze verify, without a complaint" test $? = 0 -a ! -s "$TMP/verify.log"
check "the unit is not enabled (it needs its console and token first)" \
  bash -c "! ls '$R'/etc/systemd/system/*/quern-agent.service 2>/dev/null | grep -q ."
check "the agent's settings are a conffile" grep -qx /etc/default/quern-agent "$R/var/lib/dpkg/info/quern.conffiles"

# A local run in the root against the demo target (the tree's, started
# outside: the root shares the host's loopback).
make -s quern >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bin/quern-target --port "$port" >"$TMP/target.log" 2>&1 &
tpid=$!
sleep 0.5
mkdir -p "$R/tmp/scenario"
cat >"$R/tmp/scenario/hit.lua" <<'LUA'
local quern = require "quern"
local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("HIT", { pacing = "200ms" })
local hit = sc:step(1, "Hit")
function sc.run(vu) hit:get(base .. "/vu/" .. vu.id):expect(404) end
LUA
chroot "$R" quern run /tmp/scenario/hit.lua --vus 2 --duration 2s -q -p base_url="http://127.0.0.1:$port" \
  --db /tmp/r.db --summary-json /tmp/s.json >"$TMP/run.log" 2>&1
check "a local run in the root: exit 0" test $? = 0
n=$(chroot "$R" sh -c 'grep -o "\"count\": *[0-9]*" /tmp/s.json' | grep -o '[0-9]*$' | paste -sd+ | bc)
served=$(curl -s "http://127.0.0.1:$port/__stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')
check "a local run in the root: its counts are the target's ($n)" test "${n:-0}" -gt 0 -a "${n:-0}" = "$served"
kill $tpid
chroot "$R" apt-get purge -y -qq quern >"$TMP/purge.log" 2>&1
check "purged: nothing left" bash -c "! ls '$R/usr/bin/quern' '$R/etc/default/quern-agent' '$R/lib/systemd/system/quern-agent.service' 2>/dev/null | grep -q ."
finish
