// The line a person sees under their prompt after a tmux_run in their pane: which run, what it
// was (its first line, or its size), how it ended and how long it took. The shell shows it in
// zle's message area (helper.sh, `zle -M`), never in the command line or the history, and only
// at an idle, empty prompt; otherwise it is dropped, never queued. Made here, on the server, from
// what the run returned; the text is the script's author's, so every control or format
// character (escape sequences, bidi overrides) becomes "?" before it reaches a terminal.
import type { Completion } from "./frames.ts";

/** How the run ended: the script's completion, or the error it failed with after the guard. */
export type NoticeOutcome = { completion: Completion } | { code: string };

/** The first line of the script shown at most this many characters. */
const SHOWN_CHARS = 60;

/** The notice for run `runId` of `script`, which ended with `outcome` after `ms`. */
export function runNotice(
  runId: string,
  script: string,
  outcome: NoticeOutcome,
  ms: number,
): string {
  const lines = script.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = [...(lines[0] ?? "").trim().replace(/[\p{Cc}\p{Cf}]/gu, "?")];
  const shown = first.length > SHOWN_CHARS
    ? `${first.slice(0, SHOWN_CHARS).join("")}…`
    : first.join("");
  const more = lines.length - 1;
  const what = first.length === 0
    ? `a script of ${new TextEncoder().encode(script).length} bytes`
    : `"${shown}"${more > 0 ? ` and ${more} more line${more > 1 ? "s" : ""}` : ""}`;
  const how = "completion" in outcome
    ? outcome.completion.state === "exited"
      ? `exited ${outcome.completion.exit_status}`
      : `killed by signal ${outcome.completion.signal}`
    : `failed: ${outcome.code}`;
  return `tmux-mcp: run ${runId.slice(0, 8)} ${what} ${how} after ${(ms / 1000).toFixed(1)} s`;
}
