#!/usr/bin/env bash
# A stand-in for the Dockerfile's default base image, for machines that reach Debian's packages and
# the npm registry but no image registry: a minimal Debian bookworm root (debootstrap) with this
# machine's Node and npm, its CA bundle, and its /etc/npmrc where that npm reads its global
# configuration (<prefix>/etc/npmrc), so that `npm ci` inside `docker build` reaches the registry as
# this machine does. Made once: a tag that exists is left as it is.
# Usage: test/containers/stand-in-base.sh <tag>
set -euo pipefail
tag=${1:?usage: stand-in-base.sh <tag>}
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "stand-in base $tag exists"
  exit 0
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
debootstrap --variant=minbase bookworm "$root" "${mirror:-http://deb.debian.org/debian}" >/dev/null
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

# Node and npm as the official image lays them out: /usr/local/bin, npm's prefix /usr/local.
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
install -D "$(readlink -f "$(command -v node)")" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
install -D -m 644 /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
[ -f /etc/npmrc ] && install -D -m 644 /etc/npmrc "$root/usr/local/etc/npmrc"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "stand-in base $tag made"
