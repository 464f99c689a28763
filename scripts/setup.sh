#!/bin/sh
# Install the Debian packages listed in scripts/packages.txt that are missing.
# Idempotent; uses sudo when not root; runs apt-get update once before installing.
set -eu
here=$(dirname "$0")
list=${1:-$here/packages.txt}
missing=""
for pkg in $(sed -e 's/#.*//' "$list"); do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $pkg"
	fi
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
