// show_options, read-only: tmux's options at one scope, one name or all, bounded like every
// listing. It never expands a format, so no option's value can run a command.
import { boolean, enumOf, object, string, toolInput } from "../mcp/json_schema.ts";
import { clientFor, sessionTarget, tmuxCall } from "../tmux/targets.ts";
import { refusalOf } from "./_tmux_refusals.ts";
import { refusal } from "../mcp/tool_payload.ts";
import { defineTool, READ_ONLY } from "./_define.ts";
import { PANE_ID, SESSION_ID, SESSION_NAME, SOCKET_NAME, WINDOW_ID } from "./_blocks.ts";
import { listed, listingOutput, rows } from "./_listings.ts";

const SHOW_OPTIONS_INPUT = toolInput(["scope"], {
  scope: enumOf(["server", "session", "window", "pane"], {
    description: "then give session_id or session_name, window_id or pane_id, or global: " +
      "true",
  }),
  global: boolean({
    description: "the scope's global values (default false)",
  }),
  name: string({
    maxLength: 128,
    pattern: "^@?[A-Za-z0-9_-]+(\\[[0-9]+\\])?$",
    description: "one option, e.g. history-limit or @my-option; default: all",
  }),
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  window_id: WINDOW_ID,
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
});

const SHOW_OPTIONS_OUTPUT = listingOutput(
  "options",
  object(["name", "value"], { name: string(), value: string() }),
);

export const showOptionsTool = defineTool({
  name: "show_options",
  title: "Show tmux options",
  toolset: "inspect",
  description:
    "Show the tmux options of the server, a session, window or pane, or the global ones; or " +
    "one by name. For a pane's size or process use get_pane_info.",
  inputSchema: SHOW_OPTIONS_INPUT,
  outputSchema: SHOW_OPTIONS_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const flags: string[] = [];
    if (a.scope === "server") flags.push("-s");
    else if (a.global) {
      flags.push(a.scope === "session" ? "-g" : a.scope === "window" ? "-gw" : "-gp");
    } else {
      // show-options resolves -t as a pane, where only `=name:` (or `$N:`) names a session.
      const session = sessionTarget(a);
      const target = a.scope === "session"
        ? session && `${session}:`
        : a.scope === "window"
        ? a.window_id
        : a.pane_id;
      if (!target) return MISSING_TARGET;
      flags.push(a.scope === "window" ? "-w" : a.scope === "pane" ? "-p" : "", "-t", target);
    }
    const out = await tmuxCall(client, [
      "show-options",
      ...flags.filter((flag) => flag !== ""),
      ...(a.name ? [a.name] : []),
    ]);
    if (!out.ok) return refusalOf(out);
    const options = rows(out.value).map((line) => {
      const space = line.indexOf(" ");
      return space < 0
        ? { name: line, value: "" }
        : { name: line.slice(0, space), value: line.slice(space + 1) };
    });
    return listed("options", options);
  },
});

const MISSING_TARGET = refusal(
  "invalid_input",
  "name the object for this scope: session_id or session_name, window_id, or pane_id",
);
