#!/usr/bin/env bash
# Builds tmux releases from Debian's source packages, so the suite can run against tmux versions
# this Debian has no binary package for: 3.5a (trixie) and 3.1c (bullseye, older than the 3.3
# that tmux_run needs). Each lands in $TMUX_BUILD_CACHE/tmux-VERSION/bin/tmux and is reused when
# present. A private apt sources list with deb-src lines is used, so the system's apt
# configuration is left as it was. Usage: .ci/tmux-versions.sh [VERSION...] (default: both);
# prints the path of each tmux it built or found, one per line.
set -euo pipefail
cache=${TMUX_BUILD_CACHE:-/var/cache/tmux-mcp-ci}
declare -A SUITE=([3.5a]=trixie [3.1c]=bullseye)
declare -A DEBIAN_VERSION=([3.5a]=3.5a-3 [3.1c]=3.1c-1+deb11u1)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(3.5a 3.1c)

# The Debian archive this machine's apt already uses (deb822 .sources or one-line sources.list),
# so the source packages come the way every other package here does.
mirror=$(
  { awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list; } 2>/dev/null |
    grep -E '/debian/?$' | head -n 1 || true
)
[ -n "$mirror" ] || { echo "no Debian archive found in this machine's apt sources" >&2; exit 1; }

build_packages=(libevent-dev libncurses-dev bison pkg-config build-essential)
need=()
for package in "${build_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done

for version in "${versions[@]}"; do
  prefix="$cache/tmux-$version"
  if [ -x "$prefix/bin/tmux" ] && "$prefix/bin/tmux" -V | grep -qx "tmux $version"; then
    echo "$prefix/bin/tmux"
    continue
  fi
  suite=${SUITE[$version]:?"no Debian suite known for tmux $version"}
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    need=()
  fi
  apt_dir="$cache/apt-$suite"
  mkdir -p "$apt_dir/lists/partial"
  echo "deb-src $mirror $suite main" >"$apt_dir/sources.list"
  apt_options=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=-"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "APT::Sandbox::User=root"
  )
  apt-get "${apt_options[@]}" update -qq >&2
  work=$(mktemp -d)
  (
    cd "$work"
    apt-get "${apt_options[@]}" source --download-only -qq "tmux=${DEBIAN_VERSION[$version]}" >&2
    dpkg-source --no-check -x ./*.dsc source >/dev/null
    cd source
    ./configure --prefix="$prefix" --quiet >&2
    make -j"$(nproc)" >/dev/null 2>&1 || make >&2
    make install >/dev/null
  )
  rm -rf "$work"
  "$prefix/bin/tmux" -V >&2
  echo "$prefix/bin/tmux"
done
