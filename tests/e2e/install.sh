# make install: the binary and a man page per command under DESTDIR/PREFIX,
# the pages written from the help each command prints, the Lua annotations
# for editors; make uninstall takes them away again, all but the agent's
# settings file.
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/lib.bash"
B=$(dirname "$QUERN")
MODE=$(basename "$B")
ROOT="$TMP/root"

make -s MODE="$MODE" install DESTDIR="$ROOT" PREFIX=/usr >"$TMP/install.log" 2>&1
eq "make install: exit 0" "$?" 0
eq "the installed binary is this build's" "$("$ROOT/usr/bin/quern" --version)" "$("$QUERN" --version)"
for page in quern quern-run quern-check quern-new quern-agent quern-runs quern-report quern-compare quern-har2lua quern-ctl; do
  f="$ROOT/usr/share/man/man1/$page.1"
  check "$page(1) installed" test -s "$f"
  groff -man -ww -z "$f" 2>"$TMP/groff.$page"
  check "$page(1): roff without a warning" test ! -s "$TMP/groff.$page"
done
man -l "$ROOT/usr/share/man/man1/quern-run.1" 2>/dev/null | sed 's/.\x08//g' >"$TMP/run.txt"
check "quern-run(1) names the command" grep -q "quern-run - play a load test" "$TMP/run.txt"
missing=0
for flag in $("$QUERN" help run | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
  grep -q -- "$flag" "$TMP/run.txt" || { echo "# not in quern-run(1): $flag"; missing=$((missing + 1)); }
done
eq "quern-run(1) has every flag of quern help run" "$missing" 0
missing=0
for flag in $("$QUERN" help agent | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
  man -l "$ROOT/usr/share/man/man1/quern-agent.1" 2>/dev/null | sed 's/.\x08//g' | grep -q -- "$flag" ||
    missing=$((missing + 1))
done
eq "quern-agent(1) has every flag of quern help agent" "$missing" 0
check "quern(1) lists the commands" bash -c "man -l '$ROOT/usr/share/man/man1/quern.1' 2>/dev/null | sed 's/.\x08//g' | grep -q 'compare \[A \[B\]\]'"
check "quern(1) lists har2lua" bash -c "man -l '$ROOT/usr/share/man/man1/quern.1' 2>/dev/null | sed 's/.\x08//g' | grep -q 'har2lua FILE.har'"
eq "the Lua annotations, each file of share/annotations/" \
  "$(cd "$ROOT/usr/share/quern/annotations" && find . -type f | sort)" "$(cd share/annotations && find . -type f | sort)"
eq "the example .luarc.json names their folder" \
  "$(jq -r '.workspace.library[0]' "$ROOT/usr/share/quern/luarc.json")" /usr/share/quern/annotations

make -s MODE="$MODE" uninstall DESTDIR="$ROOT" PREFIX=/usr >>"$TMP/install.log" 2>&1
eq "make uninstall: exit 0" "$?" 0
eq "make uninstall leaves only the agent's settings (edited, maybe)" "$(cd "$ROOT" && find . -type f)" "./etc/default/quern-agent"

# The Debian package and the container image build from the same list of
# libraries as the tree (make deb and make test-package build and install it).
eq "scripts/debian/changelog is of this version" \
  "$(sed -n '1s/^quern (\([^)]*\)).*/\1/p' scripts/debian/changelog)" "$("$QUERN" --version | awk '{print $2}')"
# libprotobuf-dev is no build dependency: it holds the well-known .proto
# files (google/protobuf/*.proto) that protoc reads when grpc.load compiles a
# script's .proto, so the package recommends it beside protobuf-compiler and
# the image installs both.
check "scripts/debian/control recommends protobuf-compiler and libprotobuf-dev" \
  grep -qE '^Recommends:.*protobuf-compiler, libprotobuf-dev' scripts/debian/control
check "the Containerfile's image has protoc's well-known types" grep -qE 'protobuf-compiler libprotobuf-dev' scripts/container/Containerfile
for dev in $(tr -s ' \t"\\' '\n' <scripts/install-deps.sh | grep -E '^z?lib[a-z0-9.+-]+-dev$' | sort -u | grep -v '^libcmocka-dev$\|^libclang\|^libprotobuf-dev$'); do
  check "scripts/debian/control builds with $dev" grep -qE "^ *(Build-Depends: *)?$dev(,|$)" scripts/debian/control
  check "the Containerfile builds with $dev" grep -qw -- "$dev" scripts/container/Containerfile
done
