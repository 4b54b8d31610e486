#!/usr/bin/env bash
# The client as a stranger gets it: pack packages/client, put the tarball in an empty directory as
# the README's consumer block names it, run that block there as written (only the org port's URL
# rewritten to a server of our own, started from this repository on an in-memory database), and
# hold what it printed to the `# ` lines under it. Then the install's weight: the consumer's
# node_modules without its dev dependencies (typescript, @types/node) within 10 MB of what the
# package's declared dependencies weigh installed alone, and none of the server's packages in it.
# Then docs/examples.md's browser block, as written in another empty directory: it installs no
# Effect (and the main entry there refuses in its one line), and the page it bundles, served on a
# port of its own that the server's CORS_ORIGINS names, shows in Chromium the `# ` lines under it.
# Last, Effect 4 installed over the consumer: `npx tsc` fails, in the example and in the declarations
# that name what Effect 4 removed (docs/examples.md says so), and the package refuses at import in
# its one line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# A doc's block NAME: the ```sh block between its markers; its expected output the `# ` lines ending it.
block_of() {
  awk "/<!-- examples:$2 -->/{on=1;next} /<!-- \\/examples:$2 -->/{exit} on" "$root/$1" | awk '/^```sh/{on=1;next} on&&/^```/{exit} on'
}
expected_of() { printf '%s\n' "$1" | tac | awk '/^# /{print substr($0, 3); next} {exit}' | tac; }
tarball_of() { awk 'match($0, /\.\/onboarding-services-client-[^ ]*\.tgz/) { print substr($0, RSTART, RLENGTH); exit }' <<<"$1"; }

block=$(block_of README.md consumer)
[ -n "$block" ] || { echo "README.md has no consumer block (<!-- examples:consumer -->)" >&2; exit 1; }
expected=$(expected_of "$block")
tarball=$(tarball_of "$block")
[ -n "$tarball" ] || { echo "the consumer block installs no ./onboarding-services-client-*.tgz" >&2; exit 1; }
browser_block=$(block_of docs/examples.md browser)
[ -n "$browser_block" ] || { echo "docs/examples.md has no browser block (<!-- examples:browser -->)" >&2; exit 1; }
browser_expected=$(expected_of "$browser_block")
[ "$(tarball_of "$browser_block")" = "$tarball" ] || { echo "the browser block does not install $tarball" >&2; exit 1; }

# Ports of our own, so that a service already on the README's 9090 is never the one called.
# The fifth serves the browser block's page, the origin the server's CORS_ORIGINS names.
read -r org profile license workflow page < <(node -e '
  const net = require("node:net")
  Promise.all([0, 1, 2, 3, 4].map(() => new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => { const { port } = server.address(); server.close(() => resolve(port)) })
  }))).then((ports) => console.log(ports.join(" ")))')

echo "starting the server from the repository (npm start's process, in memory)"
(cd "$root" && DATA_DIR=memory:// CORS_ORIGINS=http://127.0.0.1:$page ORG_PORT=$org PROFILE_PORT=$profile LICENSE_PORT=$license WORKFLOW_PORT=$workflow \
  exec node dist/main/all.js) > "$work/server.log" 2>&1 &
server=$!

echo "packing packages/client (prepack builds it)"
mkdir "$work/consumer"
packed=$(cd "$root/packages/client" && npm pack --silent --pack-destination "$work/consumer" | tail -n 1)
[ "./$packed" = "$tarball" ] || { echo "npm pack made $packed; the README installs $tarball" >&2; exit 1; }

for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$org/readyz" > /dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done

echo "running the README's consumer block in an empty directory"
cd "$work/consumer"
printf '%s\n' "$block" | sed "s#http://127.0.0.1:9090#http://127.0.0.1:$org#g" > "$work/consumer.sh"
bash -e "$work/consumer.sh" | tee "$work/consumer.out"
printed=$(tail -n "$(printf '%s\n' "$expected" | wc -l)" "$work/consumer.out")
if [ "$printed" != "$expected" ]; then
  printf 'the block ended with:\n%s\nthe README says:\n%s\n' "$printed" "$expected" >&2
  exit 1
fi
echo "the installed client answered as the README says: $(echo $printed)"

echo "weighing the install"
cp -a "$work/consumer" "$work/measured"
(cd "$work/measured" && npm prune --omit=dev --loglevel=error > /dev/null)
consumer_kb=$(du -sk "$work/measured/node_modules" | cut -f1)
# The package's declared dependencies and the Effect peers its main entry needs (not connect-node), alone.
mkdir "$work/declared" && cd "$work/declared"
npm init -y > /dev/null
specs=$(node -e '
  const p = require(process.argv[1])
  const peers = Object.entries(p.peerDependencies).filter(([name]) => /^(effect|@effect\/)/.test(name))
  console.log([...Object.entries(p.dependencies), ...peers].map(([name, range]) => `${name}@${range}`).join(" "))
' "$root/packages/client/package.json")
# shellcheck disable=SC2086
npm install --loglevel=error $specs > /dev/null
declared_kb=$(du -sk "$work/declared/node_modules" | cut -f1)
echo "consumer node_modules without dev dependencies: $((consumer_kb / 1024)) MB ($consumer_kb KiB)"
echo "declared dependencies alone ($specs): $((declared_kb / 1024)) MB ($declared_kb KiB)"
if [ $((consumer_kb - declared_kb)) -gt 10240 ]; then
  echo "the client installs $(((consumer_kb - declared_kb) / 1024)) MB more than its declared dependencies (at most 10 MB)" >&2
  exit 1
fi
server_packages=$(cd "$work/measured" && npm ls --all --parseable 2>/dev/null \
  | grep -E '/node_modules/(react|graphiql|swagger-ui-dist|@electric-sql/[^/]+|pg|@opentelemetry/sdk-[^/]+)$' || true)
if [ -n "$server_packages" ]; then
  printf 'the consumer installed packages of the server:\n%s\n' "$server_packages" >&2
  exit 1
fi
echo "none of react, graphiql, swagger-ui-dist, @electric-sql/*, pg, @opentelemetry/sdk-* installed"

echo "running docs/examples.md's browser block in an empty directory"
mkdir "$work/browser"
cp "$work/consumer/$packed" "$work/browser/"
cd "$work/browser"
printf '%s\n' "$browser_block" | sed "s#http://127.0.0.1:9090#http://127.0.0.1:$org#g" > "$work/browser.sh"
bash -e "$work/browser.sh"
effect_installed=$(ls -d node_modules/effect node_modules/@effect 2>/dev/null || true)
[ -z "$effect_installed" ] || { printf 'the browser block installed Effect:\n%s\n' "$effect_installed" >&2; exit 1; }
echo "no Effect installed; app.js: $(wc -c < app.js) bytes"
if refused=$(node --input-type=module -e 'await import("onboarding-services-client")' 2>&1); then
  echo "the main entry loaded without Effect" >&2
  exit 1
fi
line=$(printf '%s\n' "$refused" | grep -m 1 'onboarding-services-client needs the Effect 3 line .* found effect missing' || true)
[ -n "$line" ] || { printf 'without Effect the main entry failed otherwise:\n%s\n' "$refused" >&2; exit 1; }
echo "the main entry without Effect refused: ${line#Error: }"
chromium_path=$(command -v chromium || true)
if [ -z "$chromium_path" ] && [ "${REQUIRE_SYSTEM_TOOLS:-}" = 1 ]; then
  echo "chromium is not installed, and REQUIRE_SYSTEM_TOOLS=1 (CI) does not allow the page to be skipped" >&2
  exit 1
elif [ -z "$chromium_path" ]; then
  echo "skipping the page in Chromium: chromium is not installed (apt-get install chromium)"
else
  shown=$(cd "$root" && node scripts/client-browser-page.mjs "$work/browser" "$page" "$chromium_path")
  if [ "$shown" != "$browser_expected" ]; then
    printf 'the page showed:\n%s\ndocs/examples.md says:\n%s\n' "$shown" "$browser_expected" >&2
    exit 1
  fi
  echo "the page in Chromium showed what docs/examples.md says: $(echo $shown)"
fi

echo "installing Effect 4 over the consumer (npm warns and installs it): tsc fails, the package refuses at import"
cd "$work/consumer"
npm install --loglevel=error effect@4 > /dev/null 2>&1
if typed=$(npx tsc 2>&1); then
  echo "the example type-checked on effect $(node -p 'require("effect/package.json").version')" >&2
  exit 1
fi
errors=$(printf '%s\n' "$typed" | grep -c ': error TS' || true)
in_example=$(printf '%s\n' "$typed" | grep -c '^example\.ts(.*: error TS2345' || true)
removed=$(printf '%s\n' "$typed" | grep -m 1 "^node_modules/onboarding-services-client/.*: error TS2694: Namespace .*effect/dist/Schema.* has no exported member" || true)
if [ "$errors" -lt 200 ] || [ "$in_example" -eq 0 ] || [ -z "$removed" ]; then
  printf 'on Effect 4 tsc failed otherwise than docs/examples.md says:\n%s\n' "$typed" | head -n 40 >&2
  exit 1
fi
echo "tsc failed: $errors errors, $in_example TS2345 in example.ts, the rest in declarations, such as: ${removed#node_modules/}"
if refused=$(node example.js 2>&1); then
  echo "the example ran on effect $(node -p 'require("effect/package.json").version')" >&2
  exit 1
fi
line=$(printf '%s\n' "$refused" | grep -m 1 'onboarding-services-client needs the Effect 3 line' || true)
[ -n "$line" ] || { printf 'on Effect 4 the example failed otherwise:\n%s\n' "$refused" >&2; exit 1; }
echo "refused: ${line#Error: }"
