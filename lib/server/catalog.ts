// Which tools exist and which this server turns on. Toolsets decide what is advertised and
// callable; they never confine what runs inside tmux. tmux_run belongs to no set: only its
// exact name turns it on. Unknown words fail startup, naming the word when it looks like a name
// (it is the user's own configuration, and a typo is found faster when shown); anything else,
// which could be a value pasted into the wrong place, is not shown.
import { UsageError } from "./config.ts";
import type { Config } from "./config.ts";
import type { ToolDefinition, Toolset } from "../tools/context.ts";
import { tmuxCapabilitiesTool } from "../tools/tmux_capabilities.ts";
import { tmuxRunTool } from "../tools/tmux_run.ts";
import { LISTING_TOOLS } from "../tools/listing.ts";
import { SCREEN_TOOLS } from "../tools/screen.ts";
import { showOptionsTool } from "../tools/options.ts";
import { WAITING_TOOLS } from "../tools/waiting.ts";
import { runCommandTool, waitForCommandTool } from "../tools/run_command.ts";
import { TEARDOWN_TOOLS } from "../tools/teardown.ts";
import { MANAGE_TOOLS } from "../tools/manage.ts";
import { EXECUTE_TOOLS } from "../tools/execute.ts";

export const TOOLSETS: Toolset[] = ["inspect", "manage", "execute", "teardown"];
const DEFAULT_TOOLSETS: Toolset[] = ["inspect", "manage", "execute"];

export const CATALOG: ToolDefinition[] = [
  tmuxCapabilitiesTool,
  ...LISTING_TOOLS,
  ...SCREEN_TOOLS,
  showOptionsTool,
  ...WAITING_TOOLS,
  waitForCommandTool,
  ...MANAGE_TOOLS,
  runCommandTool,
  ...EXECUTE_TOOLS,
  ...TEARDOWN_TOOLS,
  tmuxRunTool,
];

function isToolset(word: string): word is Toolset {
  return TOOLSETS.some((set) => set === word);
}

/** An unknown set or tool word, named with where it came from; shown only if shaped like a name. */
function unknown(source: string, kind: string, word: string): UsageError {
  return new UsageError(
    /^[a-z][a-z0-9_]{0,39}$/.test(word)
      ? `${source} names no ${kind}: ${word}`
      : `${source} names no ${kind} (the word is not shown: it is not shaped like a name)`,
  );
}

export function selectTools(config: Config, catalog = CATALOG): Set<string> {
  const names = new Set(catalog.map((tool) => tool.name));
  const sets = config.toolsets ?? DEFAULT_TOOLSETS;
  for (const set of sets) {
    if (!isToolset(set)) throw unknown("LIBTMUX_TOOLSETS", "toolset", set);
  }
  const sources: [string, string[]][] = [
    ["LIBTMUX_TOOLS", config.extraTools],
    ["--enable-tool", config.enableTools],
    ["LIBTMUX_EXCLUDE_TOOLS", config.excludeTools],
  ];
  for (const [source, words] of sources) {
    for (const word of words) if (!names.has(word)) throw unknown(source, "tool", word);
  }
  const added = [...config.extraTools, ...config.enableTools];
  const selected = new Set(
    catalog.filter((tool) => tool.toolset !== null && sets.includes(tool.toolset)).map((t) =>
      t.name
    ),
  );
  for (const name of added) selected.add(name);
  for (const name of config.excludeTools) selected.delete(name);
  return selected;
}
