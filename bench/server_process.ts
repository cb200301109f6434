// How every benchmark starts the server: as its own process on stdio, the way an MCP client
// does, with tmux_run enabled, each pane invited with its own setup file, and the V8 flags the
// README recommends unless a run names others (`--server-v8-flags=` runs it without any).
import { SERVER_V8_FLAGS } from "../lib/mcp/server.ts";

const MAIN_PATH = new URL("../main.ts", import.meta.url).pathname;

export { SERVER_V8_FLAGS };

/** `deno` arguments for a server bound to `socketName` that invites each [pane, setup file]. */
export function serverArgs(
  socketName: string,
  invitations: [pane: string, setupFile: string][],
  v8Flags: string = SERVER_V8_FLAGS,
): string[] {
  return [
    "run",
    "--allow-all",
    ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
    MAIN_PATH,
    "--socket-name",
    socketName,
    "--enable-tool",
    "tmux_run",
    ...invitations.flatMap(([pane, file]) => ["--enroll-pane", `${pane}=${file}`]),
  ];
}
