#!/bin/sh
# deps.sh PACKAGE... -- makes sure the Debian packages are installed.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails.  On a system without dpkg it does nothing
# (the build then needs the same libraries by other means).
command -v dpkg-query >/dev/null 2>&1 || exit 0
missing=
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends $missing ||
    { apt-get update && apt-get install -y --no-install-recommends $missing; }
else
  echo "missing Debian packages; run:" >&2
  echo "  sudo apt-get install -y$missing" >&2
  exit 1
fi
