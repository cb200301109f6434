// tmux_run as a tool: its definition, the gate checks a call passes before anything is sent
// (script size, cancellation, the response budget, the generation, an enrolled pane) and the
// run slots it takes (one per shell, 8 per server). The run itself — prepare, authorize (the
// commit point), execute, retire — is lib/run/run_machine.ts; every failure is a RunFailure
// that run_outcome.ts turns into `{code, delivery, effects}`.
import { runScript } from "../run/run_machine.ts";
import type { Interruption, OutputSoFar } from "../run/run.ts";
import { failurePayload, RunFailure } from "../run/run_outcome.ts";
import { sha256Hex } from "../util/ids.ts";
import {
  constant,
  integer,
  object,
  oneOf,
  type Static,
  string,
  toolInput,
} from "../mcp/json_schema.ts";
import {
  DEFAULT_OUTPUT_LIMIT,
  MAX_CONCURRENT_RUNS,
  MAX_OUTPUT_LIMIT,
  MAX_SCRIPT_BYTES,
  schemas,
  TMUX_RUN_FIELD_HINTS,
} from "../run/contract.ts";
import { runResultText } from "../run/run_text.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "./context.ts";
import type { ToolPayload } from "../mcp/tool_payload.ts";
import { typedCall } from "./_define.ts";
import { CallProgress } from "./_progress.ts";

/**
 * The most `anthropic/maxResultSizeChars` may say: Claude Code keeps a longer result in a file
 * and shows a 2 KB preview whatever a tool asks (issue 27).
 */
const CLAUDE_CODE_MAX_RESULT_CHARS = 500_000;

/**
 * What tmux_run's limits can produce, as the spec's response reservation counts it (4096 + 6
 * bytes a byte of output, both streams at the most): 3,149,824, so the client's own cap.
 */
const MAX_RESULT_CHARS = Math.min(CLAUDE_CODE_MAX_RESULT_CHARS, 4096 + 6 * 2 * MAX_OUTPUT_LIMIT);

/**
 * tmux_run's input written with the builders: the one source of the handler's type, so a key
 * the handler misspells fails `deno check`. What tools/list advertises and the server validates
 * stays the contract's file, schemas/tmux_run.input.schema.json, since the contract is JSON
 * whose text must not change; tests/schemas_test.ts pins that file by SHA-256 and asserts this
 * object deep-equals it, so a drift on either side fails.
 */
export const RUN_INPUT = toolInput(["target", "script"], {
  script: string({ maxLength: MAX_SCRIPT_BYTES, pattern: "^[^\\u0000]*$" }),
  stderr_limit: integer({ maximum: MAX_OUTPUT_LIMIT, minimum: 0 }),
  stdout_limit: integer({ maximum: MAX_OUTPUT_LIMIT, minimum: 0 }),
  target: oneOf([
    object(["generation", "kind", "id"], {
      generation: string({ maxLength: 128, minLength: 1 }),
      id: string({ maxLength: 32, pattern: "^%[0-9]+$" }),
      kind: constant("pane"),
    }),
  ]),
});

type RunInput = Static<typeof RUN_INPUT>;

export const tmuxRunTool: ToolDefinition = {
  name: "tmux_run",
  title: "Run a script in an enrolled zsh pane",
  toolset: null,
  description:
    "Run an authored POSIX sh script in a zsh pane a person enrolled; get its exit status " +
    "or signal, separate stdout and stderr, and a receipt. target is " +
    '{kind: "pane", id: %N, generation}: target.generation is the top-level generation from ' +
    "tmux_capabilities (not enrollment_generation). script runs as /bin/sh -c, at most " +
    `${MAX_SCRIPT_BYTES} UTF-8 bytes, no NUL. stdout_limit and stderr_limit are bytes kept per ` +
    `stream (default ${DEFAULT_OUTPUT_LIMIT}, max ${MAX_OUTPUT_LIMIT}): output over a limit ` +
    "fails the run (capacity) with no output. " +
    "Clients show 10-50 KB of a result inline (Codex and Copilot about 11 KB): keep output " +
    "under 10 KB (tail -c 10000, or write it to a file and read parts). " +
    "The run deadline (limits.run_deadline_seconds, 30 s; with a progress token " +
    "or as a task, run_deadline_with_progress_seconds, 10 minutes) covers waiting for the " +
    "prompt and the script. Background jobs must redirect their output (>file 2>&1) or the " +
    "run fails. It runs only at an idle, empty prompt, never types, closes stdin, inherits " +
    "the shell's cwd and exported environment; cd and export do not persist. For a pane not " +
    "enrolled use run_command.",
  inputSchema: schemas.tmuxRunInput,
  fieldHints: TMUX_RUN_FIELD_HINTS,
  contract: true,
  alwaysLoad: true,
  outputSchema: schemas.tmuxRunOutput,
  journalsItself: true,
  wording: runResultText,
  maxResultChars: MAX_RESULT_CHARS,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  ...typedCall(RUN_INPUT, async (context, args, extra) => {
    try {
      return await run(context, args, extra);
    } catch (error) {
      if (error instanceof RunFailure) return failurePayload(error);
      throw error;
    }
  }, TMUX_RUN_FIELD_HINTS),
};

async function run(
  context: ServerContext,
  input: RunInput,
  extra: ToolExtra,
): Promise<ToolPayload> {
  // The gate: nothing is sent, and no slot is taken, until every check here has passed.
  const script = new TextEncoder().encode(input.script);
  if (script.length > MAX_SCRIPT_BYTES || !input.script.isWellFormed()) {
    throw new RunFailure({
      code: "invalid_input",
      message:
        `\`script\` must be at most ${MAX_SCRIPT_BYTES} UTF-8 bytes of well-formed text (no lone ` +
        "surrogate); put larger content in a file and run a short script that reads it",
      delivery: "not_sent",
      atGate: true,
    });
  }
  if (extra.signal.aborted) {
    throw new RunFailure({ code: "cancelled", message: "the request was cancelled" });
  }
  const stdoutLimit = input.stdout_limit ?? DEFAULT_OUTPUT_LIMIT;
  const stderrLimit = input.stderr_limit ?? DEFAULT_OUTPUT_LIMIT;
  if (4096 + 6 * (stdoutLimit + stderrLimit) > context.config.maxResponseBytes) {
    throw new RunFailure({
      code: "capacity",
      message: "stdout_limit and stderr_limit together exceed the server's response budget " +
        "(--max-response-bytes); lower them",
    });
  }
  if (input.target.generation !== context.generation) {
    throw new RunFailure({
      code: "stale_target",
      message: "target.generation is not this server's generation: pass the top-level generation " +
        "from tmux_capabilities (not an enrolled pane's enrollment_generation); it changes " +
        "when the server restarts",
    });
  }
  // Digested before the pane is looked up, so nothing waits between the lookup and the slot.
  const digest = await sha256Hex(script);
  const enrollments = context.enrollments;
  const shell = enrollments?.shells.get(input.target.id);
  if (!enrollments || !shell) {
    const line = context.enrollCommand ?? 'eval "$(tmux-mcp enroll)"';
    throw new RunFailure({
      code: "unsupported",
      message:
        `pane ${input.target.id} is not enrolled for tmux_run on this server; ask the person to ` +
        `type this line in it (an agent must not type it): ${line} (tmux_capabilities ` +
        "enroll_command; the enroll_pane prompt explains it). tmux_capabilities lists " +
        "enrolled_panes. Meanwhile run_command works in any shell pane",
    });
  }
  const slots = enrollments.runs;
  const slot = slots.take(shell, MAX_CONCURRENT_RUNS);
  if (slot === "shell_busy") {
    throw new RunFailure({
      code: "capacity",
      message: "another run is in progress on this shell; call again when it has finished",
    });
  }
  if (slot === "server_full") {
    throw new RunFailure({
      code: "capacity",
      message:
        `the server is running its maximum number of runs (${MAX_CONCURRENT_RUNS}); call again ` +
        "when one has finished",
    });
  }
  // A caller that hears progress, or waits on a task, is not held to a request timeout: it gets
  // the long deadline (a 10-minute build by default); a plain call keeps --run-timeout.
  const deadlineSeconds = extra.progress || extra.task
    ? context.config.runTimeoutWithProgressSeconds
    : context.config.runTimeoutSeconds;
  // The deadline's timer goes when the run does: a timer left pending (AbortSignal.timeout)
  // kept each finished run's signals, their listeners and what those held until the deadline
  // passed, 10 minutes after a call that hears progress.
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(() => deadline.abort(), deadlineSeconds * 1000);
  const closing = slots.closing;
  const interrupt = AbortSignal.any([extra.signal, deadline.signal, closing]);
  const interruption = (): Interruption =>
    closing.aborted ? "closed" : extra.signal.aborted ? "cancelled" : "deadline";
  try {
    return await runScript({
      server: context,
      slots,
      shell,
      slot,
      target: input.target,
      script,
      digest,
      limits: { stdout: stdoutLimit, stderr: stderrLimit },
      interrupt,
      interruption,
      deadlineSeconds,
      ...progressReporter(extra.progress),
    });
  } finally {
    clearTimeout(deadlineTimer);
  }
}

/**
 * Progress while a step waits, when the client asked for it (_progress.ts): once the helper has
 * answered, each report also says the bytes the script has written to stdout and stderr so far
 * (bytes only: the text comes in the result).
 */
function progressReporter(
  progress: ToolExtra["progress"],
): Pick<Parameters<typeof runScript>[0], "during" | "onOutput"> {
  const call = new CallProgress(progress);
  let output: OutputSoFar | null = null;
  const known = () =>
    output ? `${output.stdout} bytes of stdout and ${output.stderr} of stderr so far` : "";
  return {
    during: <T>(step: string, work: () => Promise<T>) => call.during(step, work, known),
    ...(call.wanted && { onOutput: (bytes: OutputSoFar) => output = bytes }),
  };
}
