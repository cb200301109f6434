// What the tools that type a command at a shell know and decide about a pane's shell line, with
// no tmux call of its own: the record they keep per pane's shell between calls (the prompt seen
// over an empty line, a run still open, the runs issued), the store that owns those records and
// serialises the calls on one pane (one per MCP server, in its context), whether the line is free
// to type on, the typed line and the markers that tell where a run's output starts and how it
// ended.
import { type Snapshot } from "./capture.ts";
import { cursorLine } from "./since.ts";
import { shellQuote } from "../util/shell_quote.ts";

/** One run's id (in the typed line, on the screen) and secret (in its end marker only). */
export type ShellRun = { id: string; secret: string };

/** What is known about a pane's shell line between calls. */
export type LineRecord = {
  panePid: number;
  /** The prompt as drawn over an empty line: the text left of the cursor, once seen. */
  prompt: string | null;
  /**
   * A run whose end marker has not appeared, and the grid line it was typed on
   * (lib/tmux/capture.ts), to tell a start marker above a look's window from one not printed.
   */
  unfinished: { run: ShellRun; typedAt: number } | null;
  /** The runs typed into this shell, the last ISSUED_KEPT, by id: their secrets. */
  issued: Map<string, string>;
};

/** The runs a pane's record keeps, so a later wait for one knows its id and secret. */
export const ISSUED_KEPT = 32;

/** Panes remembered at most; the least recently used one is forgotten first. */
export const MAX_LINE_RECORDS = 1024;

/**
 * The line records of one MCP server, by pane (its tmux server's socket and pane id), and the
 * calls waiting their turn on each pane: a second call on a pane waits for the first to finish.
 */
export class ShellLines {
  #records = new Map<string, LineRecord>();
  #queues = new Map<string, Promise<unknown>>();

  constructor(readonly capacity: number = MAX_LINE_RECORDS) {}

  /** The record for the pane's current shell process; a respawned pane starts afresh. */
  record(key: string, panePid: number): LineRecord {
    let record = this.#records.get(key);
    this.#records.delete(key);
    if (!record || record.panePid !== panePid) {
      record = { panePid, prompt: null, unfinished: null, issued: new Map() };
    }
    this.#records.set(key, record);
    for (const oldest of this.#records.keys()) {
      if (this.#records.size <= this.capacity) break;
      this.#records.delete(oldest);
    }
    return record;
  }

  /** Runs `task` once every earlier task on `key` has settled. */
  async serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const settled = current.catch(() => {});
    this.#queues.set(key, settled);
    try {
      return await current;
    } finally {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    }
  }
}

/** Records `run` as typed into the record's shell, forgetting the oldest past ISSUED_KEPT. */
export function issue(record: LineRecord, run: ShellRun): void {
  record.issued.set(run.id, run.secret);
  for (const oldest of record.issued.keys()) {
    if (record.issued.size <= ISSUED_KEPT) break;
    record.issued.delete(oldest);
  }
}

/**
 * A prompt with every digit alike: a clock in a prompt ticks between two looks (a live one is
 * redrawn every second), and a prompt that only changed its digits is still the known prompt.
 */
export function promptShape(text: string): string {
  return text.trimEnd().replace(/\d/g, "0");
}

/**
 * Whether the line is free to type on: no earlier run of ours still open (its end marker is
 * missing and the prompt has not come back: `unfinished`) and nothing typed at the prompt
 * (`half_typed`). The known prompt is what was left of the cursor over an empty line; the rest
 * of the row may hold a right prompt (zsh's RPROMPT, a theme's segments, a clock), which zsh
 * draws only with at least one blank cell after the line's text. So the line is empty when the
 * known prompt is left of the cursor and the cell at the cursor is blank, and it holds typed text
 * when more than the prompt is left of the cursor or a character sits at the cursor (the text
 * with the cursor moved back to its start). A row with nothing on it at all holds nothing typed
 * either (a slow prompt not drawn yet). With no prompt known yet (the first run in this shell),
 * or a row that does not begin with the known prompt (it changed: a new directory, a theme's
 * state), the line as it stands is taken as the prompt. The record learns what the look shows.
 */
export function lineState(
  record: LineRecord,
  shot: Snapshot,
): "free" | "unfinished" | "half_typed" {
  const row = cursorLine(shot);
  const prompt = record.prompt === null ? null : promptShape(record.prompt);
  const left = promptShape(row.beforeCursor);
  const atPrompt = atKnownPrompt(record, shot);
  if (record.unfinished !== null) {
    const { done } = runMarkers(record.unfinished.run);
    if (!atPrompt && !shot.lines.some((line) => done.test(line.trimEnd()))) return "unfinished";
    record.unfinished = null;
  }
  if (prompt === null) {
    record.prompt = row.beforeCursor;
    return "free";
  }
  if (atPrompt || row.whole.trim() === "") return "free";
  if (prompt !== "" && left.startsWith(prompt)) return "half_typed";
  record.prompt = row.beforeCursor;
  return "free";
}

/** Whether the cursor sits right after the known prompt over an empty line. */
export function atKnownPrompt(record: LineRecord, shot: Snapshot): boolean {
  const row = cursorLine(shot);
  return record.prompt !== null && promptShape(row.beforeCursor) === promptShape(record.prompt) &&
    row.whole.charAt(row.beforeCursor.length).trim() === "";
}

/** What run `id`'s end marker prints before its exit status, as the screen and output show it. */
export function endMarker(id: string): string {
  return `__MCP_DONE_${id}:`;
}

/**
 * The line typed into the shell: the command as one eval word in a subshell between two
 * markers, each written with a quote inside it (`__MCP_S''TART_id`) so that the echo of the line
 * itself never reads as a marker, in a group that holds the run's secret file on descriptor 9:
 * it removes the file first, closes 9 for the command and reads the secret after its status
 * (`__MCP_DONE_id:STATUS:SECRET`). `command` keeps an alias (`rm -i`) or a function out of it.
 * It is as short as that allows: zsh reads a bracketed paste a byte at a time, two system calls
 * per byte (`echo` and no spaces took the line for `true` from 117 to 88 bytes; the secret's
 * file, `rm` and `cat` add about 100 and two short processes).
 */
export function typedLine(
  command: string,
  id: string,
  secretFile: string,
  noHistory: boolean,
): string {
  const file = shellQuote(secretFile);
  return `${noHistory ? " " : ""}{ command rm -f ${file};echo __MCP_S''TART_${id};` +
    `(eval ${shellQuote(command)}) 9<&-;echo __MCP_D''ONE_${id}:$?:$(command cat <&9);} 9<${file}`;
}

/** The start and end markers of `run`: only the end carries its secret. */
export function runMarkers({ id, secret }: ShellRun): { start: RegExp; done: RegExp } {
  return {
    start: new RegExp(`__MCP_START_${id}$`),
    done: new RegExp(`${endMarker(id)}(\\d+):${secret}$`),
  };
}

/** The lines, and where `run`'s last end marker and the start marker before it are. */
export function markers(
  captured: string[],
  run: ShellRun,
): { all: string[]; first: number; last: number } {
  const { start, done } = runMarkers(run);
  const all = captured.map((line) => line.trimEnd());
  const last = all.findLastIndex((line) => done.test(line));
  const first = all.findLastIndex((line, index) => start.test(line) && (last < 0 || index < last));
  return { all, first, last };
}

/**
 * Whether run `id` was typed above `shot`'s window, so its start marker is too: more lines
 * arrived since than a look holds, and what it holds is the run's latest output. History only
 * loses lines at its top, so a line once at the grid line it was typed on is there or above.
 */
export function startAboveWindow(shot: Snapshot, record: LineRecord, id: string): boolean {
  return record.unfinished?.run.id === id && shot.firstLine > record.unfinished.typedAt;
}

/**
 * Whether a run that timed out was hidden by an escape string a program opened and never ended
 * (`ESC ]`, an OSC, without its BEL or `ESC \\`): tmux takes all that follows as the string's
 * text, until a BEL or the next ESC. Two screens say so. Nothing of the run shows, not even its
 * typed line's echo: the string was open before (a prompt without escapes, as dash's, never
 * ends it). Or its start marker shows and the known prompt is back below it with no end marker:
 * the command opened the string, which took the marker, and the prompt's own escapes (zsh's
 * and bash's bracketed paste) ended it.
 */
export function hiddenRun(
  shot: Snapshot,
  record: LineRecord,
  run: ShellRun,
  first: number,
  noOutput: boolean,
): boolean {
  if (noOutput) return !shot.lines.some((line) => line.includes(`TART_${run.id}`));
  return first >= 0 && atKnownPrompt(record, shot) && shot.historySize + shot.cursorY > first;
}
