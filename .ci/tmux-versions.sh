#!/usr/bin/env bash
# Builds the tmux releases people run that this Debian has no binary package for, so the suite
# can run against each: from Debian's source packages 3.1c (bullseye, older than the 3.3 that
# tmux_run needs), 3.5a (trixie, Debian 13) and 3.6a; from the tarballs in ../shared/tmux-src/
# 3.4 (Ubuntu 24.04 LTS), 3.7c (Homebrew, Debian backports) and master (the coming 3.8). Debian's
# indexes also name 3.6b, 3.7c and 3.8 source packages, but the archive reached here serves none
# of their files (404), and serves 3.6a-2 though no index names it: so each source package is
# fetched from the archive's pool by its exact name (apt-helper, with the digests its .dsc
# lists checked by dpkg-source), which needs no apt index at all and leaves the system's apt
# configuration as it was. Each build lands in $TMUX_BUILD_CACHE/tmux-VERSION/bin/tmux and is
# reused when present. Usage: .ci/tmux-versions.sh VERSION...; prints the path of each tmux it
# built or found, one per line, in the order asked. A build that fails prints nothing for it and
# the script exits non-zero after trying the rest.
set -euo pipefail
cache=${TMUX_BUILD_CACHE:-/var/cache/tmux-mcp-ci}
here=$(cd "$(dirname "$0")" && pwd)
tarballs=${TMUX_SOURCE_TARBALLS:-$here/../../shared/tmux-src}
declare -A DEBIAN_VERSION=([3.1c]=3.1c-1+deb11u1 [3.5a]=3.5a-3 [3.6a]=3.6a-2)
declare -A TARBALL=([3.4]=tmux-3.4.tar.gz [3.7c]=tmux-3.7c.tar.gz
  [master]=tmux-master-c1f947a3c.tar.gz)
# What `tmux -V` says when it is not "tmux VERSION": master names its next release, and what
# Debian's 3.6a-2 source package builds says "tmux 3.6".
declare -A SAYS=([master]="tmux next-3.8" [3.6a]="tmux 3.6")
[ $# -gt 0 ] || { echo "usage: $0 VERSION..." >&2; exit 2; }

# The Debian archive this machine's apt already uses (deb822 .sources or one-line sources.list),
# so the source packages come the way every other package here does.
mirror() {
  { awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list; } 2>/dev/null |
    grep -E '/debian/?$' | head -n 1 || true
}

# autoconf and automake: a Debian .orig tarball (3.6a's) may come without `configure`.
build_packages=(libevent-dev libncurses-dev bison pkg-config build-essential autoconf automake)
ensure_build_packages() {
  local need=() package
  for package in "${build_packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
  done
  [ ${#need[@]} -eq 0 ] && return
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

# Unpacks VERSION's Debian source package into the current directory's ./source.
debian_source() {
  local archive pool dsc file
  archive=$(mirror)
  [ -n "$archive" ] || { echo "no Debian archive found in this machine's apt sources" >&2; return 1; }
  pool="${archive%/}/pool/main/t/tmux"
  dsc="tmux_${DEBIAN_VERSION[$1]}.dsc"
  fetch "$pool/$dsc" "$dsc"
  for file in $(awk '/^Files:/ { on = 1; next } on && /^ / { print $3; next } { on = 0 }' "$dsc"); do
    fetch "$pool/$file" "$file"
  done
  dpkg-source -x "$dsc" source >/dev/null
}

# Downloads URL to FILE, with the characters a Debian version holds escaped as the pool names them.
fetch() {
  local url=${1//\~/%7e}
  /usr/lib/apt/apt-helper download-file "${url//+/%2b}" "$2" >&2
}

tarball_source() {
  local file="$tarballs/${TARBALL[$1]}"
  [ -f "$file" ] || { echo "no $file" >&2; return 1; }
  mkdir source
  tar xzf "$file" -C source --strip-components=1
}

says() {
  if [ -n "${SAYS[$1]:-}" ]; then echo "${SAYS[$1]}"; else echo "tmux $1"; fi
}

status=0
for version in "$@"; do
  prefix="$cache/tmux-$version"
  if [ -x "$prefix/bin/tmux" ] && [ "$("$prefix/bin/tmux" -V)" = "$(says "$version")" ]; then
    echo "$prefix/bin/tmux"
    continue
  fi
  if [ -z "${DEBIAN_VERSION[$version]:-}" ] && [ -z "${TARBALL[$version]:-}" ]; then
    echo "no source known for tmux $version" >&2
    status=1
    continue
  fi
  work=$(mktemp -d)
  if (
    set -e
    ensure_build_packages
    cd "$work"
    if [ -n "${DEBIAN_VERSION[$version]:-}" ]; then
      debian_source "$version"
    else
      tarball_source "$version"
    fi
    cd source
    [ -x configure ] || sh autogen.sh >&2
    ./configure --prefix="$prefix" --quiet >&2
    make -j"$(nproc)" >/dev/null 2>&1 || make >&2
    make install >/dev/null
  ) && [ "$("$prefix/bin/tmux" -V)" = "$(says "$version")" ]; then
    echo "built $("$prefix/bin/tmux" -V)" >&2
    echo "$prefix/bin/tmux"
  else
    echo "building tmux $version failed" >&2
    status=1
  fi
  rm -rf "$work"
done
exit $status
