#!/usr/bin/env bash
# Runs the unit and integration suites (or the command given) on the current Node.js LTS line, the one the
# Dockerfile ships, while this checkout's node_modules stays built for the machine's Node: pkcs11js is native,
# built once per Node ABI. So it works in a copy of the checkout under .cache/ (git ignores it) with its own
# node_modules. Node itself comes from the npm registry (package node-linux-<arch>: the binary and the headers
# node-gyp builds against), so it needs nothing but npm, and is cached under .cache/ too.
#   bin/with-node-lts.sh                      jest --selectProjects unit int, on Node $DELTABROKER_LTS_NODE (24)
#   bin/with-node-lts.sh node -v              any command, in the copy, with that Node first on PATH
# A bash script rather than a Node one: it is a few npm, tar and git commands, and runs before any Node but the
# machine's is there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
major=${DELTABROKER_LTS_NODE:-24}
arch=$(node -p process.arch)
cache=$root/.cache/node-lts/$major
say() { echo "with-node-lts: $*" >&2; }
mkdir -p "$cache"

# The newest release of the line; offline, the newest one already cached.
newest='const n = (v) => v.split(".").map(Number); [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")))
  .sort((a, b) => n(a)[1] - n(b)[1] || n(a)[2] - n(b)[2]).at(-1)'
version=$(npm view "node-linux-$arch@$major" version --json 2>/dev/null | node -p "$newest" || true)
[[ -n $version ]] || version=$(ls "$cache" | sed -n 's/^node-//p' | sort -V | tail -1)
[[ -n $version ]] || { say "cannot resolve node-linux-$arch@$major and none is cached"; exit 1; }
nodedir=$cache/node-$version
if [[ ! -x $nodedir/bin/node ]]; then
  say "fetching Node $version from the npm registry"
  tmp=$(mktemp -d "$cache/fetch.XXXXXX")
  (cd "$tmp" && npm pack "node-linux-$arch@$version" --silent >/dev/null && tar -xzf ./*.tgz)
  rm -rf "$nodedir" && mv "$tmp/package" "$nodedir" && rm -rf "$tmp"
  # Older releases of the line are no longer used.
  find "$cache" -mindepth 1 -maxdepth 1 -name 'node-*' ! -name "node-$version" -exec rm -rf {} +
fi

# The copy: the files git would commit from the working tree as it is now (ignored ones left out). Its
# node_modules is kept between runs and reinstalled by ensure-install.js when the lock is newer.
work=$cache/checkout
mkdir -p "$work"
find "$work" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
(cd "$root" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
  [[ -e $file ]] && printf '%s\0' "$file"
done | tar --null -T - -cf -) | tar -xf - -C "$work"

export PATH=$nodedir/bin:$PATH
export npm_config_nodedir=$nodedir # node-gyp builds pkcs11js against these headers instead of downloading them
# Engines for the suites resolved once, shared with the checkout.
export DELTABROKER_ENGINE_CACHE=${DELTABROKER_ENGINE_CACHE:-$root/.cache/engines}
cd "$work"
say "Node $(node -v) in $work"
node bin/ensure-install.js
node bin/ensure-softhsm.js
if (($#)); then exec "$@"; fi
# The real-engine suites ran in `npm test` already; their JVM engines are not started a second time here.
export DELTABROKER_TEST_ENGINES="${DELTABROKER_TEST_ENGINES:-off}"
exec node node_modules/jest/bin/jest.js --runInBand --selectProjects unit int
