#!/bin/sh
# Install the Debian packages airc needs. As root it runs apt-get; otherwise
# it prints the exact command. With --if-missing it does nothing when every
# package is already installed.
set -e
if_missing=0
if [ "$1" = "--if-missing" ]; then if_missing=1; shift; fi
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  [ $if_missing = 1 ] || echo "deps: all installed:$*" | sed 's/:/: /'
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y $missing
else
  echo "deps: missing Debian packages:$missing"
  echo "deps: run: sudo apt-get update && sudo apt-get install -y$missing"
  exit 1
fi
