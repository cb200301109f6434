// The pipe from the enrolled shell to its helper. zsh can write NUL-separated fields with a
// builtin and no fork, and no field it sends (paths, exported values) can hold a NUL, so a
// record is a kind letter followed by its fields, each ended by NUL. The umask field is what
// zsh's `umask` builtin prints (octal, then a newline), written straight to the pipe.
import { concatBytes } from "../bytes.ts";

export type HelloRecord = { kind: "hello"; channelPath: string; token: string };
export type RunRequest = {
  kind: "run";
  runId: string;
  token: string;
  digest: string;
  cwd: string;
  /** The shell's umask at the request, or null when the field is not an octal mask. */
  umask: number | null;
  environment: Record<string, string>;
};

export async function* readShellRecords(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<HelloRecord | RunRequest> {
  const fields = readFields(stream);
  const next = async () => {
    const field = await fields.next();
    if (field.done) throw new Error("shell record ended early");
    return field.value;
  };
  try {
    for await (const kind of fields) {
      if (kind === "H") {
        yield { kind: "hello", channelPath: await next(), token: await next() };
      } else if (kind === "R") {
        const runId = await next(), token = await next(), digest = await next();
        const cwd = await next();
        const mask = (await next()).trim();
        const umask = /^[0-7]{1,4}$/.test(mask) ? parseInt(mask, 8) : null;
        const count = Number(await next());
        const environment: Record<string, string> = {};
        for (let i = 0; i < count; i++) {
          const entry = await next();
          const equals = entry.indexOf("=");
          if (equals > 0) environment[entry.slice(0, equals)] = entry.slice(equals + 1);
        }
        yield { kind: "run", runId, token, digest, cwd, umask, environment };
      } else {
        return;
      }
    }
  } catch {
    return;
  }
}

async function* readFields(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  // Paths and values are bytes to the kernel; decoding without `fatal` keeps a non-UTF-8
  // path usable as far as Deno's string APIs allow. A field is kept as chunk slices, never
  // spread into push(): a 200 KB chunk spread that way overflows the call stack.
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  for await (const chunk of stream) {
    let start = 0;
    for (let i = chunk.indexOf(0); i !== -1; i = chunk.indexOf(0, start)) {
      pending.push(chunk.subarray(start, i));
      yield decoder.decode(concatBytes(pending));
      pending = [];
      start = i + 1;
    }
    pending.push(chunk.slice(start));
  }
}
