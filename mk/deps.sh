#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages listed in mk/debian-packages.txt that are missing.
#   sh mk/deps.sh            installs them (as root, with apt-get); not root: prints the command
#   sh mk/deps.sh --missing  prints their names on one line (nothing when all are present)
#                            and installs nothing: `make test` and `make demo` refuse to
#                            start while a listed package is missing, naming it.
set -eu
list="$(dirname "$0")/debian-packages.txt"
pkgs=$(sed -e 's/#.*//' "$list" | tr -s ' \t' '\n' | grep -v '^$')
missing=""
for p in $pkgs; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
if [ "${1:-}" = --missing ]; then
	echo $missing
	exit 0
fi
if [ -z "$missing" ]; then
	echo "deps: all $(echo $pkgs | wc -w) Debian packages present"
	exit 0
fi
echo "deps: missing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root:  apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
