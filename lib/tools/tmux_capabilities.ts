// Discovery for tmux_run: the generation to pass back, the limits, which panes are enrolled,
// and the recent runs' outcomes (lib/run/recent_runs.ts), the one place a cancelled or
// abandoned call's result can be read back. It asks tmux only with a command that fails rather
// than starting a daemon, so looking never creates a tmux server.
import { MAX_ENROLLMENTS } from "../run/enrollment.ts";
import {
  DEFAULT_OUTPUT_LIMIT,
  MAX_CONCURRENT_RUNS,
  MAX_OUTPUT_LIMIT,
  MAX_SCRIPT_BYTES,
} from "../run/contract.ts";
import { RECENT_RUNS_KEPT } from "../run/recent_runs.ts";
import { behaviours } from "../tmux/versions.ts";
import {
  array,
  boolean,
  constant,
  DIALECT,
  enumOf,
  integer,
  nullable,
  object,
  oneOf,
  type Schema,
  type Static,
  string,
} from "../mcp/json_schema.ts";
import { runTmux, socketPath } from "../tmux/tmux.ts";
import { success } from "../mcp/tool_payload.ts";
import { defineTool, toolOutput } from "./_define.ts";

const NO_ARGUMENTS: Schema<Record<string, never>> = {
  $schema: DIALECT,
  type: "object",
  additionalProperties: false,
  properties: {},
};

/** tmux_run's completion as its contract writes it, or `unobserved` when none was read. */
const COMPLETION = oneOf([
  object(["state", "exit_status", "signal"], {
    state: constant("exited"),
    exit_status: integer({ minimum: 0, maximum: 255 }),
    signal: constant(null),
  }),
  object(["state", "exit_status", "signal"], {
    state: constant("signaled"),
    exit_status: constant(null),
    signal: integer({ minimum: 1, maximum: 255 }),
  }),
  object(["state"], { state: constant("unobserved") }),
]);

const RECENT_RUN = object([
  "run_id",
  "pane_id",
  "script_sha256",
  "script_bytes",
  "started_at",
  "outcome",
  "completion",
], {
  run_id: string({
    pattern: "^[a-f0-9]{32}$",
    description: "the run's id; the receipt's run_id when the run was authorized",
  }),
  pane_id: string({ pattern: "^%[0-9]+$" }),
  script_sha256: string({ pattern: "^[a-f0-9]{64}$" }),
  script_bytes: integer({ minimum: 0, maximum: MAX_SCRIPT_BYTES }),
  started_at: string({ description: "when the run started, ISO 8601 UTC" }),
  outcome: enumOf(["running", "completed", "failed", "unknown"], {
    description: "running: not settled yet (a stop can take 1.5 s); completed: see completion; " +
      "failed: see error (and completion, when one was read); unknown: a server fault",
  }),
  completion: COMPLETION,
  error: object(["code", "message", "delivery"], {
    code: string(),
    message: string(),
    delivery: enumOf(["not_sent", "possibly_sent", "observed"]),
  }),
});

/** The person's journal of what was done (lib/journal/journal.ts JournalStatus; docs/journal.md). */
const JOURNAL = object(
  ["state", "path", "scripts_kept", "entries_written", "entries_lost", "problem"],
  {
    state: enumOf(["on", "off", "refused", "failing"], {
      description: "refused: unsafe to write, nothing is kept; failing: the last write failed",
    }),
    path: nullable("string"),
    scripts_kept: boolean(),
    entries_written: integer({ minimum: 0 }),
    entries_lost: integer({ minimum: 0 }),
    problem: nullable("string"),
  },
);

const TMUX_CAPABILITIES_OUTPUT = toolOutput(
  object([
    "generation",
    "tmux",
    "enabled_tools",
    "limits",
    "authored_run",
    "enrolled_panes",
    "enroll_command",
    "pending_invitations",
    "recent_runs",
  ], {
    generation: string({ pattern: "^[a-f0-9]{32}$" }),
    tmux: object(["version", "pid", "socket_path", "running"], {
      version: nullable("string"),
      pid: nullable("integer"),
      socket_path: string(),
      running: boolean(),
    }),
    enabled_tools: array({ items: string() }),
    limits: object([
      "max_enrollments",
      "max_script_bytes",
      "default_run_output_bytes",
      "max_run_output_bytes",
      "run_deadline_seconds",
      "run_deadline_with_progress_seconds",
      "enrollment_lifetime_seconds",
      "max_response_bytes",
      "max_concurrent_runs",
    ], {
      max_enrollments: integer(),
      max_script_bytes: integer(),
      default_run_output_bytes: integer(),
      max_run_output_bytes: integer(),
      run_deadline_seconds: integer(),
      run_deadline_with_progress_seconds: integer(),
      enrollment_lifetime_seconds: integer(),
      max_response_bytes: integer(),
      max_concurrent_runs: integer(),
    }),
    authored_run: object([
      "availability",
      "shell_profile",
      "enrollment",
      "authorization",
      "stdin",
      "persistent_shell_changes",
      "descendant_termination",
    ], {
      availability: enumOf(["conditional", "unsupported"]),
      shell_profile: constant("zsh-5.9-zle"),
      enrollment: constant("explicit_source"),
      authorization: constant("exact_generation_at_queue_grant"),
      stdin: constant("closed"),
      persistent_shell_changes: constant(false),
      descendant_termination: constant("unobserved"),
    }),
    enrolled_panes: array({
      items: object(["pane_id", "enrollment_generation", "busy"], {
        pane_id: string({ pattern: "^%[0-9]+$" }),
        enrollment_generation: string({ pattern: "^[a-f0-9]{32}$" }),
        busy: boolean(),
      }),
    }),
    enroll_command: nullable("string"),
    pending_invitations: array({ items: string({ pattern: "^%[0-9]+$" }) }),
    recent_runs: array({ items: RECENT_RUN, maxItems: RECENT_RUNS_KEPT }),
    journal: JOURNAL,
  }),
);

export const tmuxCapabilitiesTool = defineTool({
  name: "tmux_capabilities",
  title: "Server capabilities",
  toolset: "inspect",
  alwaysLoad: true,
  description: "Describe this server: its generation (pass this top-level generation as " +
    "target.generation to tmux_run; an enrolled pane's enrollment_generation is not it), " +
    "tmux version, enabled tools, limits, enrolled panes, enroll_command (the line a person " +
    "types in a zsh pane to lend it: relay it, never type it yourself) and the last 16 " +
    "tmux_run outcomes, where a cancelled or timed-out run's result is read. Call it before " +
    "tmux_run; for all panes use list_panes. Every tool answers {ok, data} or {ok: false, " +
    "error: {code, message, delivery}}: delivery not_sent means nothing was done, " +
    "possibly_sent that it may have been: look before retrying.",
  inputSchema: NO_ARGUMENTS,
  outputSchema: TMUX_CAPABILITIES_OUTPUT,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  handle: async (context) => {
    const probe = await runTmux(context.tmux, ["display-message", "-p", "#{pid}"]).catch(() =>
      null
    );
    const pid = probe?.code === 0 ? Number(probe.stdout.trim()) : null;
    const enrollments = context.enrollments;
    const available = context.enabledTools.has("tmux_run") &&
      behaviours(context.tmuxVersion).tmuxRun;
    const recentRuns: Static<typeof RECENT_RUN>[] = enrollments?.runs.recent.list() ?? [];
    return success({
      generation: context.generation,
      tmux: {
        version: context.tmuxVersion?.text ?? null,
        pid: Number.isInteger(pid) ? pid : null,
        socket_path: socketPath(context.tmux.socket),
        running: pid !== null,
      },
      enabled_tools: [...context.enabledTools].sort(),
      limits: {
        max_enrollments: MAX_ENROLLMENTS,
        max_script_bytes: MAX_SCRIPT_BYTES,
        default_run_output_bytes: DEFAULT_OUTPUT_LIMIT,
        max_run_output_bytes: MAX_OUTPUT_LIMIT,
        run_deadline_seconds: context.config.runTimeoutSeconds,
        run_deadline_with_progress_seconds: context.config.runTimeoutWithProgressSeconds,
        enrollment_lifetime_seconds: context.config.enrollmentSeconds,
        max_response_bytes: context.config.maxResponseBytes,
        max_concurrent_runs: MAX_CONCURRENT_RUNS,
      },
      authored_run: {
        availability: available ? "conditional" : "unsupported",
        shell_profile: "zsh-5.9-zle",
        enrollment: "explicit_source",
        authorization: "exact_generation_at_queue_grant",
        stdin: "closed",
        persistent_shell_changes: false,
        descendant_termination: "unobserved",
      },
      enrolled_panes: (await enrollments?.liveShells() ?? []).map((shell) => ({
        pane_id: shell.paneId,
        enrollment_generation: shell.enrollmentGeneration,
        busy: shell.run !== null,
      })),
      enroll_command: context.enrollCommand,
      pending_invitations: enrollments?.pendingInvitations() ?? [],
      recent_runs: recentRuns,
      journal: context.journal.status(),
    });
  },
});
