// What the tool files share, so none of them imports another: the way a tool is defined (its
// handler typed by its input schema), the parameter and result blocks many schemas repeat
// (written once here and composed into self-contained schemas), annotation presets, common
// refusals, tmux_run's limits (which tmux_capabilities reports), and how waits are bounded.
import type { Containment } from "../tmux/caller.ts";
import {
  array,
  boolean,
  constant,
  DIALECT,
  enumOf,
  integer,
  type JsonSchema,
  number,
  object,
  oneOf,
  type Schema,
  string,
  toolInput,
} from "../mcp/json_schema.ts";
import { inputProblems, isValid } from "../mcp/schemas.ts";
import type { KeptCursor, ServerContext, ToolDefinition, ToolExtra } from "./context.ts";
import { refusal, type ToolPayload } from "../mcp/tool_result.ts";
import { socketPath, type TmuxClient, TmuxNotAnswering } from "../tmux/tmux.ts";
import { notAnswering } from "../tmux/targets.ts";
import { cursorAt, type Snapshot } from "../tmux/capture.ts";
import { CURSOR_IDLE_MS, CURSORS_KEPT } from "../tmux/cursor_store.ts";

/** A handler that receives the type its input schema accepts. */
type TypedHandler<T> = (context: ServerContext, args: T, extra: ToolExtra) => Promise<ToolPayload>;

/** A tool whose handler receives the type its input schema accepts. */
type TypedTool<T> = Omit<ToolDefinition, "inputSchema" | "handle"> & {
  inputSchema: Schema<T>;
  handle: TypedHandler<T>;
};

/**
 * A catalog entry from a typed tool. The server validates every call's arguments before a
 * handler runs; `typedHandler` checks again, as the type guard that turns `unknown` into the
 * handler's type.
 */
export function defineTool<T>(tool: TypedTool<T>): ToolDefinition {
  return { ...tool, handle: typedHandler(tool.inputSchema, tool.handle) };
}

/**
 * `handle` behind `schema` as a type guard: arguments that do not fit are answered the way the
 * server answers them. For a tool whose advertised schema is not `schema` itself (tmux_run's is
 * the contract's file), `schema` must be equal to it, and a test must say so.
 */
export function typedHandler<T>(
  schema: Schema<T>,
  handle: TypedHandler<T>,
): ToolDefinition["handle"] {
  return (context, args, extra) => {
    if (isValid(schema, args)) return handle(context, args, extra);
    const problems = inputProblems(schema, args) ?? "they do not match the schema";
    return Promise.resolve(refusal("invalid_input", `invalid arguments: ${problems}`));
  };
}

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

export const PANE_ID = string({
  pattern: "^%[0-9]+$",
  maxLength: 32,
  description: "%N from list_panes",
});

export const WINDOW_ID = string({
  pattern: "^@[0-9]+$",
  maxLength: 32,
  description: "@N from list_windows",
});

export const SESSION_ID = string({
  pattern: "^\\$[0-9]+$",
  maxLength: 32,
  description: "$N from list_sessions",
});

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
  maximum: 10000,
  description: "keep the last lines, 1 to 10000, default 1000",
});

/** A wait's timeout: never refused for being long, clamped to the server's wait ceiling. */
export const TIMEOUT = number({
  exclusiveMinimum: 0,
  description: "seconds; default: the wait ceiling (30 unless configured); clamped to the " +
    "ceiling, not rejected",
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

// Results: every tool answers `{ok: true, data}` or the one failure shape (tool_result.ts).

/** The ids as results carry them (no hint where to find them: the result is where). */
export const RESULT_IDS = {
  pane_id: string({ pattern: "^%[0-9]+$", maxLength: 32, description: "exact pane id, e.g. %3" }),
  window_id: string({
    pattern: "^@[0-9]+$",
    maxLength: 32,
    description: "exact window id, e.g. @2",
  }),
  session_id: string({
    pattern: "^\\$[0-9]+$",
    maxLength: 32,
    description: "exact session id, e.g. $1",
  }),
};

/**
 * A pane's foreground process as the kernel says (lib/run/procfs.ts), never read from its text;
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

const FAILURE = {
  type: "object",
  additionalProperties: false,
  required: ["ok", "error"],
  properties: {
    ok: { const: false },
    error: {
      type: "object",
      additionalProperties: false,
      required: ["code", "message", "delivery"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        delivery: enumOf(["not_sent", "possibly_sent", "observed"]),
      },
    },
  },
};

/** A tool's output schema: success carrying `data`, or the failure, defined inside it. */
export function toolOutput(data: JsonSchema): JsonSchema {
  return {
    $schema: DIALECT,
    type: "object",
    oneOf: [
      {
        type: "object",
        additionalProperties: false,
        required: ["ok", "data"],
        properties: { ok: { const: true }, data },
      },
      { $ref: "#/$defs/failure" },
    ],
    $defs: { failure: FAILURE },
  };
}

/** The result of a tool that changed one object (or the global environment). */
export const DONE_OUTPUT = toolOutput(
  object(["target"], { target: string({ pattern: "^([%@$][0-9]+|global)$" }) }),
);

// Annotations: what a client may assume about a tool's effects.

export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Changes tmux structure or presentation, supplying no input to any program. */
export const CHANGES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const IDEMPOTENT_CHANGE = { ...CHANGES, idempotentHint: true };

/** Supplies input to programs or starts them: what follows is up to them. */
export const PROGRAM_INPUT = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** Removes tmux objects or retained history. */
export const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

// Refusals more than one tool gives.

export const CANCELLED = refusal("cancelled", "the request was cancelled");

/**
 * What a tmux step that threw says, as a failed outcome: the caller's own cancel is `cancelled`
 * and tmux not answering within the call's bound is `tmux_not_answering`, each with the
 * delivery known at that step (once a line may have been typed, never `not_sent`). Any other
 * error is not one to name here, and is thrown on.
 */
export function failedStep(
  error: unknown,
  extra: ToolExtra,
  client: TmuxClient,
  delivery: "not_sent" | "possibly_sent",
): { ok: false; payload: Extract<ToolPayload, { ok: false }> } {
  const said = extra.signal.aborted
    ? CANCELLED
    : error instanceof TmuxNotAnswering
    ? notAnswering(client)
    : null;
  if (!said) throw error;
  return { ok: false, payload: { ...said, error: { ...said.error, delivery } } };
}

export const INVALID_PATTERN = refusal(
  "invalid_pattern",
  "a pattern is not a valid regular expression; fix it or pass regex: false",
);

export const UNSUPPORTED_PATTERN = refusal(
  "invalid_pattern",
  "a pattern uses lookahead, a backreference or a lookbehind with a capture, which regexes here " +
    "do not support (they are matched in linear time, by RE2's rules); rewrite it without them",
);

export type Scope = "pane" | "window" | "session" | "server";

/**
 * The refusal for removing (or killing the program of) an object that holds this MCP server:
 * it names the level and the object, and whether that was established or merely not ruled out.
 */
export function containsCallerRefusal(
  scope: Scope,
  id: string,
  containment: Exclude<Containment, "not_ours">,
): ToolPayload {
  const object = scope === "server" ? "this tmux server" : `${scope} ${id}`;
  const level = scope === "pane" ? "is the pane" : "contains the pane";
  return refusal(
    "contains_caller",
    containment === "ours"
      ? `${object} ${level} this MCP server runs in; nothing was changed. Choose another ` +
        `${scope}; list_panes marks the server's own pane with is_caller`
      : `it cannot be ruled out that ${object} ${level} this MCP server runs in (its tmux ` +
        `socket or $TMUX_PANE could not be matched); nothing was changed`,
  );
}

// Cursors: short handles to positions the server keeps (lib/tmux/cursor_store.ts).

/** The `cursor` input of the tools that read since a cursor. */
export const CURSOR = string({
  minLength: 1,
  maxLength: 64,
  description: "only output after it counts; default: now",
});

/** A cursor in a result. */
export const RESULT_CURSOR = string({
  maxLength: 64,
  description: "a handle for this moment in the pane, for capture_since or wait_for_text; " +
    `kept ${CURSOR_IDLE_MS / 60000} minutes after its last use`,
});

/** Keeps a cursor at `shot`'s position, and whatever is typed right after it; its handle. */
export function keepCursor(
  context: ServerContext,
  client: TmuxClient,
  shot: Snapshot,
  typed: string | null = null,
): string {
  return context.cursors.issue({
    server: socketPath(client.socket),
    cursor: cursorAt(shot),
    typed,
  });
}

/** The kept cursor behind `handle` for this pane on this server, or the refusal saying why not. */
export function findCursor(
  context: ServerContext,
  client: TmuxClient,
  paneId: string,
  handle: string,
): { ok: true; kept: KeptCursor } | { ok: false; payload: ToolPayload } {
  const found = context.cursors.look(handle);
  if (!found.ok && found.miss === "expired") return { ok: false, payload: CURSOR_EXPIRED };
  if (
    !found.ok || found.value.cursor.paneId !== paneId ||
    found.value.server !== socketPath(client.socket)
  ) return { ok: false, payload: INVALID_CURSOR };
  return { ok: true, kept: found.value };
}

export const INVALID_CURSOR = refusal(
  "invalid_cursor",
  "`cursor` is not one this MCP server issued for that pane on that tmux server (it may be " +
    "another pane's, another server's, or from before this server restarted); nothing was " +
    "read. Call capture_since without a cursor to take a new one",
);

export const CURSOR_EXPIRED = refusal(
  "cursor_expired",
  `\`cursor\` has expired: the server keeps a cursor ${CURSOR_IDLE_MS / 60000} minutes after ` +
    `its last use, and at most ${CURSORS_KEPT} of them; nothing was read. Call capture_since ` +
    "without a cursor to take a new one (it returns the current screen)",
);

// tmux_run's limits: tmux_run enforces them and tmux_capabilities reports them.

export const MAX_SCRIPT_BYTES = 65536;
export const DEFAULT_OUTPUT_LIMIT = 65536;
export const MAX_OUTPUT_LIMIT = 262144;
export const MAX_CONCURRENT_RUNS = 8;

// Waits: bounded by the server's ceiling, ended at once by cancellation.

/**
 * How long past its own timeout a tool that has one gives a tmux command still in flight (its
 * last look, usually) before abandoning it as unanswered: it answers by its timeout plus this.
 */
export const ANSWER_GRACE_MS = 500;

/** The request's timeout, clamped to the configured wait ceiling. */
export function effectiveTimeout(context: ServerContext, requested: number | undefined): number {
  const ceiling = context.config.waitMaxSeconds;
  return Math.min(requested ?? ceiling, ceiling);
}

/**
 * The call's signal, also aborted with TmuxNotAnswering once `seconds` and ANSWER_GRACE_MS have
 * passed: given to every tmux command of a tool with a timeout, it ends them by then even when
 * tmux stops answering (such a command reports tmux_not_answering, lib/tmux/targets.ts).
 * `clear` stops the clock when the call ends.
 */
export function boundByTimeout(
  signal: AbortSignal,
  seconds: number,
): { signal: AbortSignal; clear: () => void } {
  const clock = new AbortController();
  const timer = setTimeout(
    () => clock.abort(new TmuxNotAnswering()),
    seconds * 1000 + ANSWER_GRACE_MS,
  );
  return { signal: AbortSignal.any([signal, clock.signal]), clear: () => clearTimeout(timer) };
}

// Listings: every one is bounded, keeping its tail.

/** The most rows a listing returns; past it the oldest are cut and counted. */
export const MAX_LISTED = 1000;

/** The last MAX_LISTED items and how many were cut before them. */
export function tail<T>(items: T[]): { items: T[]; truncated: number } {
  const truncated = Math.max(0, items.length - MAX_LISTED);
  return { items: items.slice(truncated), truncated };
}

/** A client's output as its lines, without the empty ones. */
export function rows(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line !== "");
}
