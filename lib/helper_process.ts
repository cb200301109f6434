// The helper: the enrolled shell's own child, started once at enrollment, that runs each
// script and waits on it natively. The server is not the shell's ancestor, so it cannot wait
// on the script; a shell's `$?` cannot tell exit 130 from SIGINT. The helper can, and it is
// kept alive while enrolled so that no run pays a process start-up.
import {
  type Completion,
  encodeFrame,
  type HelperMessage,
  parseServerMessage,
  readFrames,
  type ServerMessage,
} from "./frames.ts";
import { sha256Hex } from "./ids.ts";
import { readUmask } from "./procfs.ts";
import { readShellRecords, type RunRequest } from "./shell_records.ts";

/** After the exit is seen, both pipes must reach EOF within this window (spec §3.16). */
const DRAIN_WINDOW_MS = 250;
/** Between SIGTERM and SIGKILL when a run is cancelled or overflows. */
const KILL_GRACE_MS = 500;

type ActiveRun = { child: Deno.ChildProcess; stop: () => Promise<Completion | null> };

export async function runHelper(): Promise<void> {
  const records = readShellRecords(Deno.stdin.readable);
  const hello = await records.next();
  if (hello.done || hello.value.kind !== "hello") return;
  const conn = await Deno.connect({ transport: "unix", path: hello.value.channelPath });
  const writer = conn.writable.getWriter();
  const send = (message: HelperMessage, body?: Uint8Array) =>
    writer.write(encodeFrame(message, body)).catch(() => {});
  await send({ type: "hello", token: hello.value.token, pid: Deno.pid });

  const requests = new Map<string, RunRequest>();
  const active = new Map<string, ActiveRun>();

  const fromShell = (async () => {
    for await (const record of records) {
      if (record.kind !== "run") continue;
      requests.set(record.runId, record);
      await send({
        type: "ready",
        run_id: record.runId,
        token: record.token,
        digest: record.digest,
      });
    }
  })();

  const fromServer = (async () => {
    for await (const frame of readFrames(conn.readable)) {
      const message = parseServerMessage(frame.header);
      if (!message) return;
      handleServerMessage(message, frame.body, requests, active, send);
    }
  })().catch(() => {});

  // The shell closing its end means it exited: finish what runs, then go. The server closing
  // the channel means nobody will read a result: stop what runs at once.
  const ended = await Promise.race([
    fromShell.then(() => "shell" as const, () => "shell" as const),
    fromServer.then(() => "server" as const),
  ]);
  if (ended === "server") {
    await Promise.all([...active.values()].map((run) => run.stop()));
  } else {
    await Promise.race([fromServer, Promise.all([...active.values()].map((r) => r.child.status))]);
  }
  Deno.exit(0);
}

function handleServerMessage(
  message: ServerMessage,
  body: Uint8Array,
  requests: Map<string, RunRequest>,
  active: Map<string, ActiveRun>,
  send: (message: HelperMessage, body?: Uint8Array) => Promise<void>,
): void {
  const runId = message.run_id;
  if (message.type === "abort") {
    requests.delete(runId);
    return;
  }
  if (message.type === "cancel") {
    const run = active.get(runId);
    if (!run) return;
    run.stop().then((completion) => send({ type: "cancelled", run_id: runId, completion }));
    return;
  }
  const request = requests.get(runId);
  requests.delete(runId);
  if (!request) {
    send({ type: "refused", run_id: runId, reason: "unknown_run" });
    return;
  }
  execute(request, message, body, active, send);
}

async function execute(
  request: RunRequest,
  limits: { stdout_limit: number; stderr_limit: number },
  script: Uint8Array,
  active: Map<string, ActiveRun>,
  send: (message: HelperMessage, body?: Uint8Array) => Promise<void>,
): Promise<void> {
  const runId = request.runId;
  if (script.includes(0)) return void send({ type: "refused", run_id: runId, reason: "nul" });
  if (await sha256Hex(script) !== request.digest) {
    return void send({ type: "refused", run_id: runId, reason: "digest" });
  }
  let child: Deno.ChildProcess;
  try {
    const umask = await readUmask(Deno.ppid);
    // Deno.umask, not node:process, whose Node layer alone adds ~8 MiB to the helper's RSS.
    if (umask !== null) Deno.umask(umask);
    child = new Deno.Command("/bin/sh", {
      args: ["-c", new TextDecoder().decode(script)],
      cwd: request.cwd,
      env: request.environment,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch {
    return void send({ type: "refused", run_id: runId, reason: "spawn" });
  }
  child.stdin.close().catch(() => {});

  let stopping: Promise<Completion | null> | undefined;
  const stop = () => stopping ??= terminate(child);
  active.set(runId, { child, stop });
  const overflow = Promise.withResolvers<void>();
  const stdout = drainBounded(child.stdout, limits.stdout_limit, overflow.resolve);
  const stderr = drainBounded(child.stderr, limits.stderr_limit, overflow.resolve);
  const exited = child.status.then(toCompletion);

  const first = await Promise.race([exited, overflow.promise.then(() => "overflow" as const)]);
  if (first === "overflow" || stopping) {
    const wasOverflow = first === "overflow" && !stopping;
    await stop();
    stdout.cancel();
    stderr.cancel();
    active.delete(runId);
    if (wasOverflow) await send({ type: "overflow", run_id: runId });
    return;
  }
  const completion = first;
  const drained = await Promise.race([
    Promise.all([stdout.bytes, stderr.bytes]),
    delay(DRAIN_WINDOW_MS).then(() => "late" as const),
  ]);
  active.delete(runId);
  if (drained === "late") {
    stdout.cancel();
    stderr.cancel();
    return void send({ type: "drain_timeout", run_id: runId, completion });
  }
  const [out, err] = drained;
  if (out === null || err === null) return void send({ type: "overflow", run_id: runId });
  const body = new Uint8Array(out.length + err.length);
  body.set(out);
  body.set(err, out.length);
  await send({ type: "result", run_id: runId, completion, stdout_bytes: out.length }, body);
}

/** Read buffers, kept across runs: a run of `true` then allocates nothing for its pipes. */
const READ_CHUNK = 65536;
const spareBuffers: Uint8Array[] = [];

/** Reads a pipe holding at most `limit + 1` bytes; null (and `onOverflow`) past the limit. */
function drainBounded(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  onOverflow: () => void,
): { bytes: Promise<Uint8Array | null>; cancel: () => void } {
  const reader = stream.getReader({ mode: "byob" });
  const bytes = (async () => {
    const chunks: Uint8Array[] = [];
    let filled = 0;
    // A BYOB read hands the buffer back, transferred, in `value`: read into it again.
    let buffer = spareBuffers.pop() ?? new Uint8Array(READ_CHUNK);
    while (true) {
      const { value, done } = await reader.read(buffer);
      // Cancelled: the buffer went with the read, and what was read so far is all there is.
      if (value === undefined) break;
      buffer = new Uint8Array(value.buffer);
      if (done) {
        if (spareBuffers.length < 4) spareBuffers.push(buffer);
        break;
      }
      filled += value.length;
      if (filled > limit) {
        onOverflow();
        return null;
      }
      chunks.push(value.slice());
    }
    if (chunks.length === 1) return chunks[0];
    const all = new Uint8Array(filled);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    return all;
  })().catch(() => null);
  return { bytes, cancel: () => void reader.cancel().catch(() => {}) };
}

async function terminate(child: Deno.ChildProcess): Promise<Completion | null> {
  const signal = (name: Deno.Signal) => {
    try {
      child.kill(name);
    } catch {
      // Already exited: the status below says how.
    }
  };
  signal("SIGTERM");
  const status = await Promise.race([child.status, delay(KILL_GRACE_MS).then(() => null)]);
  if (status) return toCompletion(status);
  signal("SIGKILL");
  return toCompletion(await child.status);
}

function toCompletion(status: Deno.CommandStatus): Completion {
  // Deno reports a death by signal n as code 128 + n with `signal` set; a plain exit 143 has
  // `signal` null. That is the native distinction a shell's `$?` cannot make.
  if (status.signal !== null) {
    return { state: "signaled", exit_status: null, signal: status.code - 128 };
  }
  return { state: "exited", exit_status: status.code, signal: null };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
