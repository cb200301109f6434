#!/usr/bin/env bash
# Makes (once, cached) a Python virtual environment with the Python MCP SDK's client, for the
# interop test tests/python_client_test.ts, and prints its python's path. Exits non-zero, with a
# line on stderr, when the package cannot be had here.
set -euo pipefail
MCP_VERSION=2.3.0
venv="${TMUX_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tmux-mcp-ci}/python-mcp-${MCP_VERSION}"
if ! "$venv/bin/python" -c 'import mcp.client.stdio' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  # No retries: an index that cannot be reached is not there (the local mirror is tried too).
  "$venv/bin/pip" install -q --retries 0 "mcp==${MCP_VERSION}" >&2
fi
echo "$venv/bin/python"
