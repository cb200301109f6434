// tmux_run's result in words, the text content beside the contract's structuredContent. Clients
// show a model the text, and cut it: Codex keeps a head and a tail, Gemini the first 8,000 and
// last 32,000 characters, opencode a number of lines, Copilot a 500-character preview (issue 27).
// So the outcome comes first, in a few short lines (exit or signal, or the error's code and
// delivery; the run id, the digest, the byte counts), then each output line by line as the
// script wrote it, and the outcome once more at the end: whatever a client keeps of the text
// holds how the run ended. It says the payload's facts and nothing the payload lacks (spec §3.20);
// the outputs go in as the pieces they were decoded in (lib/util/rope.ts), never joined.
import type { ErrorBody, ToolPayload } from "../mcp/tool_payload.ts";
import { errorText } from "../mcp/tool_result.ts";
import { ropePieces } from "../util/rope.ts";
import { isJsonObject } from "../util/json_object.ts";
import type { Receipt } from "./run_outcome.ts";

type Stream = { encoding: "utf-8" | "base64"; data: string; bytes: number };
type Completion =
  | { state: "exited"; exit_status: number; signal: null }
  | { state: "signaled"; exit_status: null; signal: number }
  | { state: "unobserved" };
type RunData = {
  authorization: Receipt;
  completion: Completion;
  stdout: Stream;
  stderr: Stream;
};
type Effects = { state: string; authorization: Receipt | null; completion: Completion };

/** Base64 goes in lines of this many characters, so a reader that pages by lines can. */
const BASE64_LINE = 76;

/** A tmux_run payload as text, in pieces. */
export function runResultText(payload: ToolPayload): string[] {
  if (!payload.ok) return [failureText(payload.error)];
  const data = payload.data as RunData;
  const outcome = completionText(data.completion);
  return [
    `${outcome}\n`,
    `${receiptLines(data.authorization)}\n`,
    `stdout: ${streamSize(data.stdout)}; stderr: ${streamSize(data.stderr)}\n`,
    ...streamSection("stdout", data.stdout),
    ...streamSection("stderr", data.stderr),
    `--- end: ${outcome}, run ${data.authorization.run_id} ---`,
  ];
}

/**
 * `exited 3`, `signaled 15`, or `completion unobserved`: for a run's completion, or for what a
 * payload read back holds where one would be (lib/server/missed_calls.ts).
 */
export function completionText(completion: Completion | unknown): string {
  if (!isJsonObject(completion)) return "completion unobserved";
  if (completion.state === "exited") return `exited ${completion.exit_status}`;
  if (completion.state === "signaled") return `signaled ${completion.signal}`;
  return "completion unobserved";
}

/** The receipt in two lines: what ran where, then the generations it was authorized under. */
function receiptLines(receipt: Receipt): string {
  return `run ${receipt.run_id} in pane ${receipt.pane_id}, script sha256 ` +
    `${receipt.script_digest}\nauthorized: server_generation ${receipt.server_generation}, ` +
    `enrollment_generation ${receipt.enrollment_generation}, process_generation ` +
    receipt.process_generation;
}

function streamSize(stream: Stream): string {
  return `${stream.bytes} bytes ${stream.encoding}`;
}

/** A header, then the stream's text as it came (base64 in lines), ending with a newline. */
function streamSection(name: string, stream: Stream): string[] {
  const header = `--- ${name}: ${streamSize(stream)} ---\n`;
  if (stream.data === "") return [header];
  const body = stream.encoding === "base64"
    ? base64Lines(stream.data)
    : ropePieces(stream, "data", stream.data) ?? [stream.data];
  const last = body[body.length - 1];
  return [header, ...body, ...(last.endsWith("\n") ? [] : ["\n"])];
}

function base64Lines(data: string): string[] {
  const lines: string[] = [];
  for (let at = 0; at < data.length; at += BASE64_LINE) {
    lines.push(`${data.slice(at, at + BASE64_LINE)}\n`);
  }
  return lines;
}

/**
 * A failure: the general tools' one line (code, delivery, message), then what the contract's
 * effects say, the receipt whole when there is one.
 */
function failureText(error: ErrorBody): string {
  const line = errorText(error);
  const effects = error.effects as Effects | undefined;
  if (effects === undefined) return line;
  const completion = completionText(effects.completion);
  if (effects.authorization === null) {
    return `${line}\neffects: ${effects.state}; not authorized; ${completion}`;
  }
  return `${line}\neffects: ${effects.state}; ${completion}\n` +
    receiptLines(effects.authorization);
}
