// The wire between the server and the helper. Script and outputs are arbitrary bytes, and a
// script's output may itself look like a protocol line ("RESULT 0"), so nothing is delimited
// by content: every frame is two big-endian u32 lengths, a JSON header, then raw body bytes.
// Headers are typed here once and checked where they enter.
import type { StopReport } from "./process_group.ts";

export type Completion =
  | { state: "exited"; exit_status: number; signal: null }
  | { state: "signaled"; exit_status: null; signal: number };

export type HelperMessage =
  | { type: "hello"; token: string; pid: number }
  /** The helper holds open the file the server's `prove` named (lib/run/consent.ts). */
  | { type: "proved" }
  | { type: "ready"; run_id: string; token: string; digest: string }
  /** `sh` was spawned as the leader of process group `pid`. */
  | { type: "started"; run_id: string; pid: number }
  | { type: "result"; run_id: string; completion: Completion; stdout_bytes: number }
  /** `stream` is the first stream that went over its limit. */
  | { type: "overflow"; run_id: string; stream: OutputStream; stop: StopReport }
  | { type: "drain_timeout"; run_id: string; completion: Completion; open: OutputStream[] }
  | { type: "cancelled"; run_id: string; completion: Completion | null; stop: StopReport }
  | { type: "refused"; run_id: string; reason: "digest" | "nul" | "spawn" | "unknown_run" };

export type OutputStream = "stdout" | "stderr";

export type ServerMessage =
  | { type: "prove"; path: string }
  | { type: "script"; run_id: string; stdout_limit: number; stderr_limit: number }
  | { type: "abort"; run_id: string }
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

/** Yields raw frames from a byte stream; throws MalformedFrame on anything out of bounds. */
export async function* readFrames(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<Frame<unknown>> {
  // Chunks wait as they arrived and are copied once, into the frame that needs them: a 512 KiB
  // body arriving in 64 KiB reads costs one copy, not one growing copy per read.
  let chunks: Uint8Array[] = [];
  let first = 0;
  let buffered = 0;
  const take = (length: number): Uint8Array => {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const chunk = chunks[first];
      const part = Math.min(chunk.length, length - filled);
      out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) first++;
      else chunks[first] = chunk.subarray(part);
    }
    if (first === chunks.length || first > 64) {
      chunks = chunks.slice(first);
      first = 0;
    }
    buffered -= length;
    return out;
  };
  let lengths: { header: number; body: number } | null = null;
  for await (const chunk of stream) {
    chunks.push(chunk);
    buffered += chunk.length;
    while (true) {
      if (!lengths) {
        if (buffered < 8) break;
        const prefix = new DataView(take(8).buffer);
        lengths = { header: prefix.getUint32(0), body: prefix.getUint32(4) };
        if (lengths.header > MAX_HEADER_BYTES || lengths.body > MAX_BODY_BYTES) {
          throw new MalformedFrame("frame too large");
        }
      }
      if (buffered < lengths.header + lengths.body) break;
      let header: unknown;
      try {
        header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(take(lengths.header)));
      } catch {
        throw new MalformedFrame("header is not JSON");
      }
      yield { header, body: take(lengths.body) };
      lengths = null;
    }
  }
}

const HEX32 = /^[a-f0-9]{32}$/;
const HEX64 = /^[a-f0-9]{64}$/;

function isCompletion(value: unknown): value is Completion {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  if (c.state === "exited") {
    return Number.isInteger(c.exit_status) && (c.exit_status as number) >= 0 &&
      (c.exit_status as number) <= 255 && c.signal === null;
  }
  return c.state === "signaled" && c.exit_status === null && Number.isInteger(c.signal) &&
    (c.signal as number) >= 1 && (c.signal as number) <= 255;
}

function isStopReport(value: unknown): value is StopReport {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return (r.remaining === null || Number.isInteger(r.remaining)) && Number.isInteger(r.left_group);
}

/** Checks a header from the helper; null means the frame is malformed. */
export function parseHelperMessage(header: unknown): HelperMessage | null {
  if (typeof header !== "object" || header === null) return null;
  const h = header as Record<string, unknown>;
  const runOk = typeof h.run_id === "string" && HEX32.test(h.run_id);
  switch (h.type) {
    case "hello":
      return typeof h.token === "string" && HEX32.test(h.token) && Number.isInteger(h.pid)
        ? h as HelperMessage
        : null;
    case "proved":
      return h as HelperMessage;
    case "ready":
      return runOk && typeof h.token === "string" && HEX32.test(h.token) &&
          typeof h.digest === "string" && HEX64.test(h.digest)
        ? h as HelperMessage
        : null;
    case "result":
      return runOk && isCompletion(h.completion) && Number.isInteger(h.stdout_bytes)
        ? h as HelperMessage
        : null;
    case "started":
      return runOk && Number.isInteger(h.pid) && (h.pid as number) > 1 ? h as HelperMessage : null;
    case "drain_timeout":
      return runOk && isCompletion(h.completion) && Array.isArray(h.open) &&
          h.open.every((name) => name === "stdout" || name === "stderr")
        ? h as HelperMessage
        : null;
    case "overflow":
      return runOk && (h.stream === "stdout" || h.stream === "stderr") && isStopReport(h.stop)
        ? h as HelperMessage
        : null;
    case "cancelled":
      return runOk && (h.completion === null || isCompletion(h.completion)) &&
          isStopReport(h.stop)
        ? h as HelperMessage
        : null;
    case "refused":
      return runOk && ["digest", "nul", "spawn", "unknown_run"].includes(h.reason as string)
        ? h as HelperMessage
        : null;
  }
  return null;
}

/** Checks a header from the server, on the helper's side. */
export function parseServerMessage(header: unknown): ServerMessage | null {
  if (typeof header !== "object" || header === null) return null;
  const h = header as Record<string, unknown>;
  if (h.type === "prove") return typeof h.path === "string" ? h as ServerMessage : null;
  if (typeof h.run_id !== "string" || !HEX32.test(h.run_id)) return null;
  if (h.type === "abort" || h.type === "cancel") return h as ServerMessage;
  if (
    h.type === "script" && Number.isInteger(h.stdout_limit) && Number.isInteger(h.stderr_limit)
  ) return h as ServerMessage;
  return null;
}
