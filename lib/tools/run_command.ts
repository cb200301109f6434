// Runs a command the agent wrote in a pane whose foreground process is a POSIX shell, and
// reports its exit status. The command travels as one single-quoted `eval` argument through a
// tmux paste buffer, so quotes, heredocs, tabs and non-ASCII arrive intact and a syntax error
// still reaches the status line. The shell prints a start and an end marker from two pieces
// (`printf '%s%s' __A_ ID`), so the typed line never contains a marker and its echo cannot
// end the wait; the ID is random per call and no shell variable is assigned. Calls on one pane
// are serialised; a timeout says the command may still be running, because it may.
import { pasteIntoPane } from "../paste.ts";
import { bounded, DEFAULT_MAX_LINES, snapshot } from "../capture.ts";
import { containsCaller } from "../caller.ts";
import { randomHex } from "../ids.ts";
import { schemas } from "../schemas.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "../server_context.ts";
import { clientFor } from "../targets.ts";
import { socketPath, type TmuxClient } from "../tmux.ts";
import { refusal, success, type ToolPayload } from "../tool_result.ts";
import { paneInfo } from "./inspect.ts";
import { CANCELLED, effectiveTimeout } from "./waiting.ts";
import { watchOutput } from "../tmux_control.ts";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);
const POLL_MS = 50;

export const NOT_A_SHELL = refusal(
  "not_a_shell",
  "the pane's foreground process is not a POSIX shell (a program, REPL, editor or pager is " +
    "running); nothing was typed. Use send_keys for programs, or wait until the shell is back",
);
const CALLER_PANE = refusal(
  "caller_pane",
  "run_command does not type into the pane this MCP server runs in",
);
const PANE_DEAD = refusal("pane_dead", "the pane's process has exited; use respawn_pane");

/** Promise chains per pane: a second call waits for the first to finish. */
const paneQueues = new Map<string, Promise<unknown>>();

async function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = paneQueues.get(key) ?? Promise.resolve();
  const current = previous.then(task, task);
  const settled = current.catch(() => {});
  paneQueues.set(key, settled);
  try {
    return await current;
  } finally {
    if (paneQueues.get(key) === settled) paneQueues.delete(key);
  }
}

function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The line typed into the shell: markers built from pieces, the command as one eval word. */
export function typedLine(command: string, id: string, suppressHistory: boolean): string {
  const lead = suppressHistory ? " " : "";
  return `${lead}printf '%s%s\\n' __MCP_START_ ${id}; eval ${quoted(command)}; ` +
    `printf '%s%s:%s\\n' __MCP_DONE_ ${id} "$?"`;
}

type RunArgs = {
  pane_id: string;
  command: string;
  timeout?: number;
  suppress_history?: boolean;
  max_lines?: number;
  socket_name?: string;
};

export const runCommandTool: ToolDefinition = {
  name: "run_command",
  toolset: "execute",
  description:
    "Run a command you wrote in a pane whose foreground process is a POSIX shell (sh, bash, " +
    "dash, zsh, ksh), wait for it, and get exit_status and the output it printed. Refused when " +
    "a program, REPL, editor or pager is in the foreground. On timeout, timed_out is true, " +
    "exit_status is null, and the command may still be running. History suppression (a " +
    "leading space) is on by default and best-effort: it works only where the shell ignores " +
    "such lines. For keystrokes into a TUI or REPL use send_keys; for text produced by " +
    "something else use wait_for_text; in a pane enrolled for tmux_run, prefer tmux_run.",
  inputSchema: schemas.runCommandInput,
  outputSchema: schemas.runCommandOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  handle: (context, args, extra) => {
    const a = args as RunArgs;
    const client = clientFor(context, a.socket_name);
    return serialised(
      `${socketPath(client.socket)}\n${a.pane_id}`,
      () => runCommand(context, client, a, extra),
    );
  },
};

async function runCommand(
  context: ServerContext,
  client: TmuxClient,
  a: RunArgs,
  extra: ToolExtra,
): Promise<ToolPayload> {
  if (extra.signal.aborted) return CANCELLED;
  const pane = await paneInfo(context, client, a.pane_id);
  if (!pane.ok) return pane.payload;
  if (pane.value.dead) return PANE_DEAD;
  if (!SHELLS.has(pane.value.current_command.replace(/^-/, ""))) return NOT_A_SHELL;
  if (await containsCaller(context, client, "pane", a.pane_id) !== "not_ours") return CALLER_PANE;
  const timeout = effectiveTimeout(context, a.timeout);
  const id = randomHex(8);
  const output = watchOutput(client, a.pane_id);
  const sent = await pasteIntoPane(
    client,
    a.pane_id,
    typedLine(a.command, id, a.suppress_history ?? true),
    { bracketed: true, enter: true },
  );
  if (!sent.ok) return sent.payload;
  const start = new RegExp(`__MCP_START_${id}$`);
  const done = new RegExp(`__MCP_DONE_${id}:(\\d+)$`);
  const started = Date.now();
  const deadline = started + timeout * 1000;
  let lastProgress = started;
  let lines: string[] = [];
  let escaped = false;
  while (true) {
    const shot = await snapshot(client, a.pane_id, extra.signal).catch(() => null);
    if (shot === null || extra.signal.aborted) return CANCELLED;
    if (!shot.ok) {
      return { ...shot.payload, error: { ...shot.payload.error, delivery: "possibly_sent" } };
    }
    escaped = shot.value.escaped;
    const all = shot.value.lines.map((line) => line.trimEnd());
    const last = all.findLastIndex((line) => done.test(line));
    const first = all.findLastIndex((line, index) =>
      start.test(line) && (last < 0 || index < last)
    );
    lines = first < 0 && last < 0 ? [] : all.slice(first + 1, last < 0 ? undefined : last + 1);
    if (last >= 0) {
      const status = Number(done.exec(all[last])![1]);
      const output = [...lines.slice(0, -1), all[last].replace(done, "")];
      if (output.at(-1) === "") output.pop();
      return finish(output, status, false, first < 0);
    }
    if (Date.now() >= deadline) return finish(lines, null, true, false);
    if (extra.progress && Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      extra.progress((lastProgress - started) / 1000, "waiting for the command to finish");
    }
    await output.wake(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), extra.signal);
  }

  function finish(
    output: string[],
    status: number | null,
    timedOut: boolean,
    startLost: boolean,
  ): ToolPayload {
    const text = bounded(output, a.max_lines ?? DEFAULT_MAX_LINES, escaped);
    return success({
      exit_status: status,
      timed_out: timedOut,
      output: text.text,
      encoding: text.encoding,
      truncated_lines: text.truncated_lines,
      truncated_bytes: text.truncated_bytes,
      effective_timeout: timeout,
      note: timedOut
        ? "the wait ended, not the command: it may still be running in the pane"
        : startLost
        ? "the beginning of the output is no longer in the pane's history"
        : null,
    });
  }
}
