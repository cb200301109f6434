// The command-line entry: the MCP server on stdio by default, plus the commands a person types
// (enroll, leave, demo, smoke, skill). It only parses and dispatches; subcommands are imported
// lazily, so `enroll` and `leave`, typed in a pane, start without loading the server.
import { parseCommandLine, UsageError } from "./lib/server/config.ts";
import { VERSION } from "./lib/util/version.ts";

const USAGE = `tmux-mcp ${VERSION}: an MCP server for tmux (stdio)

usage: tmux-mcp [options]            serve MCP on stdin/stdout
       eval "$(tmux-mcp enroll [--server PID [--directory DIR]] [--quiet])"
                                     lend this pane to a running server (its own
                                     enroll line names both); after each run a
                                     notice under the prompt says what ran, unless
                                     --quiet
       eval "$(tmux-mcp leave)"      take this pane back
       tmux-mcp demo                 show tmux_run end to end in a private tmux server
       tmux-mcp smoke [--script S]   CI smoke check: one JSON line, exit 0 if S exited 0
                                     (both honour --tmux and --run-timeout)
       tmux-mcp skill                print the skill for agents (SKILL.md), for clients
                                     that load skills from a folder
       tmux-mcp journal [--pane %N] [--since 1h] [--json]
                                     what servers did in panes and on tmux (the last 50)
       tmux-mcp journal show RUN_ID  one tmux_run's entry, and its script when kept

options:
  --socket PATH | --socket-name NAME   the tmux server (default: $LIBTMUX_SOCKET, else tmux's default)
  --tmux EXECUTABLE                    the tmux binary (default: $LIBTMUX_TMUX_BIN, else tmux)
  --control-mode auto|always|never     tmux control mode (default: $TMUX_MCP_CONTROL_MODE, else
                                       auto: only on tmux 3.7 and newer, where it is safe)
  --enable-tool NAME                   turn a tool on by name (repeatable); tmux_run needs this
  --enroll-pane %ID=FILE               write a setup file a person sources in pane %ID (up to 8)
  --enrollment-timeout SECONDS         how long setup files stay valid (default 60, max 300)
  --run-timeout SECONDS                tmux_run deadline (default 30, max 3600)
  --run-timeout-with-progress SECONDS  tmux_run deadline for a call with a progress token or
                                       made as a task (default 600, max 3600)
  --max-response-bytes BYTES           response budget (default 4194304)
  --no-journal                         keep no journal of what the server did (docs/journal.md)
  --journal-scripts                    keep each tmux_run script's text in the journal too
  --help, --version
`;

async function main(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`tmux-mcp: ${error.message}`);
    return 2;
  }
  if (parsed.command === "help") {
    console.log(USAGE);
    return 0;
  }
  if (parsed.command === "version") {
    console.log(`tmux-mcp ${VERSION}`);
    return 0;
  }
  if (parsed.command === "enroll") {
    const { runEnroll } = await import("./lib/cli/in_pane.ts");
    return await runEnroll(parsed.server, parsed.directory, parsed.quiet);
  }
  if (parsed.command === "leave") {
    console.log((await import("./lib/cli/in_pane.ts")).leaveLine());
    return 0;
  }
  if (parsed.command === "demo") {
    return await (await import("./lib/cli/demo.ts")).runDemo(parsed.config);
  }
  if (parsed.command === "journal") {
    return await (await import("./lib/cli/journal.ts")).runJournal(parsed);
  }
  if (parsed.command === "skill") {
    return await (await import("./lib/cli/skill.ts")).printSkill();
  }
  if (parsed.command === "smoke") {
    return await (await import("./lib/cli/smoke.ts")).runSmoke(parsed.config, parsed.script);
  }
  if (parsed.command !== "serve") {
    console.error("tmux-mcp: unknown command (see --help)");
    return 2;
  }
  const { serveStdio, StartupError } = await import("./lib/server/server.ts");
  try {
    await serveStdio(parsed.config);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`tmux-mcp: ${error.message}`);
      return 2;
    }
    if (error instanceof StartupError) {
      console.error(`tmux-mcp: ${error.message}`);
      return 1;
    }
    throw error;
  }
  return -1;
}

const code = await main(Deno.args);
if (code >= 0) Deno.exit(code);
