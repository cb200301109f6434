// What became of a call whose answer its client no longer took. A client that gives up on a
// call (Codex's tool_timeout_sec cuts a call however much progress came; any client's cancel)
// sends notifications/cancelled and drops the answer, so its model is told only "timed out" while
// the server went on to stop the script and knows exactly how it ended (issue 27). Each
// connection keeps those endings here, and the next answer it gives carries them in one short
// line ahead of its text, once: the run id and outcome the model would otherwise never see.
import type { ToolPayload } from "../mcp/tool_payload.ts";
import { isJsonObject } from "../util/json_object.ts";
import { completionText } from "../run/run_text.ts";

/** At most this many endings wait for the next answer; older ones are counted, not named. */
const KEPT = 4;

export type MissedCalls = {
  /** A call of `tool` ended with `payload` after its client had cancelled it. */
  record: (tool: string, payload: ToolPayload, seconds: number) => void;
  /** The line for the next answer, or null when nothing was missed since the last one. */
  take: () => string | null;
};

export function missedCalls(): MissedCalls {
  let endings: string[] = [];
  let dropped = 0;
  return {
    record: (tool, payload, seconds) => {
      endings.push(`${tool} after ${seconds.toFixed(1)} s: ${outcomeOf(payload)}`);
      if (endings.length > KEPT) {
        endings = endings.slice(-KEPT);
        dropped++;
      }
    },
    take: () => {
      if (endings.length === 0) return null;
      const more = dropped > 0 ? ` (and ${dropped} earlier)` : "";
      const line =
        `note: your client cancelled or timed out ${
          endings.length === 1 ? "a call" : `${endings.length} calls`
        }${more} whose answer it never took; they ended: ${endings.join("; ")}. ` +
        "tmux_capabilities.recent_runs keeps each tmux_run's receipt.\n";
      endings = [];
      dropped = 0;
      return line;
    },
  };
}

/** `ok`, a tmux_run's run id and exit, or the error's code and delivery with the run it names. */
function outcomeOf(payload: ToolPayload): string {
  if (payload.ok) {
    const run = runOf(payload.data);
    return run ? `run ${run.id} ${run.completion}` : "ok";
  }
  const { code, delivery, effects } = payload.error;
  const run = isJsonObject(effects) ? runOf(effects) : null;
  return `error ${code} (delivery: ${delivery})${run ? `, run ${run.id} ${run.completion}` : ""}`;
}

/** The run id and completion in a tmux_run result's data or a failure's effects. */
function runOf(data: unknown): { id: string; completion: string } | null {
  if (!isJsonObject(data) || !isJsonObject(data.authorization)) return null;
  const id = data.authorization.run_id;
  if (typeof id !== "string") return null;
  return { id, completion: completionText(data.completion) };
}
