#!/usr/bin/env bash
# Installs (once, cached) the MCP clients tests/real_clients_test.ts drives, from npm at pinned
# versions, with the Node 22 they need (this Debian's node may be older), and prints the directory
# that holds them. A client that cannot be installed is left out and named on stderr; the test
# ignores its case saying why. Exits non-zero only when nothing could be installed.
set -uo pipefail
NODE_VERSION=22.23.3
declare -A CLIENTS=(
  [claude]=@anthropic-ai/claude-code@2.1.332
  [codex]=@openai/codex@0.171.0
  [gemini]=@google/gemini-cli@0.61.0
  [opencode]=opencode-ai@1.18.33
  [qwen]=@qwen-code/qwen-code@0.24.4
  [copilot]=@github/copilot@1.0.102
)
dir=${TMUX_MCP_CLIENTS_CACHE:-${TMUX_BUILD_CACHE:-/var/cache/tmux-mcp-ci}/clients}
mkdir -p "$dir" || exit 1
installed=0
# One prefix per package, named by its exact version, so a pin that changes installs anew.
install() {
  local prefix="$dir/$1" spec=$2
  if [ ! -f "$prefix/.installed" ] || [ "$(cat "$prefix/.installed")" != "$spec" ]; then
    rm -rf "$prefix"
    mkdir -p "$prefix"
    # No retries: a registry that cannot be reached is not there.
    if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      --fetch-retries=0 "$spec" >&2; then
      echo "real-clients: $spec could not be installed from npm" >&2
      rm -rf "$prefix"
      return 1
    fi
    echo "$spec" >"$prefix/.installed"
  fi
}
install node "node@${NODE_VERSION}" || exit 1
for name in "${!CLIENTS[@]}"; do
  install "$name" "${CLIENTS[$name]}" && installed=$((installed + 1))
done
[ "$installed" -gt 0 ] || exit 1
echo "$dir"
