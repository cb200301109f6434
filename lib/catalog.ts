// Which tools exist and which this server turns on. Toolsets decide what is advertised and
// callable; they never confine what runs inside tmux. tmux_run belongs to no set: only its
// exact name turns it on. Unknown words fail startup, naming the word (it is the user's own
// configuration, not a secret).
import { UsageError } from "./config.ts";
import type { Config } from "./config.ts";
import type { ToolDefinition, Toolset } from "./server_context.ts";
import { tmuxCapabilitiesTool } from "./tools/tmux_capabilities.ts";
import { tmuxRunTool } from "./tools/tmux_run.ts";
import { INSPECT_TOOLS } from "./tools/inspect.ts";
import { WAITING_TOOLS } from "./tools/waiting.ts";
import { runCommandTool } from "./tools/run_command.ts";
import { TEARDOWN_TOOLS } from "./tools/teardown.ts";
import { MANAGE_TOOLS } from "./tools/manage.ts";
import { EXECUTE_TOOLS } from "./tools/execute.ts";

export const TOOLSETS: Toolset[] = ["inspect", "manage", "execute", "teardown"];
const DEFAULT_TOOLSETS: Toolset[] = ["inspect", "manage", "execute"];

export const CATALOG: ToolDefinition[] = [
  tmuxCapabilitiesTool,
  ...INSPECT_TOOLS,
  ...WAITING_TOOLS,
  ...MANAGE_TOOLS,
  runCommandTool,
  ...EXECUTE_TOOLS,
  ...TEARDOWN_TOOLS,
  tmuxRunTool,
];

export function selectTools(config: Config, catalog = CATALOG): Set<string> {
  const names = new Set(catalog.map((tool) => tool.name));
  const sets = config.toolsets ?? DEFAULT_TOOLSETS;
  for (const set of sets) {
    if (!TOOLSETS.includes(set as Toolset)) throw new UsageError(`unknown toolset: ${set}`);
  }
  const added = [...config.extraTools, ...config.enableTools];
  for (const name of [...added, ...config.excludeTools]) {
    if (!names.has(name)) throw new UsageError(`unknown tool: ${name}`);
  }
  const selected = new Set(
    catalog.filter((tool) => tool.toolset !== null && sets.includes(tool.toolset)).map((t) =>
      t.name
    ),
  );
  for (const name of added) selected.add(name);
  for (const name of config.excludeTools) selected.delete(name);
  return selected;
}
