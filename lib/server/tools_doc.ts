// docs/tools.md is made from CATALOG, so the reference a person reads cannot drift from what
// tools/list advertises: each tool's description (which says when to use it and which sibling to
// use instead), its side effects from its annotations, and every parameter with its type, bounds
// and meaning from its input schema. `deno task docs` writes the page; tests/tools_doc_test.ts
// fails when the page is not what this module makes.
import { CATALOG, TOOLSETS } from "./catalog.ts";
import type { ToolDefinition } from "../tools/context.ts";

type Schema = Record<string, unknown>;

const TOOLSET_NOTES: Record<string, string> = {
  inspect: "read-only: lists, reads and waits",
  manage: "creates, renames, selects and resizes",
  execute: "types into panes and runs commands",
  teardown: "kills and clears; off by default",
};

/** A cell of text on one line, safe inside markdown. */
function inline(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function typeOf(schema: Schema): string {
  if ("const" in schema) return `always ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum)) {
    return `one of ${schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(", ")}`;
  }
  if (Array.isArray(schema.oneOf)) return "object";
  const type = schema.type;
  if (type === "array") {
    const items = (schema.items ?? {}) as Schema;
    return `array of ${typeOf(items)}`;
  }
  return Array.isArray(type) ? type.join(" or ") : String(type ?? "any");
}

/** The schema's bounds in words: numeric range, lengths, item counts, pattern. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function limitsOf(schema: Schema): string[] {
  const limits: string[] = [];
  if (typeof schema.minimum === "number") limits.push(`≥ ${schema.minimum}`);
  if (typeof schema.exclusiveMinimum === "number") limits.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.maximum === "number") limits.push(`≤ ${schema.maximum}`);
  if (typeof schema.minLength === "number" && schema.minLength > 0) {
    limits.push(`at least ${count(schema.minLength, "character")}`);
  }
  if (typeof schema.maxLength === "number") {
    limits.push(`at most ${count(schema.maxLength, "character")}`);
  }
  if (typeof schema.minItems === "number" && schema.minItems > 0) {
    limits.push(`at least ${count(schema.minItems, "item")}`);
  }
  if (typeof schema.maxItems === "number") limits.push(`at most ${count(schema.maxItems, "item")}`);
  if (typeof schema.pattern === "string") limits.push(`matching \`${schema.pattern}\``);
  if (schema.type === "array" && schema.items) {
    const items = limitsOf(schema.items as Schema);
    if (items.length > 0) limits.push(`each ${items.join(", ")}`);
  }
  return limits;
}

/** One line per parameter, nested objects' fields after their parent as `parent.field`. */
function parameterLines(tool: ToolDefinition, schema: Schema, prefix = ""): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const path = prefix + name;
    const facts = [typeOf(property), required.has(name) ? "required" : "optional"];
    facts.push(...limitsOf(property));
    const meaning = property.description ?? tool.fieldHints?.[path];
    const text = typeof meaning === "string" ? `: ${inline(meaning)}` : "";
    lines.push(
      `${"  ".repeat(prefix.split(".").length - 1)}- \`${path}\` (${facts.join("; ")})${text}`,
    );
    const nested = Array.isArray(property.oneOf) ? property.oneOf[0] as Schema : property;
    if (nested.type === "object" && nested.properties) {
      lines.push(...parameterLines(tool, nested, `${path}.`));
    }
  }
  return lines;
}

function sideEffects(tool: ToolDefinition): string {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
  const kind = readOnlyHint
    ? "reads only; changes nothing in tmux"
    : destructiveHint
    ? "destructive: what it does may not be undone"
    : "changes tmux state or types into a pane";
  const again = idempotentHint && !readOnlyHint
    ? "calling it again with the same arguments changes nothing more"
    : "";
  const world = openWorldHint ? "reaches beyond this machine's tmux" : "";
  return [kind, again, world].filter((part) => part).join("; ");
}

function toolsetOf(tool: ToolDefinition): string {
  return tool.toolset === null
    ? "none: on only by its exact name (`--enable-tool " + tool.name + "`)"
    : `\`${tool.toolset}\``;
}

/** The whole page, as `deno fmt` leaves it. */
export function toolsDoc(catalog: ToolDefinition[] = CATALOG): string {
  const out: string[] = [
    "# Tools",
    "",
    "For agent authors and anyone reading an agent's calls: every tool, what it is for, when to use",
    "it and which sibling to use instead, its side effects, and its parameters with their limits.",
    "Generated from the catalog (`lib/server/catalog.ts`) by `deno task docs`: edit a tool's",
    "description or schema, not this page. How the tools behave together (targets, cursors, waits):",
    "[general_tools.md](general_tools.md); `tmux_run`'s contract: [tmux_run.md](tmux_run.md).",
    "",
    "Toolsets decide which tools a server advertises (`LIBTMUX_TOOLSETS`; the README's",
    "configuration section):",
    "",
  ];
  for (const set of TOOLSETS) {
    const names = catalog.filter((tool) => tool.toolset === set).map((tool) => `\`${tool.name}\``);
    out.push(`- \`${set}\` (${TOOLSET_NOTES[set] ?? set}): ${names.join(", ")}`);
  }
  const exact = catalog.filter((tool) => tool.toolset === null).map((tool) => `\`${tool.name}\``);
  out.push(`- no toolset, on only by exact name: ${exact.join(", ")}`);
  for (const tool of catalog) {
    out.push("", `## \`${tool.name}\``, "", `**${tool.title}.** ${inline(tool.description)}`, "");
    out.push(`- Toolset: ${toolsetOf(tool)}`);
    out.push(`- Side effects: ${sideEffects(tool)}`);
    out.push("", "Parameters:", "");
    const lines = parameterLines(tool, tool.inputSchema as Schema);
    out.push(...(lines.length > 0 ? lines : ["- none"]));
  }
  return out.join("\n") + "\n";
}

/** Formats markdown the way `deno fmt` does, by running the Deno that runs this. */
export async function formatted(markdown: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "fmt",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      "--ext=md",
      "-",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  if (code !== 0) throw new Error(`deno fmt failed: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout);
}

export const TOOLS_DOC = new URL("../../docs/tools.md", import.meta.url);

if (import.meta.main) {
  await Deno.writeTextFile(TOOLS_DOC, await formatted(toolsDoc()));
  console.log(`wrote ${TOOLS_DOC.pathname}`);
}
