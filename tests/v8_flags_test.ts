// The server's recommended V8 flags are written in several places a person copies from or a build
// reads; they must all say the same as SERVER_V8_FLAGS, the flags the benchmarks measured.
import assert from "node:assert/strict";
import { SERVER_V8_FLAGS } from "../lib/server/server.ts";

const ROOT = new URL("../", import.meta.url);

/** Every `--v8-flags=…` value written in the file, in order. */
async function v8FlagsIn(path: string): Promise<string[]> {
  const text = await Deno.readTextFile(new URL(path, ROOT));
  return [...text.matchAll(/--v8-flags=([^\s"'`]+)/g)].map((match) => match[1]);
}

Deno.test("the recommended server V8 flags are the same wherever they are written", async () => {
  const deno = await v8FlagsIn("deno.json");
  assert.deepEqual(deno, [SERVER_V8_FLAGS, SERVER_V8_FLAGS], "deno.json's start and compile");
  const release = await v8FlagsIn(".github/workflows/release.yml");
  assert.deepEqual(release, [SERVER_V8_FLAGS], "the release workflow's deno compile");
  // The README also shows the helper's own flags, which start with a heap limit.
  const readme = (await v8FlagsIn("README.md")).filter((flags) => !flags.includes("jitless"));
  assert.ok(readme.length >= 3, "the client configuration shows the flags");
  for (const flags of readme) assert.equal(flags, SERVER_V8_FLAGS, "README.md");
});
