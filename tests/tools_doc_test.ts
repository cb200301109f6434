// docs/tools.md is generated from the catalog (lib/server/tools_doc.ts, `deno task docs`): a tool
// whose description, annotations or schema changed without the page being made again fails here,
// so the reference a person reads is always what tools/list advertises.
import assert from "node:assert/strict";
import { formatted, TOOLS_DOC, toolsDoc } from "../lib/server/tools_doc.ts";
import { CATALOG } from "../lib/server/catalog.ts";

Deno.test("docs/tools.md is what `deno task docs` makes from the catalog", async () => {
  const written = await Deno.readTextFile(TOOLS_DOC);
  const made = await formatted(toolsDoc());
  assert.ok(
    written === made,
    "docs/tools.md is stale: run `deno task docs` and commit the page",
  );
});

Deno.test("docs/tools.md has a section for every tool of the catalog, with its parameters", async () => {
  const written = await Deno.readTextFile(TOOLS_DOC);
  for (const tool of CATALOG) {
    assert.match(written, new RegExp(`^## \`${tool.name}\`$`, "m"), tool.name);
    const properties = Object.keys(
      (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {},
    );
    for (const name of properties) {
      assert.ok(written.includes(`- \`${name}\` (`), `${tool.name} ${name}`);
    }
  }
});
