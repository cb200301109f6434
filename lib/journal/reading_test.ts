// The journal read back: a line cut short is skipped and counted, filters by pane, age and run,
// --since's forms, and the table a person reads.
import assert from "node:assert/strict";
import {
  filterEntries,
  formatEntry,
  formatTable,
  outcomeOf,
  parseJournal,
  parseSince,
  whatOf,
} from "./reading.ts";
import type { JournalEntry } from "./entries.ts";

const base = {
  v: 1 as const,
  server_pid: 7,
  server_generation: "g".repeat(32),
  socket: "/tmp/tmux-0/default",
  enrollment_generation: null,
};

const run: JournalEntry = {
  ...base,
  time: "2026-01-02T10:00:00.000Z",
  tool: "tmux_run",
  pane_id: "%0",
  enrollment_generation: "e".repeat(32),
  run: {
    run_id: "0123456789abcdef".repeat(2),
    script_sha256: "c".repeat(64),
    script_bytes: 87,
    cwd: "/home/p",
    completion: { state: "exited", exit_status: 3, signal: null },
    script: "exit 3",
  },
  outcome: { ok: true },
  duration_ms: 41,
};

const keys: JournalEntry = {
  ...base,
  time: "2026-01-02T11:30:00.000Z",
  tool: "send_keys",
  pane_id: "%3",
  input: { field: "keys", bytes: 5, sha256: "d".repeat(64) },
  arguments: { enter: true },
  outcome: { ok: false, code: "tmux_not_answering", delivery: "possibly_sent" },
  duration_ms: 5200,
};

Deno.test("a line cut short or not an entry is skipped and counted", () => {
  const text = `${JSON.stringify(run)}\n{"v":1,"time":"2026-01-\n${JSON.stringify(keys)}\n[1]\n`;
  const { entries, skipped } = parseJournal(text);
  assert.deepEqual(entries, [run, keys]);
  assert.equal(skipped, 2);
});

Deno.test("--since takes an age or an ISO time, nothing else", () => {
  const now = new Date("2026-01-02T12:00:00.000Z");
  assert.equal(parseSince("1h", now)?.toISOString(), "2026-01-02T11:00:00.000Z");
  assert.equal(parseSince("90s", now)?.toISOString(), "2026-01-02T11:58:30.000Z");
  assert.equal(parseSince("2d", now)?.toISOString(), "2025-12-31T12:00:00.000Z");
  assert.equal(parseSince("2026-01-02T11:00:00Z", now)?.toISOString(), "2026-01-02T11:00:00.000Z");
  assert.equal(parseSince("yesterday", now), null);
  assert.equal(parseSince("1x", now), null);
  assert.equal(parseSince("", now), null);
});

Deno.test("filters: pane, since, run id", () => {
  assert.deepEqual(filterEntries([run, keys], { pane: "%3" }), [keys]);
  assert.deepEqual(filterEntries([run, keys], { since: new Date("2026-01-02T11:00:00Z") }), [keys]);
  assert.deepEqual(filterEntries([run, keys], { runId: run.run!.run_id }), [run]);
});

Deno.test("what and outcome in a few words", () => {
  assert.equal(whatOf(run), "run 01234567 script cccccccccccc 87 B in /home/p");
  assert.equal(whatOf(keys), "keys 5 B dddddddddddd enter=true");
  assert.equal(outcomeOf(run), "exit 3, 41 ms");
  assert.equal(outcomeOf(keys), "tmux_not_answering (possibly_sent), 5.2 s");
});

Deno.test("the table: a header, one row an entry, columns aligned", () => {
  assert.equal(
    formatTable([run, keys]),
    [
      "TIME (UTC)            PANE  TOOL       WHAT                                              OUTCOME",
      "2026-01-02 10:00:00Z  %0    tmux_run   run 01234567 script cccccccccccc 87 B in /home/p  exit 3, 41 ms",
      "2026-01-02 11:30:00Z  %3    send_keys  keys 5 B dddddddddddd enter=true                  tmux_not_answering (possibly_sent), 5.2 s",
    ].join("\n"),
  );
});

Deno.test("show: the receipt's facts in full, and the script when it was kept", () => {
  const shown = formatEntry(run);
  assert.match(shown, new RegExp(`run_id: +${run.run!.run_id}`));
  assert.match(shown, new RegExp(`sha256: +${"c".repeat(64)}`));
  assert.match(shown, /\nscript:\nexit 3$/);
  const { script: _, ...unkept } = run.run!;
  assert.match(formatEntry({ ...run, run: unkept }), /script: +not kept/);
});
