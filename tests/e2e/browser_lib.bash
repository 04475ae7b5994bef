# A real headless Chromium driven by Playwright (sourced by the tests that
# look at a page; run alone it does nothing).
#   browser_setup            Debian's chromium and npm's playwright-core, the
#                            latter installed once into build/npm; sets
#                            CHROMIUM and BROWSER_NODE_PATH, or prints one
#                            "not ok" and exits when either cannot be had
#   browser_node SCRIPT ...  runs a Node script that may require('playwright-core')
#                            and launch chromium at process.env.CHROMIUM
[ "${BASH_SOURCE[0]}" = "$0" ] && exit 0

BROWSER_NPM_DIR=${BROWSER_NPM_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/npm}

browser_setup() {
  CHROMIUM=$(command -v chromium 2>/dev/null || echo /usr/bin/chromium)
  if [ ! -x "$CHROMIUM" ]; then
    echo "not ok - chromium is installed (scripts/install-deps.sh installs Debian's)"
    exit 0
  fi
  if [ ! -f "$BROWSER_NPM_DIR/node_modules/playwright-core/package.json" ]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "not ok - npm is installed (scripts/install-deps.sh installs Debian's)"
      exit 0
    fi
    mkdir -p "$BROWSER_NPM_DIR"
    # The version is pinned so that every machine drives Chromium the same way.
    if ! npm install --no-save --no-audit --no-fund --prefix "$BROWSER_NPM_DIR" \
      playwright-core@1.64.1 >"$BROWSER_NPM_DIR/install.log" 2>&1; then
      echo "not ok - npm installs playwright-core (see $BROWSER_NPM_DIR/install.log)"
      exit 0
    fi
  fi
  BROWSER_NODE_PATH=$BROWSER_NPM_DIR/node_modules
  export CHROMIUM
}

browser_node() {
  NODE_PATH=$BROWSER_NODE_PATH CHROMIUM=$CHROMIUM timeout 120 node "$@"
}
