// The parameter and result blocks many tools' schemas repeat, written once here and composed
// into self-contained schemas: how a call names a tmux server and the objects on it, and how a
// result carries ids, a foreground process, or the one object a call changed.
import {
  array,
  boolean,
  constant,
  integer,
  object,
  oneOf,
  string,
  toolInput,
} from "../mcp/json_schema.ts";
import { DEFAULT_MAX_LINES, MAX_LINES as MOST_LINES } from "../tmux/bounded_text.ts";
import { toolOutput } from "./_define.ts";

// Parameters: how a call names a tmux server and the objects on it.

// socket_name, the ids and cursors are described in full once, in the server's instructions
// (lib/server/server.ts), since most tools take them: tools/list repeats a parameter's text for
// each tool, so here each keeps a few words, the form and where to get it (some clients never
// give the model the instructions: Copilot CLI, issue 27).
export const SOCKET_NAME = string({
  minLength: 1,
  maxLength: 100,
  pattern: "^[A-Za-z0-9._-]+$",
  description: "tmux -L name of another server",
});

/** A tmux id: its sigil (`%` pane, `@` window, `$` session) and a number. */
function tmuxId(sigil: "%" | "@" | "$", description: string) {
  const pattern = `^${sigil === "$" ? "\\$" : sigil}[0-9]+$`;
  return string({ pattern, maxLength: 32, description });
}

export const PANE_ID = tmuxId("%", "%N from list_panes");
export const WINDOW_ID = tmuxId("@", "@N from list_windows");
export const SESSION_ID = tmuxId("$", "$N from list_sessions");

export const SESSION_NAME = string({
  minLength: 1,
  maxLength: 128,
  pattern: "^[^:.\\u0000-\\u001f]+$",
  description: "exact, never a prefix",
});

export const START_DIRECTORY = string({
  minLength: 1,
  maxLength: 4096,
  pattern: "^[^\\u0000]*$",
  description: "absolute path; default: the session's",
});

export const MAX_LINES = integer({
  minimum: 1,
  maximum: MOST_LINES,
  description: `keep the last lines, 1 to ${MOST_LINES}, default ${DEFAULT_MAX_LINES}`,
});

export const EMPTY_INPUT = toolInput([], {});
export const SOCKET_ONLY_INPUT = toolInput([], { socket_name: SOCKET_NAME });
export const PANE_TARGET_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
});
export const WINDOW_TARGET_INPUT = toolInput(["window_id"], {
  window_id: WINDOW_ID,
  socket_name: SOCKET_NAME,
});
export const SESSION_TARGET_INPUT = toolInput([], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  socket_name: SOCKET_NAME,
});

// Results.

/** The ids as results carry them (no hint where to find them: the result is where). */
export const RESULT_IDS = {
  pane_id: tmuxId("%", "exact pane id, e.g. %3"),
  window_id: tmuxId("@", "exact window id, e.g. @2"),
  session_id: tmuxId("$", "exact session id, e.g. $1"),
};

/**
 * A pane's foreground process as the kernel says (lib/host/processes.ts), never read from its text;
 * null when it could not be read. Bounds: 32 arguments, 1024 characters.
 */
export const FOREGROUND = oneOf([
  object(["pid", "argv", "command_line", "truncated"], {
    pid: integer(),
    argv: oneOf([array({ items: string() }), constant(null)]),
    command_line: string(),
    truncated: boolean(),
  }),
  constant(null),
]);

/** The result of a tool that changed one object (or the global environment). */
export const DONE_OUTPUT = toolOutput(
  object(["target"], { target: string({ pattern: "^([%@$][0-9]+|global)$" }) }),
);
