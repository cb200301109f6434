// What an agent reads before its first call: every parameter of every general tool says what
// it is, with its limit and default; every tool has a title; tmux_run, whose schemas are the
// contract's and carry no descriptions, says what its parameters mean in its description.
// Pure checks over the catalog, no tmux.
import assert from "node:assert/strict";
import { CATALOG } from "../lib/server/catalog.ts";
import type { JsonSchema } from "../lib/mcp/schemas.ts";

const GENERAL = CATALOG.filter((tool) => tool.name !== "tmux_run");

type Property = { name: string; schema: JsonSchema; required: boolean };

/** Every property at any depth, with its dotted name and whether its object requires it. */
function properties(schema: JsonSchema, prefix = ""): Property[] {
  const found: Property[] = [];
  const required = (schema.required ?? []) as string[];
  for (
    const [key, value] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)
  ) {
    const name = `${prefix}${key}`;
    found.push({ name, schema: value, required: required.includes(key) });
    found.push(...properties(value, `${name}.`));
  }
  return found;
}

Deno.test("every parameter of every general tool has a description", () => {
  const missing = GENERAL.flatMap((tool) =>
    properties(tool.inputSchema)
      .filter(({ schema }) => typeof schema.description !== "string" || !schema.description)
      .map(({ name }) => `${tool.name}.${name}`)
  );
  assert.deepEqual(missing, []);
});

Deno.test("numeric and boolean parameters state their limits and defaults", () => {
  const vague: string[] = [];
  for (const tool of GENERAL) {
    for (const { name, schema, required } of properties(tool.inputSchema)) {
      const text = String(schema.description);
      const numeric = schema.type === "integer" || schema.type === "number";
      if (numeric && schema.maximum !== undefined && !text.includes(String(schema.maximum))) {
        vague.push(`${tool.name}.${name}: no limit`);
      }
      if ((numeric || schema.type === "boolean") && !required && !/default/.test(text)) {
        vague.push(`${tool.name}.${name}: no default`);
      }
    }
  }
  assert.deepEqual(vague, []);
});

Deno.test("a timeout advertises the ceiling it is clamped to, never a maximum that rejects", () => {
  for (const tool of GENERAL) {
    const timeout = properties(tool.inputSchema).find(({ name }) => name === "timeout");
    if (!timeout) continue;
    assert.equal(timeout.schema.maximum, undefined, tool.name);
    assert.match(String(timeout.schema.description), /clamped to the ceiling, not rejected/);
    assert.match(tool.description, /clamped/, tool.name);
  }
});

Deno.test("every tool has a title", () => {
  for (const tool of CATALOG) {
    assert.ok(tool.title.length > 3, tool.name);
    assert.notEqual(tool.title, tool.name);
  }
});

Deno.test("tmux_run's description says what each of its parameters means", () => {
  const tool = CATALOG.find((t) => t.name === "tmux_run");
  assert.ok(tool);
  for (
    const phrase of [
      "target.generation",
      "tmux_capabilities",
      "not enrollment_generation",
      "65536 UTF-8 bytes",
      "stdout_limit and stderr_limit are bytes",
      "default 65536, max 262144",
      "output over a limit fails the run",
      "run deadline",
      "Background jobs must redirect their output",
    ]
  ) {
    assert.ok(tool.description.includes(phrase), phrase);
  }
});

Deno.test("tmux_capabilities says which generation goes into target.generation", () => {
  const tool = CATALOG.find((t) => t.name === "tmux_capabilities");
  assert.match(String(tool?.description), /top-level generation as target\.generation/);
  assert.match(String(tool?.description), /enrollment_generation is not it/);
});

// The rules the server's instructions give once are also where an agent uses them: some clients
// never give the model the instructions (Copilot CLI sent them in 0 of 11 requests, issue 27).
Deno.test("the failure shape, id forms, retries and output size are said at the point of use", () => {
  const byName = new Map(CATALOG.map((tool) => [tool.name, tool]));
  assert.match(
    String(byName.get("tmux_capabilities")?.description),
    /\{ok: false, error: \{code, message, delivery\}\}: delivery not_sent .* possibly_sent/,
  );
  for (const name of ["send_keys", "paste_text", "run_command"]) {
    assert.match(
      String(byName.get(name)?.description),
      /possibly_sent .*look before retrying/,
      name,
    );
  }
  assert.match(String(byName.get("tmux_run")?.description), /keep output under 10 KB \(tail -c/);
  const forms: Record<string, RegExp> = {
    pane_id: /^%N from list_panes/,
    window_id: /^@N from list_windows/,
    session_id: /^\$N from list_sessions/,
  };
  for (const tool of GENERAL) {
    for (const { name, schema } of properties(tool.inputSchema)) {
      if (forms[name]) {
        assert.match(String(schema.description), forms[name], `${tool.name}.${name}`);
      }
    }
  }
});
