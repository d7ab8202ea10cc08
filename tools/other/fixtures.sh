#!/usr/bin/env bash
# fixtures.sh — make fixtures-other: writes testdata/other/, small databases
# written by LevelDB implementations other than our upstream build, with a
# NAME.json beside each and a README.md (see tools/other/README.md).
#
# Set-up, as make compat does it: as root on Debian or Ubuntu it installs
# what is missing with apt-get (python3-plyvel, libleveldb-java, a JDK,
# nodejs and npm) and says so, otherwise it names what to install and exits
# 1. The npm packages, pinned by tools/other/node/package-lock.json, go into
# .cache/npm/ (npm ci, no install scripts: their prebuilt linux-x64 bindings
# ship in the packages, and are loaded once to check they work with this
# node). Go modules come through the module proxy.
#
# Usage: tools/other/fixtures.sh    (from the repository root; make fixtures-other)
set -euo pipefail

say() { printf 'fixtures-other: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

cd "$(dirname "$0")/../.."
root=$PWD
GO=${GO:-go}
PYTHON=/usr/bin/python3 # Debian's: plyvel is a Debian package
JAVA_CP=/usr/share/java/leveldb.jar:/usr/share/java/leveldb-api.jar:/usr/share/java/guava.jar
JAVA_OPENS=(--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED)

# --- set-up -----------------------------------------------------------------

command -v "$GO" >/dev/null 2>&1 || die "Go is not on PATH: install Go 1.22 or later (https://go.dev/dl/)"

need=()
[ -x "$PYTHON" ] && "$PYTHON" -c 'import plyvel' 2>/dev/null || need+=(python3-plyvel)
for jar in ${JAVA_CP//:/ }; do
	[ -e "$jar" ] || { need+=(libleveldb-java); break; }
done
{ command -v javac && command -v java; } >/dev/null 2>&1 || need+=(default-jdk-headless)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)

if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		say "installing with apt-get: ${need[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get -o DPkg::Lock::Timeout=900 update -qq >&2
		apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${need[@]}" >&2
		say "installed: ${need[*]}"
	else
		say "missing: ${need[*]}"
		die "install them, for example: sudo apt-get install ${need[*]}"
	fi
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || die "node $(node --version) is too old: classic-level 3 needs Node.js 18 or later"

# npm packages, exactly as locked, into .cache/npm/ (reinstalled when the
# lock file changes).
npmdir=$root/.cache/npm
lock=tools/other/node/package-lock.json
if ! cmp -s "$lock" "$npmdir/package-lock.json" || [ ! -d "$npmdir/node_modules" ]; then
	say "installing the npm packages of $lock into .cache/npm/ (npm ci --ignore-scripts)"
	rm -rf "$npmdir/node_modules"
	mkdir -p "$npmdir"
	cp tools/other/node/package.json "$lock" "$npmdir/"
	(cd "$npmdir" && npm ci --ignore-scripts --no-audit --no-fund --cache "$npmdir/_cacache" >&2)
fi
export NODE_PATH=$npmdir/node_modules
node -e 'require("classic-level"); require("leveldown")' ||
	die "the prebuilt bindings of classic-level or leveldown in .cache/npm/ do not load with node $(node --version) on $(uname -m)"

# The Java writer, compiled against Debian's jars.
javadir=$root/.cache/other/java
rm -rf "$javadir"
mkdir -p "$javadir"
javac -Xlint:all -Werror -cp "$JAVA_CP" -d "$javadir" tools/other/java/JavaWriter.java

# --- the databases ----------------------------------------------------------

tmp=$(mktemp -d "$root/testdata/.other.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

say "plyvel ($PYTHON)"
"$PYTHON" tools/other/plyvel_writer.py "$tmp"
say "libleveldb-java ($(java -version 2>&1 | head -n 1))"
java "${JAVA_OPENS[@]}" -Dldbcompat.package="$(dpkg-query -W -f '${Package} ${Version}' libleveldb-java 2>/dev/null || true)" \
	-cp "$javadir:$JAVA_CP" JavaWriter "$tmp"
say "classic-level and leveldown (node $(node --version))"
node tools/other/node/writer.js "$tmp"
say "syndtr/goleveldb"
(cd ports && "$GO" run ./cmd/mkother goleveldb "$tmp")
(cd ports && "$GO" run ./cmd/mkother readme "$tmp")

# Small, as fixtures must be: no file over 1 MiB, all under 2 MB.
big=$(find "$tmp" -type f -size +1024k)
[ -z "$big" ] || die "files over 1 MiB: $big"
total=$(du -sb "$tmp" | cut -f1)
[ "$total" -lt 2000000 ] || die "testdata/other would hold $total bytes: over 2 MB"

rm -rf testdata/other
mv "$tmp" testdata/other
chmod 755 testdata/other
trap - EXIT
say "wrote testdata/other: $(find testdata/other -mindepth 1 -maxdepth 1 -type d | wc -l) databases, $total bytes"
