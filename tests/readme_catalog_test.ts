// The README's table of toolsets is read against the catalog itself: every tool of the catalog
// stands in the row of its toolset (tmux_run in the exact-name row), and the table names no tool
// the catalog does not have.
import assert from "node:assert/strict";
import { CATALOG, TOOLSETS } from "../lib/server/catalog.ts";

const README = new URL("../README.md", import.meta.url);

/** The README table's rows: the first cell's first word (or "exact") and the tools named. */
async function readmeRows(): Promise<Map<string, string[]>> {
  const text = await Deno.readTextFile(README);
  const section = text.slice(text.indexOf("## Toolsets and tools"));
  const rows = new Map<string, string[]>();
  for (const line of section.split("\n").slice(1)) {
    if (line.startsWith("## ")) break;
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 4 || !cells[2].includes("`")) continue;
    const set = /^`([a-z]+)`/.exec(cells[1])?.[1] ?? (cells[1].startsWith("exact") ? "exact" : "");
    rows.set(set, [...cells[2].matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).sort());
  }
  return rows;
}

Deno.test("the README's toolset table lists exactly the catalog's tools, set by set", async () => {
  const rows = await readmeRows();
  for (const set of TOOLSETS) {
    const tools = CATALOG.filter((tool) => tool.toolset === set).map((tool) => tool.name).sort();
    assert.deepEqual(rows.get(set), tools, `the ${set} row`);
  }
  const exact = CATALOG.filter((tool) => tool.toolset === null).map((tool) => tool.name).sort();
  assert.deepEqual(rows.get("exact"), exact, "the exact-name row");
  assert.deepEqual([...rows.keys()].sort(), [...TOOLSETS, "exact"].sort());
});
