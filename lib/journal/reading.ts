// The journal read back for the person (`tmux-mcp journal`): the lines of journal.1.jsonl then
// journal.jsonl, oldest first, each parsed on its own (a line cut short by a full disk is skipped
// and counted, never fatal), filtered by pane and age, and shown as a table a person reads: time,
// pane, tool, what was done, how it ended. Everything here but `readJournal` is pure.
import { JOURNAL_VERSION, type JournalEntry } from "./entries.ts";
import { JOURNAL_FILE, JOURNAL_ROTATED_FILE } from "./journal.ts";

/** The entries a text holds, and how many of its lines were not entries. */
export function parseJournal(text: string): { entries: JournalEntry[]; skipped: number } {
  const entries: JournalEntry[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry = JSON.parse(line);
      if (
        typeof entry === "object" && entry !== null && entry.v === JOURNAL_VERSION &&
        typeof entry.time === "string" && typeof entry.tool === "string"
      ) {
        entries.push(entry);
        continue;
      }
    } catch {
      // cut short (a full disk) or not ours: counted below
    }
    skipped++;
  }
  return { entries, skipped };
}

/** Both files of `directory`, oldest first; a missing file is no entries. */
export async function readJournal(
  directory: string,
): Promise<{ entries: JournalEntry[]; skipped: number }> {
  const entries: JournalEntry[] = [];
  let skipped = 0;
  for (const name of [JOURNAL_ROTATED_FILE, JOURNAL_FILE]) {
    const text = await Deno.readTextFile(`${directory}/${name}`).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return "";
      throw error;
    });
    const read = parseJournal(text);
    entries.push(...read.entries);
    skipped += read.skipped;
  }
  return { entries, skipped };
}

const UNITS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };

/**
 * `--since`: an age ("90s", "30m", "1h", "2d", "1w") before `now`, or an ISO 8601 time; null when
 * it is neither.
 */
export function parseSince(text: string, now: Date): Date | null {
  const age = /^(\d+)([smhdw])$/.exec(text.trim());
  if (age) return new Date(now.getTime() - Number(age[1]) * UNITS[age[2]]);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return null;
  const time = Date.parse(text.trim());
  return Number.isNaN(time) ? null : new Date(time);
}

export type JournalFilter = { pane?: string; since?: Date; runId?: string };

export function filterEntries(entries: JournalEntry[], filter: JournalFilter): JournalEntry[] {
  return entries.filter((entry) =>
    (filter.pane === undefined || entry.pane_id === filter.pane) &&
    (filter.since === undefined || Date.parse(entry.time) >= filter.since.getTime()) &&
    (filter.runId === undefined || entry.run?.run_id === filter.runId)
  );
}

/** What a call did, in a few words. */
export function whatOf(entry: JournalEntry): string {
  if (entry.run) {
    const { run_id, script_sha256, script_bytes, cwd } = entry.run;
    return `run ${run_id.slice(0, 8)} script ${script_sha256.slice(0, 12)} ${script_bytes} B` +
      (cwd ? ` in ${cwd}` : "");
  }
  const parts: string[] = [];
  if (entry.input) {
    parts.push(`${entry.input.field} ${entry.input.bytes} B ${entry.input.sha256.slice(0, 12)}`);
  }
  for (const [name, value] of Object.entries(entry.arguments ?? {})) {
    parts.push(`${name}=${typeof value === "string" ? JSON.stringify(value) : value}`);
  }
  return parts.join(" ");
}

/** How a call ended, in a few words. */
export function outcomeOf(entry: JournalEntry): string {
  const { outcome } = entry;
  const completion = entry.run?.completion;
  const ended = completion?.state === "exited"
    ? `exit ${completion.exit_status}`
    : completion?.state === "signaled"
    ? `signal ${completion.signal}`
    : null;
  const took = entry.duration_ms < 1000
    ? `${entry.duration_ms} ms`
    : `${(entry.duration_ms / 1000).toFixed(1)} s`;
  if (outcome.ok) {
    const status = entry.result?.exit_status;
    const exit = ended ?? (typeof status === "number" ? `exit ${status}` : "ok");
    return `${exit}, ${took}`;
  }
  return `${outcome.code} (${outcome.delivery})${ended ? ` ${ended}` : ""}, ${took}`;
}

/** A local-independent time: the UTC date and time to the second. */
function shownTime(time: string): string {
  return time.replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/** The entries as a table, one row each, columns padded to their widest cell. */
export function formatTable(entries: JournalEntry[]): string {
  const rows = [
    ["TIME (UTC)", "PANE", "TOOL", "WHAT", "OUTCOME"],
    ...entries.map((entry) => [
      shownTime(entry.time),
      entry.pane_id ?? "-",
      entry.tool,
      whatOf(entry) || "-",
      outcomeOf(entry),
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]))
      .join("  ")
  ).join("\n");
}

/** One entry in full, for `journal show`: every field, then the script when it was kept. */
export function formatEntry(entry: JournalEntry): string {
  const { run } = entry;
  const lines = [
    `time:        ${shownTime(entry.time)}`,
    `tool:        ${entry.tool}`,
    `pane:        ${entry.pane_id ?? "-"}`,
    `tmux socket: ${entry.socket}`,
    `server:      pid ${entry.server_pid}, generation ${entry.server_generation}`,
    `enrollment:  ${entry.enrollment_generation ?? "-"}`,
  ];
  if (run) {
    lines.push(
      `run_id:      ${run.run_id}`,
      `sha256:      ${run.script_sha256}`,
      `bytes:       ${run.script_bytes}`,
      `cwd:         ${run.cwd ?? "(not read)"}`,
    );
  }
  lines.push(`outcome:     ${outcomeOf(entry)}`);
  if (run?.script !== undefined) lines.push("script:", run.script);
  else if (run) lines.push("script:      not kept (start the server with --journal-scripts)");
  return lines.join("\n");
}
