// The tools folder's one rule about its own shape: tool files share pieces through
// lib/tools/toolkit.ts (schema blocks, refusals, wrappers) and lib/tools/context.ts (what a
// handler is given) and never import one another, so each can be read (and changed) alone.
import assert from "node:assert/strict";

const TOOLS = new URL("../lib/tools/", import.meta.url);

const SHARED = ["toolkit.ts", "context.ts"];

Deno.test("no tool file imports a sibling; shared pieces come from toolkit.ts and context.ts", async () => {
  const sideways: string[] = [];
  for await (const entry of Deno.readDir(TOOLS)) {
    if (!entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, TOOLS));
    for (const [, target] of source.matchAll(/from\s+"\.\/([^"]+)"/g)) {
      if (!SHARED.includes(target)) sideways.push(`${entry.name} imports ${target}`);
    }
  }
  assert.deepEqual(sideways, []);
});
