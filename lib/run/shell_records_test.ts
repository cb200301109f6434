// The shell-to-helper pipe without a shell: NUL-ended fields parse into hello and run records
// however the pipe chunks them, exported values keep every '=' after the first, and a record cut
// short or of an unknown kind ends the stream instead of producing a half-filled request.
import assert from "node:assert/strict";
import { type HelloRecord, readShellRecords, type RunRequest } from "./shell_records.ts";

const RUN = "0123456789abcdef0123456789abcdef";
const TOKEN = "fedcba9876543210fedcba9876543210";
const DIGEST = "d".repeat(64);

function fields(...values: string[]): Uint8Array {
  return new TextEncoder().encode(values.map((v) => `${v}\0`).join(""));
}

async function records(...chunks: Uint8Array[]): Promise<(HelloRecord | RunRequest)[]> {
  const out: (HelloRecord | RunRequest)[] = [];
  for await (const record of readShellRecords(ReadableStream.from(chunks))) out.push(record);
  return out;
}

Deno.test("a hello record carries the channel path and the token", async () => {
  assert.deepEqual(await records(fields("H", "/run/user/1000/tmux-mcp/c 1", TOKEN)), [
    { kind: "hello", channelPath: "/run/user/1000/tmux-mcp/c 1", token: TOKEN },
  ]);
});

Deno.test("a run record carries cwd and the exported environment, '=' kept in values", async () => {
  const wire = fields(
    "R",
    RUN,
    TOKEN,
    DIGEST,
    "/home/me/dir with spaces",
    "077\n",
    "3",
    "A=1",
    "B=x=y=",
    "E=",
  );
  assert.deepEqual(await records(wire), [{
    kind: "run",
    runId: RUN,
    token: TOKEN,
    digest: DIGEST,
    cwd: "/home/me/dir with spaces",
    umask: 0o77,
    environment: { A: "1", B: "x=y=", E: "" },
  }]);
});

Deno.test("values with newlines and non-ASCII text survive", async () => {
  const [record] = await records(
    fields("R", RUN, TOKEN, DIGEST, "/tmp/é", "0022\n", "1", "M=line1\nline2 ✓"),
  );
  assert.equal(record.kind, "run");
  assert.equal((record as RunRequest).cwd, "/tmp/é");
  assert.deepEqual((record as RunRequest).environment, { M: "line1\nline2 ✓" });
});

Deno.test("the umask is the octal the umask builtin prints, and null when it is not one", async () => {
  const [octal] = await records(fields("R", RUN, TOKEN, DIGEST, "/", "027\n", "0"));
  assert.equal((octal as RunRequest).umask, 0o27);
  const [garbled] = await records(fields("R", RUN, TOKEN, DIGEST, "/", "u=rwx\n", "0"));
  assert.equal((garbled as RunRequest).umask, null);
});

Deno.test("an environment entry without a name is skipped", async () => {
  const [record] = await records(
    fields("R", RUN, TOKEN, DIGEST, "/", "022\n", "3", "=x", "NOEQUALS", "K=v"),
  );
  assert.deepEqual((record as RunRequest).environment, { K: "v" });
});

Deno.test("records split at every byte boundary parse the same", async () => {
  const wire = new Uint8Array([
    ...fields("H", "/c", TOKEN),
    ...fields("R", RUN, TOKEN, DIGEST, "/w", "022\n", "1", "K=ü"),
  ]);
  const expected = await records(wire);
  assert.equal(expected.length, 2);
  assert.deepEqual(await records(...[...wire].map((b) => new Uint8Array([b]))), expected);
  for (let cut = 1; cut < wire.length; cut++) {
    assert.deepEqual(
      await records(wire.subarray(0, cut), wire.subarray(cut)),
      expected,
      `cut at ${cut}`,
    );
  }
});

Deno.test("a field larger than any pipe read arrives whole, in one chunk or many", async () => {
  const big = "v".repeat(1024 * 1024);
  const wire = fields("R", RUN, TOKEN, DIGEST, "/", "022\n", "1", `BIG=${big}`);
  const [one] = await records(wire);
  assert.equal((one as RunRequest).environment.BIG.length, big.length);
  const chunks = [];
  for (let at = 0; at < wire.length; at += 65536) chunks.push(wire.subarray(at, at + 65536));
  const [many] = await records(...chunks);
  assert.equal((many as RunRequest).environment.BIG.length, big.length);
});

Deno.test("a record cut short by the end of the pipe yields nothing", async () => {
  assert.deepEqual(await records(fields("H", "/c")), []);
  assert.deepEqual(await records(fields("R", RUN, TOKEN, DIGEST, "/", "022\n", "2", "A=1")), []);
  const wire = fields("H", "/c", TOKEN);
  assert.deepEqual(await records(wire.subarray(0, wire.length - 1)), []);
});

Deno.test("an unknown record kind ends the stream, later records included", async () => {
  const wire = new Uint8Array([
    ...fields("H", "/c", TOKEN),
    ...fields("X", "junk"),
    ...fields("H", "/d", TOKEN),
  ]);
  assert.deepEqual(await records(wire), [{ kind: "hello", channelPath: "/c", token: TOKEN }]);
});
