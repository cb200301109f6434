// What every tool handler may rely on: the configuration read at startup, the one tmux client
// this server is bound to, its generation, and the enrollments. Tools are plain definitions
// over this context, so the server wiring, the tests and the benchmark all use the same code.
import type { Enrollments } from "../run/enrollment.ts";
import type { RunHooks } from "../run/run.ts";
import type { FieldHints, JsonSchema } from "../mcp/schemas.ts";
import type { Caller } from "../tmux/caller.ts";
import type { TmuxClient, TmuxVersion } from "../tmux/tmux.ts";
import type { TempFiles } from "../host/temp_files.ts";
import type { Cursor } from "../tmux/since.ts";
import type { CursorStore } from "../tmux/cursor_store.ts";
import type { KeptTyped } from "../tmux/input_echo.ts";
import type { ShellLines } from "../tmux/shell_line.ts";
import type { ToolPayload } from "../mcp/tool_payload.ts";
import type { Journal } from "../journal/journal.ts";

export type Toolset = "inspect" | "manage" | "execute" | "teardown";

/**
 * Fixed when the server starts and read-only for tools and tests alike: what changes has one
 * owner behind it (the runs in flight are `enrollments.runs`; `closing` is ended by the
 * server's close).
 */
/**
 * The settings tools read, as the command line and environment gave them (lib/server/config.ts
 * parses them; its Config has these and more).
 */
export type ToolSettings = {
  enrollmentSeconds: number;
  runTimeoutSeconds: number;
  runTimeoutWithProgressSeconds: number;
  maxResponseBytes: number;
  waitMaxSeconds: number;
};

export type ServerContext = {
  readonly config: Readonly<ToolSettings>;
  readonly tmux: TmuxClient;
  readonly tmuxVersion: TmuxVersion | null;
  readonly generation: string;
  readonly enabledTools: ReadonlySet<string>;
  readonly enrollments: Enrollments | null;
  /**
   * The line a person types in a zsh pane to lend it to this server, written with the absolute
   * paths of this very process (lib/cli/in_pane.ts enrollCommandLine), so it needs neither
   * `tmux-mcp` nor `deno` on PATH; null when tmux_run cannot run here (off, or tmux < 3.3).
   */
  readonly enrollCommand: string | null;
  /** The capture's and paste's files, in the server's private directory. */
  readonly tempFiles: TempFiles;
  /** The capture cursors handed out, behind short handles (lib/tmux/cursor_store.ts). */
  readonly cursors: CursorStore<KeptCursor>;
  /**
   * What run_command knows about each pane's shell line between calls, and the calls waiting
   * their turn on each pane (lib/tmux/shell_line.ts): this server's alone.
   */
  readonly shellLines: ShellLines;
  /** Aborts when the server begins to close: new calls are refused as `closed`. */
  readonly closing: AbortSignal;
  readonly hooks: Readonly<RunHooks>;
  /** $TMUX and $TMUX_PANE as this process saw them at startup (lib/tmux/caller.ts). */
  readonly caller: Readonly<Caller>;
  /**
   * A cancelled request gets no response (MCP), so its outcome is also logged, for clients that
   * listen; tmux_capabilities' recent_runs keeps it for every client.
   */
  readonly reportCancelled: (payload: ToolPayload) => void;
  /**
   * The person's journal (lib/journal/): every call of a tool that is not read-only adds a line
   * (lib/server/call_tool.ts callTool), tmux_run one per run that took its slot (run_machine.ts).
   */
  readonly journal: Journal;
};

/** A cursor as the server keeps it: its tmux server, and the text typed right after it. */
export type KeptCursor = {
  /** The tmux socket's path: the same pane id on another server is another pane. */
  server: string;
  cursor: Cursor;
  /**
   * What send_keys, paste_text or run_command typed after taking it, at most TYPED_KEPT
   * characters of it (lib/tmux/input_echo.ts): its echo is not output.
   */
  typed: KeptTyped | null;
};

export type ToolExtra = {
  signal: AbortSignal;
  progress?: (progress: number, message: string) => void;
  /** The call runs as an MCP task: its client waits on the task, not on a request timeout. */
  task?: true;
};

/** A tool's arguments as its input schema parsed them: the call to make, or why not. */
export type ParsedCall =
  | { ok: true; call: (context: ServerContext, extra: ToolExtra) => Promise<ToolPayload> }
  | { ok: false; payload: ToolPayload };

export type ToolDefinition = {
  name: string;
  /** A short human-readable name that clients show in place of `name`. */
  title: string;
  toolset: Toolset | null;
  description: string;
  inputSchema: JsonSchema;
  /** What input fields mean, for a schema that does not describe them (tmux_run's contract). */
  fieldHints?: FieldHints;
  /** The schemas are a contract's files: tools/list advertises them unchanged. */
  contract?: true;
  /** Clients that defer loading tools keep this one loaded (`anthropic/alwaysLoad`). */
  alwaysLoad?: true;
  outputSchema: JsonSchema;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /**
   * The call's arguments checked against the tool's input schema, once: the call with them
   * typed, or the `invalid_input` refusal naming the problem (lib/server/call_tool.ts callTool).
   */
  parse: (args: unknown) => ParsedCall;
  /** `parse`, then the call: for callers that hold arguments of their own (resources, tests). */
  handle: (context: ServerContext, args: unknown, extra: ToolExtra) => Promise<ToolPayload>;
  /**
   * The result's text content in the tool's own words, as pieces (lib/mcp/tool_result.ts
   * toCallToolResult); without it a success's text is its JSON and a failure's one line.
   */
  wording?: (payload: ToolPayload) => string[];
  /**
   * The longest result this tool can give, in characters, for clients that keep a longer one
   * out of the conversation: sent as `_meta["anthropic/maxResultSizeChars"]` in tools/list (where
   * Claude Code reads it) and on each result.
   */
  maxResultChars?: number;
  /** The tool journals its own acts (tmux_run: each run that took a slot), not each call. */
  journalsItself?: true;
};
