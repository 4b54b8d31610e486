#!/usr/bin/env bash
# The client as a stranger gets it: `npm pack` this repository, install the tarball with
# the install command of docs/examples.md into an empty project, compile its typed-clients example there
# under strict NodeNext, start the server from the installed package, and run the example against it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# docs/examples.md's typed-clients section: its install command (```sh) and its example (```ts).
section=$(awk '/^## Typed clients/{on=1} on&&/<!-- \/examples:rpc -->/{exit} on' "$root/docs/examples.md")
install=$(printf '%s\n' "$section" | awk '/^```sh/{on=1;next} on&&/^```/{exit} on')
example=$(printf '%s\n' "$section" | awk '/^```ts/{on=1;next} on&&/^```/{exit} on')

echo "packing (prepack builds)"
tarball=$(cd "$root" && npm pack --silent --pack-destination "$work" | tail -n 1)
mkdir "$work/consumer" && cd "$work/consumer"
mv "$work/$tarball" .
printf '{ "name": "consumer", "private": true, "type": "module" }\n' > package.json

echo "installing as docs/examples.md says: $install"
bash -c "$install --no-audit --no-fund --loglevel=error"
dev() { node -p "require('$root/package.json').devDependencies['$1']"; }
npm install --no-audit --no-fund --loglevel=error --save-dev "typescript@$(dev typescript)" "@types/node@$(dev @types/node)"

cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "skipLibCheck": true, "types": ["node"]
  },
  "files": ["example.ts"]
}
JSON

# Ports of our own, so that a service already on the README's 9090 is never the one called.
read -r org profile license workflow < <(node -e '
  const net = require("node:net")
  Promise.all([0, 1, 2, 3].map(() => new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => { const { port } = server.address(); server.close(() => resolve(port)) })
  }))).then((ports) => console.log(ports.join(" ")))')
printf '%s\n' "$example" | sed "s#http://127.0.0.1:9090#http://127.0.0.1:$org#g" > example.ts
echo "type-checking the example (strict, NodeNext)"
npx tsc -p .

echo "starting the server from the installed package"
DATA_DIR=memory:// ORG_PORT=$org PROFILE_PORT=$profile LICENSE_PORT=$license WORKFLOW_PORT=$workflow \
  node node_modules/onboarding-services/dist/main/all.js > server.log 2>&1 &
server=$!
for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$org/readyz" > /dev/null && break
  kill -0 "$server" 2>/dev/null || { cat server.log >&2; exit 1; }
  sleep 0.5
done
curl -sf -X POST "http://127.0.0.1:$org/orgs/6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b" \
  -H 'content-type: application/json' -d '{"name": "Acme"}' > /dev/null

echo "running the example"
printed=$(node example.js)
if [ "$printed" != $'Acme\nAcme\nNotFound\nAcme' ]; then
  printf 'the example printed:\n%s\nexpected the org name "Acme" once per style and REST\x27s "NotFound" (four lines)\n' "$printed" >&2
  exit 1
fi
echo "the installed client answered in every style: $(echo $printed)"
