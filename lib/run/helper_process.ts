// The helper: the enrolled shell's own child, started once at enrollment, that runs each
// script and waits on it natively. The server is not the shell's ancestor, so it cannot wait
// on the script; a shell's `$?` cannot tell exit 130 from SIGINT. The helper can, and it is
// kept alive while enrolled so that no run pays a process start-up.
import {
  type Completion,
  frameParts,
  type HelperMessage,
  type OutputStream,
  parseServerMessage,
  readFrames,
  type ServerMessage,
} from "./frames.ts";
import { exactReads } from "../exact_reads.ts";
import { sha256Hex } from "../ids.ts";
import { delay } from "../delay.ts";
import { hasExited, stopGroup } from "./process_group.ts";
import { readShellRecords, type RunRequest } from "./shell_records.ts";
import { Launchers } from "./launcher.ts";

/** After the exit is seen, both pipes must reach EOF within this window (spec §3.16). */
const DRAIN_WINDOW_MS = 250;

type ActiveRun = {
  /** Asks for the group to be stopped, unless `sh` has already exited on its own. */
  requestStop: () => void;
  done: Promise<void>;
};

export async function runHelper(): Promise<void> {
  // The pane's hangup and the person's Ctrl-C at the prompt must not take a run's result with
  // them: the helper ends only when its channel says so, after its runs are reported.
  for (const signal of ["SIGHUP", "SIGINT"] as const) Deno.addSignalListener(signal, () => {});
  const records = readShellRecords(exactReads(Deno.stdin.readable));
  const hello = await records.next();
  if (hello.done || hello.value.kind !== "hello") return;
  const conn = await Deno.connect({ transport: "unix", path: hello.value.channelPath });
  const writer = conn.writable.getWriter();
  // The pieces of a frame are handed to the writer in one go, so no other frame comes between.
  const send = (message: HelperMessage, body: Uint8Array[] = []) =>
    Promise.all(frameParts(message, body).map((part) => writer.write(part))).then(
      () => {},
      () => {},
    );
  await send({ type: "hello", token: hello.value.token, pid: Deno.pid });

  const requests = new Map<string, RunRequest>();
  const active = new Map<string, ActiveRun>();
  const launchers = new Launchers();
  launchers.warm();
  const stopAll = async () => {
    const runs = [...active.values()];
    runs.forEach((run) => run.requestStop());
    await Promise.all(runs.map((run) => run.done));
  };
  Deno.addSignalListener("SIGTERM", () => stopAll().then(() => Deno.exit(0)));

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
    // The server proves who is on this connection by naming a file for us to hold open while
    // it looks at our fd table; we let go of it at the next frame.
    let proof: Deno.FsFile | null = null;
    for await (const frame of readFrames(exactReads(conn.readable))) {
      const message = parseServerMessage(frame.header);
      if (!message) return;
      proof?.close();
      proof = null;
      if (message.type === "prove") {
        proof = await Deno.open(message.path, { read: true }).catch(() => null);
        if (proof) await send({ type: "proved" });
        continue;
      }
      handleServerMessage(message, frame.body, { requests, active, launchers, send });
    }
  })().catch(() => {});

  // The shell closing its end means it exited: every run still in flight is finished, drained
  // and reported first (the server decides whether a run outlives its shell). The server closing
  // the channel means nobody will read a result: stop every run's group, then go.
  const ended = await Promise.race([
    fromShell.then(() => "shell" as const, () => "shell" as const),
    fromServer.then(() => "server" as const),
  ]);
  if (ended === "server") await stopAll();
  else {
    const serverGone = fromServer.then(() => true);
    while (active.size && !await Promise.race([serverGone, anyDone(active)])) {
      // A run ended; look again, since a script frame may have started another.
    }
    if (active.size) await stopAll();
  }
  Deno.exit(0);
}

async function anyDone(active: Map<string, ActiveRun>): Promise<false> {
  await Promise.race([...active.values()].map((run) => run.done));
  return false;
}

/** What the helper's message handling works with: its runs, its launchers and its link. */
type HelperState = {
  requests: Map<string, RunRequest>;
  active: Map<string, ActiveRun>;
  launchers: Launchers;
  send: (message: HelperMessage, body?: Uint8Array[]) => Promise<void>;
};

function handleServerMessage(
  message: Exclude<ServerMessage, { type: "prove" }>,
  body: Uint8Array,
  { requests, active, launchers, send }: HelperState,
): void {
  const runId = message.run_id;
  if (message.type === "abort") {
    requests.delete(runId);
    return;
  }
  if (message.type === "cancel") {
    active.get(runId)?.requestStop();
    return;
  }
  const request = requests.get(runId);
  requests.delete(runId);
  if (!request) {
    send({ type: "refused", run_id: runId, reason: "unknown_run" });
    return;
  }
  const done = Promise.withResolvers<void>();
  const stopRequested = Promise.withResolvers<"stop">();
  let exitedOnItsOwn = false;
  active.set(runId, {
    requestStop: () => exitedOnItsOwn || stopRequested.resolve("stop"),
    done: done.promise,
  });
  execute(request, message, body, stopRequested.promise, () => exitedOnItsOwn = true, {
    launchers,
    send,
  })
    .finally(() => {
      active.delete(runId);
      done.resolve();
    });
}

async function execute(
  request: RunRequest,
  limits: { stdout_limit: number; stderr_limit: number },
  script: Uint8Array,
  stopRequested: Promise<"stop">,
  markExited: () => void,
  { launchers, send }: Pick<HelperState, "launchers" | "send">,
): Promise<void> {
  const runId = request.runId;
  if (script.includes(0)) return void send({ type: "refused", run_id: runId, reason: "nul" });
  if (await sha256Hex(script) !== request.digest) {
    return void send({ type: "refused", run_id: runId, reason: "digest" });
  }
  const cwd = await Deno.stat(request.cwd).catch(() => null);
  const child = cwd?.isDirectory
    ? await launchers.launch({ ...request, script: new TextDecoder().decode(script) })
    : null;
  if (!child) return void send({ type: "refused", run_id: runId, reason: "spawn" });
  await send({ type: "started", run_id: runId, pid: child.pid });

  let completion: Completion | null = null;
  const exited = child.status.then((status) => completion = toCompletion(status));
  // Resolved by the first stream that goes over its limit; the overflow frame names it.
  const overflow = Promise.withResolvers<OutputStream>();
  const stdout = drainBounded(
    child.stdout,
    limits.stdout_limit,
    () => overflow.resolve("stdout"),
  );
  const stderr = drainBounded(
    child.stderr,
    limits.stderr_limit,
    () => overflow.resolve("stderr"),
  );
  const overflowed = overflow.promise.then(() => "overflow" as const);

  let first = await Promise.race([exited, overflowed, stopRequested]);
  if (first === "stop" && await hasExited(child.pid)) first = await exited;
  if (first === "overflow" || first === "stop") {
    const stop = await stopGroup(child.pid, exited);
    stdout.cancel();
    stderr.cancel();
    if (first === "overflow") {
      return void await send({
        type: "overflow",
        run_id: runId,
        stream: await overflow.promise,
        stop,
      });
    }
    return void await send({ type: "cancelled", run_id: runId, completion, stop });
  }
  // `sh` exited on its own: a stop asked for from now on would only hit background jobs, which
  // are the author's choice; the result (or the drain verdict) follows within the window.
  markExited();
  const exit = first;
  const late = delay(DRAIN_WINDOW_MS).then(() => "late" as const);
  const [out, err] = await Promise.all([
    Promise.race([stdout.bytes, late]),
    Promise.race([stderr.bytes, late]),
  ]);
  if (out === "late" || err === "late") {
    stdout.cancel();
    stderr.cancel();
    const open: OutputStream[] = [];
    if (out === "late") open.push("stdout");
    if (err === "late") open.push("stderr");
    return void await send({ type: "drain_timeout", run_id: runId, completion: exit, open });
  }
  if (out === null || err === null) {
    // Overflow refuses the run even after `sh` exited: what it left in its group goes too.
    const stop = await stopGroup(child.pid, exited);
    return void await send({
      type: "overflow",
      run_id: runId,
      stream: await overflow.promise,
      stop,
    });
  }
  await send({ type: "result", run_id: runId, completion: exit, stdout_bytes: out.length }, [
    out,
    err,
  ]);
}
/** The first read of a pipe is this small; each read that fills its buffer doubles the next. */
const FIRST_READ_BYTES = 4096;
const MAX_READ_BYTES = 65536;

/**
 * Reads a pipe holding at most `limit + 1` bytes; null (and `onOverflow`) past the limit.
 * Memory follows the output, not the limit: most scripts print a few bytes. Allocating
 * `limit + 1` bytes and a 64 KiB read buffer per stream for every run (with Deno's 64 KiB reads
 * of stdin and the link, now `exactReads`) took a helper's RSS from 59 to 105 MiB between runs 100 and 2000
 * (bench/soak.ts), the buffers outliving each run until V8's next full collection. Here a run
 * that prints a line holds one 4 KiB buffer per stream, reused from one read to the next.
 */
function drainBounded(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  onOverflow: () => void,
): { bytes: Promise<Uint8Array | null>; cancel: () => void } {
  const reader = stream.getReader({ mode: "byob" });
  const bytes = (async () => {
    const chunks: Uint8Array[] = [];
    let filled = 0;
    let buffer: ArrayBufferLike = new ArrayBuffer(FIRST_READ_BYTES);
    while (true) {
      const room = Math.min(buffer.byteLength, limit + 1 - filled);
      const read: ReadableStreamReadResult<Uint8Array> = await reader.read(
        new Uint8Array(buffer, 0, room),
      );
      const value: Uint8Array | undefined = read.value;
      if (read.done || !value) return joined(chunks, filled);
      chunks.push(value.slice());
      filled += value.length;
      if (filled > limit) {
        onOverflow();
        return null;
      }
      const full: boolean = value.length === room && room < MAX_READ_BYTES;
      buffer = full ? new ArrayBuffer(room * 2) : value.buffer;
    }
  })().catch(() => null);
  return { bytes, cancel: () => void reader.cancel().catch(() => {}) };
}

function joined(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function toCompletion(status: Deno.CommandStatus): Completion {
  // Deno reports a death by signal n as code 128 + n with `signal` set; a plain exit 143 has
  // `signal` null. That is the native distinction a shell's `$?` cannot make.
  if (status.signal !== null) {
    return { state: "signaled", exit_status: null, signal: status.code - 128 };
  }
  return { state: "exited", exit_status: status.code, signal: null };
}
