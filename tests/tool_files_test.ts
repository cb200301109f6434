// The tools folder's one rule about its own shape: tool files share pieces through the shared
// files, whose names begin with `_` (lib/tools/_define.ts, _blocks.ts, _cursors.ts, ...), and
// lib/tools/context.ts (what a handler is given), and never import one another, so each can be
// read (and changed) alone.
import assert from "node:assert/strict";

const TOOLS = new URL("../lib/tools/", import.meta.url);

/** A file every tool file may import: context.ts, or a shared file (`_` first). */
function isShared(name: string): boolean {
  return name === "context.ts" || name.startsWith("_");
}

Deno.test("no tool file imports a sibling; shared pieces come from _*.ts and context.ts", async () => {
  const sideways: string[] = [];
  for await (const entry of Deno.readDir(TOOLS)) {
    if (!entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, TOOLS));
    for (const [, target] of source.matchAll(/from\s+"\.\/([^"]+)"/g)) {
      if (!isShared(target)) sideways.push(`${entry.name} imports ${target}`);
    }
  }
  assert.deepEqual(sideways, []);
});
