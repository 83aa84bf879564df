#!/usr/bin/env bash
# Builds the npm packages: `benchdiff` (the JS launcher, npm/benchdiff/) and
# `@benchdiff/linux-x64` (npm/linux-x64/ plus the binary of a release build), both at the
# crate's version, staged under OUT (default target/npm) and packed with `npm pack`.
# Prints the two tarballs' paths, launcher first.
#
#   scripts/npm-pack.sh                  # cargo build --release --locked, then pack
#   scripts/npm-pack.sh --binary PATH    # pack an already built binary instead
#   scripts/npm-pack.sh --out DIR        # stage and pack into DIR
#
# Publish with `npm publish OUT/benchdiff-linux-x64-VERSION.tgz --access public` first, then
# the launcher's tarball.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=
out=${CARGO_TARGET_DIR:-target}/npm
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: scripts/npm-pack.sh [--binary PATH] [--out DIR]" >&2; exit 2 ;;
  esac
done

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ] && [ -z "$binary" ]; then
  echo "scripts/npm-pack.sh: this builds the linux-x64 package; run it on Linux x86-64" >&2
  exit 2
fi
if [ -z "$binary" ]; then
  cargo build --release --locked --bin benchdiff
  binary=${CARGO_TARGET_DIR:-target}/release/benchdiff
fi
[ -x "$binary" ] || { echo "scripts/npm-pack.sh: $binary is not an executable" >&2; exit 2; }

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
"$binary" --version | grep -qx "benchdiff $version" ||
  { echo "scripts/npm-pack.sh: $binary is not benchdiff $version" >&2; exit 2; }

rm -rf "$out/benchdiff" "$out/linux-x64"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp -R npm/benchdiff npm/linux-x64 "$out/"
mkdir -p "$out/linux-x64/bin"
cp "$binary" "$out/linux-x64/bin/benchdiff"
chmod 755 "$out/linux-x64/bin/benchdiff" "$out/benchdiff/bin/benchdiff.js"

# Both packages at the crate's version; the launcher asks for exactly that binary package.
node - "$out" "$version" <<'JS'
const fs = require('node:fs');
const [dir, version] = process.argv.slice(2);
for (const name of ['benchdiff', 'linux-x64']) {
  const file = `${dir}/${name}/package.json`;
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  pkg.version = version;
  for (const dep of Object.keys(pkg.optionalDependencies || {})) {
    pkg.optionalDependencies[dep] = version;
  }
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}
JS

for name in linux-x64 benchdiff; do
  (cd "$out" && npm pack --silent "./$name" >/dev/null)
done
echo "$out/benchdiff-$version.tgz"
echo "$out/benchdiff-linux-x64-$version.tgz"
