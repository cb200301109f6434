// `tmux-mcp journal`: what servers of this user did in panes and on tmux, read from the journal
// they wrote (lib/journal/), with no server running. The last entries as a table (time, pane,
// tool, what, outcome), `--pane %3` and `--since 1h` to narrow them, `--json` for scripts (the
// entries as they were written, one per line), and `journal show RUN_ID`: one tmux_run's entry,
// with its script when the server kept it, to check a receipt an agent shows.
import { journalDirectory } from "../journal/journal.ts";
import {
  filterEntries,
  formatEntry,
  formatTable,
  type JournalFilter,
  parseSince,
  readJournal,
} from "../journal/reading.ts";

/** How many entries the table shows at most (the newest); --json gives every one. */
export const TABLE_ENTRIES = 50;

export type JournalCommand = { rest: string[]; pane?: string; since?: string; json?: boolean };

/** Runs the command; its exit status (2: a usage error, 1: nothing to show). */
export async function runJournal(
  command: JournalCommand,
  env: Record<string, string | undefined> = Deno.env.toObject(),
  now = new Date(),
): Promise<number> {
  const [verb, runId, ...extra] = command.rest;
  if ((verb !== undefined && verb !== "show") || extra.length > 0) {
    console.error("tmux-mcp: journal takes no arguments but `show RUN_ID` (see --help)");
    return 2;
  }
  if (verb === "show" && (runId === undefined || !/^[a-f0-9]{8,32}$/.test(runId))) {
    console.error("tmux-mcp: journal show needs a run id (32 hex digits, or its first 8 or more)");
    return 2;
  }
  if (command.pane !== undefined && !/^%\d+$/.test(command.pane)) {
    console.error("tmux-mcp: --pane takes a pane id such as %3");
    return 2;
  }
  const filter: JournalFilter = { pane: command.pane };
  if (command.since !== undefined) {
    const since = parseSince(command.since, now);
    if (!since) {
      console.error("tmux-mcp: --since takes an age (90s, 30m, 1h, 2d, 1w) or an ISO 8601 time");
      return 2;
    }
    filter.since = since;
  }
  const directory = journalDirectory(env);
  if (directory === null) {
    console.error("tmux-mcp: neither XDG_STATE_HOME nor HOME names a directory with a journal");
    return 1;
  }
  let read;
  try {
    read = await readJournal(directory);
  } catch (error) {
    const code = error instanceof Error && "code" in error ? ` (${error.code})` : "";
    console.error(`tmux-mcp: the journal in ${directory} could not be read${code}`);
    return 1;
  }
  if (read.skipped > 0) {
    console.error(
      `tmux-mcp: ${read.skipped} line(s) of the journal could not be read (a line cut short ` +
        "by a full disk, or not a journal entry); the rest are shown",
    );
  }
  let entries = filterEntries(read.entries, filter);
  if (verb === "show") {
    entries = entries.filter((entry) => entry.run?.run_id.startsWith(runId!));
    if (entries.length === 0) {
      console.error(`tmux-mcp: no tmux_run ${runId} in the journal in ${directory}`);
      return 1;
    }
    const ids = new Set(entries.map((entry) => entry.run!.run_id));
    if (ids.size > 1) {
      console.error(`tmux-mcp: ${runId} starts ${ids.size} run ids; give more of it`);
      return 1;
    }
    console.log(
      command.json
        ? entries.map((entry) => JSON.stringify(entry)).join("\n")
        : entries.map(formatEntry).join("\n\n"),
    );
    return 0;
  }
  if (command.json) {
    for (const entry of entries) console.log(JSON.stringify(entry));
    return 0;
  }
  if (entries.length === 0) {
    console.log(
      `no entries in the journal in ${directory}${
        filter.pane || filter.since ? " that match" : ""
      }`,
    );
    return 0;
  }
  const shown = entries.slice(-TABLE_ENTRIES);
  console.log(formatTable(shown));
  if (shown.length < entries.length) {
    console.log(
      `(the last ${shown.length} of ${entries.length}; narrow with --since or --pane, or read ` +
        "them all with --json)",
    );
  }
  return 0;
}
