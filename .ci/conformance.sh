#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, Node >= 22 through
# npx) against this server, for one protocol era. The suite speaks HTTP. For the 2025 era the
# server runs as it ships, over stdio, behind supergateway (a stdio-to-Streamable-HTTP bridge
# from npm, sessions kept); the 2026-07-28 revision is stateless, one exchange per request, so
# there the server's own factory runs behind the SDK's HTTP entry (.ci/conformance_http.ts).
# Either way it is bound to 127.0.0.1 and a tmux server of its own.
# Usage: .ci/conformance.sh 2025|2026 [conformance server options], e.g.
#   .ci/conformance.sh 2025 --expected-failures .ci/conformance-expected-failures-2025.yml
#   .ci/conformance.sh 2026 --scenario tools-list --verbose
set -euo pipefail
cd "$(dirname "$0")/.."
CONFORMANCE=@modelcontextprotocol/conformance@0.2.0-alpha.12
BRIDGE=supergateway@4.0.0
DENO_VERSION=2.9.6
export DENO_TLS_CA_STORE=mozilla,system
socket="tmux-mcp-conformance-$$"
port=$((20000 + RANDOM % 20000))
deno_bin=$(command -v deno || true)
[ -n "$deno_bin" ] || deno_bin="npx -y deno@${DENO_VERSION}"

tmux -u -L "$socket" -f /dev/null new-session -d -s conformance
bridge_pid=
cleanup() {
  # The bridge runs in its own process group: npx, node and every server it started.
  if [ -n "$bridge_pid" ]; then
    kill -- "-$bridge_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 -- "-$bridge_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$bridge_pid" 2>/dev/null || true
  fi
  tmux -L "$socket" kill-server 2>/dev/null || true
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket"
}
trap cleanup EXIT

era=${1:?usage: .ci/conformance.sh 2025|2026 [options]}
shift
case "$era" in
  2025)
    # The bridge gives the server CI's own HOME: no journal, so none outlives the run.
    setsid npx -y "$BRIDGE" --stdio "$deno_bin run -A --quiet main.ts --socket-name $socket --no-journal" \
      --outputTransport streamableHttp --stateful --port "$port" --logLevel none &
    spec=(--spec-version 2025-11-25)
    ;;
  2026)
    # shellcheck disable=SC2086
    setsid $deno_bin run -A --quiet .ci/conformance_http.ts "$port" "$socket" &
    spec=(--spec-version 2026-07-28)
    ;;
  *) echo "usage: .ci/conformance.sh 2025|2026 [options]" >&2; exit 2 ;;
esac
bridge_pid=$!
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.2
done
npx -y -p node@22 -p "$CONFORMANCE" -- conformance server --url "http://127.0.0.1:$port/mcp" \
  "${spec[@]}" "$@"
