// What tools/list costs a client, tool by tool and part by part: the server started the way a
// client starts it, with the default toolsets and tmux_run, its list measured as the bytes of
// UTF-8 JSON (what tests/catalog_budget_test.ts holds to a budget). Each tool's row splits into
// its description, input schema (and how much of that is parameter descriptions), output schema
// and the rest (name, title, annotations, _meta, execution). `--json` prints the figures as JSON.
import { parseArgs } from "node:util";
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import { randomHex } from "../lib/util/ids.ts";
import { isJsonObject } from "../lib/util/json_object.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

type Row = {
  tool: string;
  description: number;
  input: number;
  input_descriptions: number;
  output: number;
  other: number;
  total: number;
};

function bytesOf(value: unknown): number {
  return value === undefined ? 0 : new TextEncoder().encode(JSON.stringify(value)).length;
}

/** The bytes `"description":"…",` entries take anywhere inside `schema`. */
function descriptionBytes(schema: unknown): number {
  if (Array.isArray(schema)) return schema.reduce((sum, item) => sum + descriptionBytes(item), 0);
  if (!isJsonObject(schema)) return 0;
  return Object.entries(schema).reduce(
    (sum, [key, value]) =>
      sum +
      (key === "description" && typeof value === "string"
        ? bytesOf(key) + 1 + bytesOf(value) + 1
        : descriptionBytes(value)),
    0,
  );
}

function rowOf(tool: Record<string, unknown>): Row {
  const total = bytesOf(tool);
  const description = bytesOf(tool.description);
  const input = bytesOf(tool.inputSchema);
  const output = bytesOf(tool.outputSchema);
  return {
    tool: String(tool.name),
    description,
    input,
    input_descriptions: descriptionBytes(tool.inputSchema),
    output,
    other: total - description - input - output,
    total,
  };
}

/** The tools/list of a server started with `flags`, as the client receives it. */
export async function listedTools(flags: string[]): Promise<Record<string, unknown>[]> {
  const args = ["run", "--allow-all", MAIN, "--socket-name", `absent-${randomHex(6)}`, ...flags];
  const client = new Client({ name: "tmux-mcp-catalog-size", version: "1" });
  try {
    await client.connect(new LineClientTransport(Deno.execPath(), args));
    const { tools } = await client.listTools();
    return tools;
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
  const tools = await listedTools(["--enable-tool", "tmux_run"]);
  const rows = tools.map(rowOf);
  const sum = (key: Exclude<keyof Row, "tool">) => rows.reduce((s, row) => s + row[key], 0);
  const totals: Row = {
    tool: `all ${rows.length} tools`,
    description: sum("description"),
    input: sum("input"),
    input_descriptions: sum("input_descriptions"),
    output: sum("output"),
    other: sum("other"),
    total: bytesOf(tools),
  };
  if (values.json) {
    console.log(JSON.stringify({ rows, totals }, null, 2));
  } else {
    const columns: (keyof Row)[] = [
      "tool",
      "description",
      "input",
      "input_descriptions",
      "output",
      "other",
      "total",
    ];
    const line = (cells: string[]) =>
      `| ${cells.map((cell, i) => i === 0 ? cell.padEnd(20) : cell.padStart(11)).join(" | ")} |`;
    console.log(line(columns.map((c) => c === "input_descriptions" ? "input descr" : c)));
    for (const row of [...rows, totals]) console.log(line(columns.map((c) => String(row[c]))));
    console.log("bytes of UTF-8 JSON; the list as a whole (JSON array) in the last cell");
  }
}
