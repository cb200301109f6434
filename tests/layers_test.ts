// The folders of lib/ are layers, and every import points down: the MCP glue (lib/mcp/) imports
// nothing of the app, the tmux kit nothing of tmux_run nor of MCP, the tools nothing of the
// server shell, and so on up to lib/server/, which lists what is below. No file imports itself
// back through others, not even for a type. Test files are left out: a unit test may reach its
// oracle in tests/. This is the rule ARCHITECTURE.md describes; a new folder needs a row here.
// The tmux kit says what happened and the tools say it to the agent, so no file of the kit
// names a tool: a renamed tool is renamed where the tools are.
import assert from "node:assert/strict";
import { CATALOG } from "../lib/server/catalog.ts";

const LIB = new URL("../lib/", import.meta.url);

/** Each folder and the folders (besides itself) its files may import from. */
const MAY_IMPORT: Record<string, string[]> = {
  util: [],
  host: ["util"],
  journal: ["util"],
  mcp: ["util"],
  tmux: ["util", "host"],
  run: ["util", "host", "mcp", "tmux", "journal"],
  tools: ["util", "host", "mcp", "tmux", "run", "journal"],
  cli: ["util", "host", "mcp", "tmux", "run", "journal"],
  server: ["util", "host", "mcp", "tmux", "run", "tools", "cli", "journal"],
};

/** The pinned third-party imports at lib/'s root, which every folder may use. */
const ROOT_FILES = ["deps.ts", "dev_deps.ts"];

type Edge = { from: string; to: string };

/** Every import between lib/'s source files, as paths relative to lib/. */
async function libraryImports(): Promise<{ files: string[]; edges: Edge[] }> {
  const files: string[] = [];
  const walk = async (dir: URL, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
        files.push(`${prefix}${entry.name}`);
      }
    }
  };
  await walk(LIB, "");
  const edges: Edge[] = [];
  for (const from of files) {
    const source = await Deno.readTextFile(new URL(from, LIB));
    const specifiers = source.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g);
    for (const [, specifier] of specifiers) {
      const target = new URL(specifier, new URL(from, LIB)).href;
      if (target.startsWith(LIB.href) && target.endsWith(".ts")) {
        edges.push({ from, to: target.slice(LIB.href.length) });
      }
    }
  }
  return { files, edges };
}

function folderOf(path: string): string {
  return path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
}

Deno.test("every import between lib/'s folders points down", async () => {
  const { files, edges } = await libraryImports();
  const unknownFolders = [...new Set(files.map(folderOf))]
    .filter((folder) => folder !== "" && !(folder in MAY_IMPORT));
  assert.deepEqual(unknownFolders, [], "a folder of lib/ with no row in MAY_IMPORT");
  const loose = files.filter((file) => folderOf(file) === "" && !ROOT_FILES.includes(file));
  assert.deepEqual(loose, [], "files loose at lib/'s root belong in a folder (lib/util/)");
  const upward = edges.filter(({ from, to }) => {
    const [source, target] = [folderOf(from), folderOf(to)];
    if (target === "" || source === target) return false;
    return !MAY_IMPORT[source].includes(target);
  }).map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(upward, []);
});

Deno.test("no file of lib/ imports itself back through others, not even for a type", async () => {
  const { files, edges } = await libraryImports();
  const next = new Map(files.map((file) => [file, [] as string[]]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]) => {
    state.set(file, "open");
    for (const target of next.get(file) ?? []) {
      if (state.get(target) === "open") {
        cycles.push([...path.slice(path.indexOf(target)), target].join(" -> "));
      } else if (!state.has(target)) visit(target, [...path, target]);
    }
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  assert.deepEqual(cycles, []);
});

Deno.test("no source file of the tmux kit names a tool", async () => {
  const tools = new RegExp(`\\b(${CATALOG.map((tool) => tool.name).join("|")})\\b`, "g");
  const named: string[] = [];
  for await (const entry of Deno.readDir(new URL("tmux/", LIB))) {
    if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
    const source = await Deno.readTextFile(new URL(`tmux/${entry.name}`, LIB));
    for (const [name] of source.matchAll(tools)) named.push(`${entry.name}: ${name}`);
  }
  assert.ok(CATALOG.length > 30, "the catalog's tools were read");
  assert.deepEqual(named, []);
});
