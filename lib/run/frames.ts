// The wire between the server and the helper. Script and outputs are arbitrary bytes, and a
// script's output may itself look like a protocol line ("RESULT 0"), so nothing is delimited
// by content: every frame is two big-endian u32 lengths, a JSON header, then raw body bytes.
// Headers are typed here once and checked where they enter. This is the server's side; the
// helper's side is lib/run/helper.pl, which reads the server's headers with one strict pattern.
import { isJsonObject } from "../util/json_object.ts";

/** What a stop confirmed (lib/run/stop_group.pl `stop_json`). */
export type StopReport = {
  /** Live members of the script's group after the stop; null when the table was unreadable. */
  remaining: number | null;
  /** Descendants found outside the group (setsid, a double fork), signalled with the group. */
  escapees: number;
  /** How many of those still lived after the stop; null when the table was unreadable. */
  escapees_left: number | null;
  /** Whether an orphaned descendant could have been found (`sh` adopted orphans and lived). */
  orphans_traced: boolean;
  /** Members of the group that were stopped (state T) before the stop began. */
  halted: number;
  /** The signal that had stopped `sh` itself, as its parent's wait read it; null if none. */
  halt_signal: number | null;
};

export type Completion =
  | { state: "exited"; exit_status: number; signal: null }
  | { state: "signaled"; exit_status: null; signal: number };

export type HelperMessage =
  | { type: "hello"; token: string; pid: number }
  /** The helper holds open the file the server's `prove` named (lib/run/consent.ts). */
  | { type: "proved" }
  | { type: "ready"; run_id: string; token: string; digest: string }
  /**
   * `sh` was spawned as the leader of process group `pid`; `adopts`: it adopts what its
   * descendants orphan (Linux's child subreaper), so a stop can find a double-forked one.
   */
  | { type: "started"; run_id: string; pid: number; adopts: boolean }
  | { type: "result"; run_id: string; completion: Completion; stdout_bytes: number }
  /** The answer to `count`: the bytes of each stream the helper has read so far. */
  | { type: "counted"; run_id: string; stdout_bytes: number; stderr_bytes: number }
  /** `stream` is the first stream that went over its limit. */
  | { type: "overflow"; run_id: string; stream: OutputStream; stop: StopReport }
  | { type: "drain_timeout"; run_id: string; completion: Completion; open: OutputStream[] }
  | { type: "cancelled"; run_id: string; completion: Completion | null; stop: StopReport }
  | { type: "refused"; run_id: string; reason: RefusalReason };

/**
 * Why the helper ran nothing: the script as sent was wrong (`digest`, `nul`, `unknown_run`),
 * the helper is going (`leaving`), or `sh` could not start: the shell's directory could not be
 * entered (`directory`), the system refused a process, pipe or memory (`resources`), or
 * anything else (`start`).
 */
export type RefusalReason =
  | "digest"
  | "nul"
  | "unknown_run"
  | "leaving"
  | "directory"
  | "resources"
  | "start";

const REFUSAL_REASONS: readonly RefusalReason[] = [
  "digest",
  "nul",
  "unknown_run",
  "leaving",
  "directory",
  "resources",
  "start",
];

export type OutputStream = "stdout" | "stderr";

export type ServerMessage =
  /** The body is the path of a file the helper is to hold open (lib/run/consent.ts). */
  | { type: "prove" }
  | { type: "script"; run_id: string; stdout_limit: number; stderr_limit: number }
  | { type: "abort"; run_id: string }
  /** Asks how much output a running script has written so far (for progress); `counted`. */
  | { type: "count"; run_id: string }
  | { type: "cancel"; run_id: string };

export type Frame<T> = { header: T; body: Uint8Array };

const MAX_HEADER_BYTES = 64 * 1024;
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class MalformedFrame extends Error {}

export function encodeFrame(header: object, body: Uint8Array = new Uint8Array()): Uint8Array {
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const frame = new Uint8Array(8 + headerBytes.length + body.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, headerBytes.length);
  view.setUint32(4, body.length);
  frame.set(headerBytes, 8);
  frame.set(body, 8 + headerBytes.length);
  return frame;
}

/** Where frames are read from: a connection's own reads (Deno.Conn has this). */
export type ByteSource = { read(into: Uint8Array): Promise<number | null> };

/** Room for a frame's lengths and the largest header, and what a read brings beyond them. */
const STAGING_BYTES = 8 + MAX_HEADER_BYTES + 65536;

/**
 * Yields raw frames from `source` (after `initial`, bytes already read from it); throws
 * MalformedFrame on anything out of bounds, and ends where the source ends. Lengths and headers
 * are read through one staging buffer; a body is read by the kernel straight into the array it
 * is handed on in, after whatever of it the staging buffer already held. A full-size result (512
 * KiB of output) is then one fresh array and one copy, not a fresh array per read, one per chunk
 * and one for the frame: on this project's VMs a fresh page costs a fault of about 17 µs, which
 * made those copies about 4 ms of a full-size run (docs/design/full_size_output.md).
 */
export async function* readFrames(
  source: ByteSource,
  initial: Uint8Array = new Uint8Array(),
): AsyncGenerator<Frame<unknown>> {
  const staging = new Uint8Array(Math.max(STAGING_BYTES, initial.length));
  staging.set(initial);
  let start = 0;
  let end = initial.length;
  /** Reads until `count` bytes are staged; false when the source ended first. */
  const stage = async (count: number): Promise<boolean> => {
    if (end - start >= count) return true;
    staging.copyWithin(0, start, end);
    end -= start;
    start = 0;
    while (end < count) {
      const read = await source.read(staging.subarray(end));
      if (read === null) return false;
      end += read;
    }
    return true;
  };
  while (await stage(8)) {
    const prefix = new DataView(staging.buffer, start, 8);
    const lengths = { header: prefix.getUint32(0), body: prefix.getUint32(4) };
    if (lengths.header > MAX_HEADER_BYTES || lengths.body > MAX_BODY_BYTES) {
      throw new MalformedFrame("frame too large");
    }
    if (!await stage(8 + lengths.header)) return;
    let header: unknown;
    try {
      const text = new TextDecoder("utf-8", { fatal: true })
        .decode(staging.subarray(start + 8, start + 8 + lengths.header));
      header = JSON.parse(text);
    } catch {
      throw new MalformedFrame("header is not JSON");
    }
    start += 8 + lengths.header;
    const body = new Uint8Array(lengths.body);
    const staged = Math.min(lengths.body, end - start);
    body.set(staging.subarray(start, start + staged));
    start += staged;
    for (let filled = staged; filled < lengths.body;) {
      const read = await source.read(body.subarray(filled));
      if (read === null) return;
      filled += read;
    }
    yield { header, body };
  }
}

const HEX32 = /^[a-f0-9]{32}$/;
const HEX64 = /^[a-f0-9]{64}$/;

// Each message below is built anew from the fields that were checked, never passed on as
// received: the type then follows from the checks, and a field the wire format does not name
// goes no further than this module.

function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

function isHex(value: unknown, form: RegExp): value is string {
  return typeof value === "string" && form.test(value);
}

function isOutputStream(value: unknown): value is OutputStream {
  return value === "stdout" || value === "stderr";
}

/** A list of output stream names, or null if anything in it is not one. */
function streamsOf(value: unknown): OutputStream[] | null {
  if (!Array.isArray(value)) return null;
  const streams = value.filter(isOutputStream);
  return streams.length === value.length ? streams : null;
}

function completionOf(value: unknown): Completion | null {
  if (!isJsonObject(value)) return null;
  const { state, exit_status, signal } = value;
  if (
    state === "exited" && isInteger(exit_status) && exit_status >= 0 && exit_status <= 255 &&
    signal === null
  ) return { state, exit_status, signal };
  if (
    state === "signaled" && exit_status === null && isInteger(signal) && signal >= 1 &&
    signal <= 255
  ) return { state, exit_status, signal };
  return null;
}

function isCount(value: unknown): value is number {
  return isInteger(value) && value >= 0;
}

/** A stop report as the helper (or the server's own perl) wrote it; null if it is not one. */
export function stopReportOf(value: unknown): StopReport | null {
  if (!isJsonObject(value)) return null;
  const { remaining, escapees, escapees_left, orphans_traced, halted, halt_signal } = value;
  return (remaining === null || isCount(remaining)) && isCount(escapees) &&
      (escapees_left === null || isCount(escapees_left)) && typeof orphans_traced === "boolean" &&
      isCount(halted) && (halt_signal === null || isCount(halt_signal))
    ? { remaining, escapees, escapees_left, orphans_traced, halted, halt_signal }
    : null;
}

/** Checks a header from the helper; null means the frame is malformed. */
export function parseHelperMessage(header: unknown): HelperMessage | null {
  if (!isJsonObject(header)) return null;
  const h = header;
  if (h.type === "hello") {
    return isHex(h.token, HEX32) && isInteger(h.pid)
      ? { type: "hello", token: h.token, pid: h.pid }
      : null;
  }
  if (h.type === "proved") return { type: "proved" };
  const run_id = h.run_id;
  if (!isHex(run_id, HEX32)) return null;
  switch (h.type) {
    case "ready":
      return isHex(h.token, HEX32) && isHex(h.digest, HEX64)
        ? { type: "ready", run_id, token: h.token, digest: h.digest }
        : null;
    case "result": {
      const completion = completionOf(h.completion);
      return completion && isInteger(h.stdout_bytes)
        ? { type: "result", run_id, completion, stdout_bytes: h.stdout_bytes }
        : null;
    }
    case "counted":
      return isCount(h.stdout_bytes) && isCount(h.stderr_bytes)
        ? { type: "counted", run_id, stdout_bytes: h.stdout_bytes, stderr_bytes: h.stderr_bytes }
        : null;
    case "started":
      return isInteger(h.pid) && h.pid > 1 && typeof h.adopts === "boolean"
        ? { type: "started", run_id, pid: h.pid, adopts: h.adopts }
        : null;
    case "drain_timeout": {
      const completion = completionOf(h.completion);
      const open = streamsOf(h.open);
      return completion && open ? { type: "drain_timeout", run_id, completion, open } : null;
    }
    case "overflow": {
      const stop = stopReportOf(h.stop);
      return isOutputStream(h.stream) && stop
        ? { type: "overflow", run_id, stream: h.stream, stop }
        : null;
    }
    case "cancelled": {
      const completion = h.completion === null ? null : completionOf(h.completion);
      const stop = stopReportOf(h.stop);
      return (h.completion === null || completion) && stop
        ? { type: "cancelled", run_id, completion, stop }
        : null;
    }
    case "refused": {
      const reason = REFUSAL_REASONS.find((known) => known === h.reason);
      return reason ? { type: "refused", run_id, reason } : null;
    }
  }
  return null;
}
