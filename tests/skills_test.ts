// The skill for agents (skills/tmux-mcp/SKILL.md) says only what the server has: every tool,
// argument, field, error code, flag and command it names in code spans is checked against the
// catalog, the tools' schemas, the server's source and its own --help, and every tool of the
// catalog is named in it. Served through the Skills extension, a client lists it on a 2026-07-28
// connection (and a 2025 one), gets it by URI and reads back the repository's bytes, verified
// against the entry's digest and frontmatter by the SDK's own SkillsClient; `tmux-mcp skill`
// prints the same bytes.
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import { CATALOG, selectTools } from "../lib/server/catalog.ts";
import { parseCommandLine } from "../lib/server/config.ts";
import { PROMPTS } from "../lib/server/prompts.ts";
import { SKILL_MARKDOWN, SKILL_NAME } from "../lib/cli/skill.ts";
import { SkillsClient } from "./test_deps.ts";
import { withStdioServer } from "./stdio_server.ts";
import { runDeno } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const SKILL_FILE = new URL(`../skills/${SKILL_NAME}/SKILL.md`, import.meta.url);
const NO_TMUX = ["--socket-name", `absent-${randomHex(6)}`];
const SKILL_URI = `skill://${SKILL_NAME}/SKILL.md`;

/** Words of the shell the skill puts in code spans: not names of the server. */
const SHELL_WORDS = new Set(["sh", "cd", "export"]);

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every property name and every enum or const string anywhere in a schema. */
function namesIn(schema: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) namesIn(item, into);
  } else if (isSchema(schema)) {
    if (isSchema(schema.properties)) {
      for (const key of Object.keys(schema.properties)) into.add(key);
    }
    if (typeof schema.const === "string") into.add(schema.const);
    if (Array.isArray(schema.enum)) {
      for (const value of schema.enum) if (typeof value === "string") into.add(value);
    }
    for (const value of Object.values(schema)) namesIn(value, into);
  }
  return into;
}

/** The schemas an object may match: itself and its oneOf/anyOf/allOf branches, $refs followed. */
function branches(schema: Schema, root: Schema): Schema[] {
  if (typeof schema.$ref === "string") {
    const path = schema.$ref.replace(/^#\//, "").split("/");
    const target = path.reduce<unknown>((at, key) => isSchema(at) ? at[key] : undefined, root);
    return isSchema(target) ? branches(target, root) : [];
  }
  const more = [schema.oneOf, schema.anyOf, schema.allOf].flatMap((list) =>
    Array.isArray(list) ? list.filter(isSchema).flatMap((branch) => branches(branch, root)) : []
  );
  return [schema, ...more];
}

/** The string literals of lib/'s source (tests left out): where every error code is written. */
async function sourceLiterals(): Promise<Set<string>> {
  const literals = new Set<string>();
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir));
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
        const text = await Deno.readTextFile(new URL(entry.name, dir));
        for (const [, word] of text.matchAll(/"([a-z][a-z0-9_]*)"/g)) literals.add(word);
      }
    }
  };
  await walk(new URL("../lib/", import.meta.url));
  return literals;
}

/** An object literal as the skill writes one: `{key: value, key, …}`, values nested or not. */
type Written = { keys: [string, Written | null][] } | null;

/** Parses `{a: "x", b: {c}, d: [1, 2], e}`: keys with their nested objects; scalars are null. */
function parseObject(text: string): Written {
  let at = 0;
  const space = () => {
    while (/\s/.test(text[at] ?? "")) at++;
  };
  const fail = (what: string): never => {
    throw new Error(`cannot read ${JSON.stringify(text)} at ${at}: ${what}`);
  };
  const value = (): Written => {
    space();
    if (text[at] === "{") return object();
    if (text[at] === "[") {
      at++;
      for (space(); text[at] !== "]"; space()) {
        value();
        space();
        if (text[at] === ",") at++;
      }
      at++;
      return null;
    }
    if (text[at] === '"') {
      at = text.indexOf('"', at + 1) + 1;
      if (at === 0) fail("an unclosed string");
      return null;
    }
    const scalar = /^[^\s,}\]]+/.exec(text.slice(at)) ?? fail("a value");
    at += scalar[0].length;
    return null;
  };
  const object = (): Written => {
    at++;
    const keys: [string, Written | null][] = [];
    for (space(); text[at] !== "}"; space()) {
      const key = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at)) ?? fail("a key");
      at += key[0].length;
      space();
      let nested: Written = null;
      if (text[at] === ":") {
        at++;
        nested = value();
        space();
      }
      keys.push([key[0], nested]);
      if (text[at] === ",") at++;
      else if (text[at] !== "}") fail("a comma or }");
    }
    at++;
    return { keys };
  };
  space();
  const parsed = object();
  space();
  if (at !== text.length) fail("text after the object");
  return parsed;
}

/** The keys of `written` the schema has no property for, as dotted paths. */
function unknownKeys(written: Written, schema: Schema, root: Schema, path = ""): string[] {
  if (!written) return [];
  const options = branches(schema, root);
  return written.keys.flatMap(([key, nested]) => {
    const properties = options.flatMap((option) =>
      isSchema(option.properties) && isSchema(option.properties[key])
        ? [option.properties[key] as Schema]
        : []
    );
    if (properties.length === 0) return [`${path}${key}`];
    const misses = properties.map((property) =>
      unknownKeys(nested, property, root, `${path}${key}.`)
    );
    return misses.reduce((fewest, some) => some.length < fewest.length ? some : fewest);
  });
}

/** The code spans of SKILL.md's body. */
function codeSpans(markdown: string): string[] {
  const body = markdown.slice(markdown.indexOf("\n---\n", 4) + 5);
  return [...body.matchAll(/`([^`\n]+)`/g)].map(([, span]) => span);
}

Deno.test("every tool, argument, field, code, flag and command the skill names exists", async () => {
  const byName = new Map(CATALOG.map((tool) => [tool.name, tool]));
  const known = new Set<string>([...byName.keys(), ...PROMPTS.map((prompt) => prompt.name)]);
  for (const tool of CATALOG) {
    namesIn(tool.inputSchema, known);
    namesIn(tool.outputSchema, known);
  }
  const literals = await sourceLiterals();
  const usage = await runDeno(["run", "--allow-all", "--quiet", MAIN, "--help"]);
  assert.equal(usage.code, 0, usage.stderr);
  const problems: string[] = [];
  let checked = 0;
  for (const span of codeSpans(SKILL_MARKDOWN)) {
    const call = /^([a-z_]+) (\{.*\})$/.exec(span);
    if (call) {
      const input = byName.get(call[1])?.inputSchema as Schema | undefined;
      if (!input) problems.push(`no tool is called ${call[1]}: \`${span}\``);
      for (const key of input ? unknownKeys(parseObject(call[2]), input, input) : []) {
        problems.push(`${call[1]} has no argument ${key}: \`${span}\``);
      }
    } else if (span.startsWith("{")) {
      const keys: string[] = [];
      const collect = (written: Written) =>
        written?.keys.forEach(([key, nested]) => {
          keys.push(key);
          collect(nested);
        });
      collect(parseObject(span));
      for (const key of keys.filter((key) => !known.has(key))) {
        problems.push(`no tool has a field ${key}: \`${span}\``);
      }
    } else if (/tmux-mcp /.test(span)) {
      for (const [, command] of span.matchAll(/tmux-mcp ([a-z]+)/g)) {
        if (!usage.stdout.includes(`tmux-mcp ${command}`)) {
          problems.push(`tmux-mcp --help names no command ${command}: \`${span}\``);
        }
      }
    } else if (span.startsWith("--")) {
      try {
        const parsed = parseCommandLine(span.split(" "), {});
        if (!("config" in parsed)) throw new Error("it is --help or --version");
        selectTools(parsed.config);
      } catch (error) {
        problems.push(`the command line refuses \`${span}\`: ${(error as Error).message}`);
      }
    } else if (/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/.test(span)) {
      for (const word of span.split(".")) {
        if (!known.has(word) && !literals.has(word) && !SHELL_WORDS.has(word)) {
          problems.push(`no tool, argument, field or code is called ${word}: \`${span}\``);
        }
      }
    } else continue;
    checked++;
  }
  assert.deepEqual(problems, []);
  assert.ok(checked > 100, `only ${checked} code spans were checked`);
  const named = new Set(codeSpans(SKILL_MARKDOWN).flatMap((span) => span.split(/[^a-z_]+/)));
  assert.deepEqual(CATALOG.map((tool) => tool.name).filter((name) => !named.has(name)), []);
});

Deno.test("the skill's code-span check reads what it must refuse", () => {
  const input = byNameInput("wait_for_text");
  assert.deepEqual(
    unknownKeys(parseObject('{pane_id: "%3", patern: ["x"], cursor}'), input, input),
    ["patern"],
  );
  const run = byNameInput("tmux_run");
  assert.deepEqual(
    unknownKeys(parseObject('{target: {kind: "pane", id: "%3", gen: "…"}, script}'), run, run),
    ["target.gen"],
  );
  assert.throws(() => parseObject('{pane_id: "%3"'));
});

function byNameInput(name: string): Schema {
  return CATALOG.find((tool) => tool.name === name)!.inputSchema as Schema;
}

for (
  const { era, negotiation } of [
    { era: "2026-07-28", negotiation: { pin: "2026-07-28" } },
    { era: "2025-11-25", negotiation: "legacy" as const },
  ]
) {
  Deno.test(`skills/list names the skill on a ${era} connection; skills/get and its read give SKILL.md`, () =>
    withStdioServer({ args: NO_TMUX, negotiation }, async ({ client }) => {
      assert.equal(client.getNegotiatedProtocolVersion(), era);
      const skills = new SkillsClient(client);
      assert.equal(skills.supported, true);
      const listing = await skills.list();
      assert.deepEqual(listing.skills.map((skill) => skill.uri), [SKILL_URI]);
      const [entry] = listing.skills;
      assert.equal(entry.frontmatter.name, SKILL_NAME);
      assert.match(String(entry.frontmatter.description), /tmux/);
      if (era === "2026-07-28") {
        assert.equal(typeof listing.ttlMs, "number");
        assert.equal(typeof listing.cacheScope, "string");
      }
      const got = await skills.get(SKILL_URI);
      assert.deepEqual(got.skill, entry);
      // read() checks the size, the SHA-256 and the frontmatter against the entry.
      const file = await skills.read(entry);
      assert.equal(file.verified, true);
      assert.equal(file.text, await Deno.readTextFile(SKILL_FILE));
      // The tmux resources are still there beside the skill's.
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((resource) => resource.uri).sort(), [
        SKILL_URI,
        "tmux://sessions",
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(resourceTemplates.some((template) => template.uriTemplate.startsWith("skill://")));
      assert.ok(resourceTemplates.some((template) => template.uriTemplate.startsWith("tmux://")));
      await assert.rejects(skills.get("skill://absent/SKILL.md"), /No skill is served/);
    }));
}

Deno.test("tmux-mcp skill prints SKILL.md byte for byte", async () => {
  const printed = await runDeno(["run", "--allow-all", "--quiet", MAIN, "skill"]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(printed.stdout, await Deno.readTextFile(SKILL_FILE));
  assert.equal(printed.stdout, SKILL_MARKDOWN);
});
