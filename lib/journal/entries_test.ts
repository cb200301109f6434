// A journal line from what a call knows: typed input only as size and SHA-256, a tmux_run as its
// receipt's facts (the text only when kept), the outcome as code and delivery, never a message
// or any output; and where the journal lives for a given environment.
import assert from "node:assert/strict";
import { callEntry, runEntry } from "./entries.ts";
import { journalDirectory } from "./journal.ts";
import { sha256Hex } from "../util/ids.ts";

const server = { pid: 42, generation: "g".repeat(32) };
const started = new Date("2026-01-02T03:04:05.678Z");

Deno.test("typed input is kept as its size and SHA-256, never its text", async () => {
  const keys = "echo s3cret-typed ✓";
  const entry = await callEntry({
    server,
    tool: "send_keys",
    socket: "/tmp/tmux-0/default",
    started,
    durationMs: 12.4,
    args: { pane_id: "%3", keys, enter: true },
    enrollmentGeneration: "e".repeat(32),
    payload: { ok: true, data: { pane_id: "%3", output: "s3cret-output" } },
  });
  const bytes = new TextEncoder().encode(keys);
  assert.deepEqual(entry, {
    v: 1,
    time: "2026-01-02T03:04:05.678Z",
    server_pid: 42,
    server_generation: "g".repeat(32),
    tool: "send_keys",
    socket: "/tmp/tmux-0/default",
    pane_id: "%3",
    enrollment_generation: "e".repeat(32),
    arguments: { enter: true },
    input: { field: "keys", bytes: bytes.length, sha256: await sha256Hex(bytes) },
    result: { pane_id: "%3" },
    outcome: { ok: true },
    duration_ms: 12,
  });
  assert.doesNotMatch(JSON.stringify(entry), /s3cret/);
});

Deno.test("a failure keeps its code and delivery, not its message; a fault is said as one", async () => {
  const failed = await callEntry({
    server,
    tool: "kill_window",
    socket: "/s",
    started,
    durationMs: 1,
    args: { window_id: "@2", socket_name: "other" },
    enrollmentGeneration: null,
    payload: { ok: false, error: { code: "not_found", delivery: "not_sent" } },
  });
  assert.deepEqual(failed.outcome, { ok: false, code: "not_found", delivery: "not_sent" });
  assert.deepEqual(failed.arguments, { window_id: "@2" });
  assert.equal(failed.pane_id, null);
  const fault = await callEntry({ ...failedFacts(), payload: null });
  assert.deepEqual(fault.outcome, {
    ok: false,
    code: "server_fault",
    delivery: "possibly_sent",
  });
});

function failedFacts() {
  return {
    server,
    tool: "set_environment",
    socket: "/s",
    started,
    durationMs: 1,
    args: { name: "TOKEN", value: "s3cret-value" },
    enrollmentGeneration: null,
  };
}

Deno.test("a secret value set in the environment is digested like typed input", async () => {
  const entry = await callEntry({ ...failedFacts(), payload: { ok: true, data: {} } });
  assert.equal(entry.input?.field, "value");
  assert.deepEqual(entry.arguments, { name: "TOKEN" });
  assert.doesNotMatch(JSON.stringify(entry), /s3cret/);
});

Deno.test("a run's entry holds its receipt's facts and what ended it", () => {
  const entry = runEntry({
    server,
    socket: "/s",
    paneId: "%0",
    enrollmentGeneration: "e".repeat(32),
    started,
    durationMs: 40.6,
    run: {
      run_id: "a".repeat(32),
      script_sha256: "b".repeat(64),
      script_bytes: 7,
      cwd: "/home/p",
      completion: { state: "exited", exit_status: 3, signal: null },
    },
    outcome: { ok: true },
  });
  assert.equal(entry.tool, "tmux_run");
  assert.equal(entry.duration_ms, 41);
  assert.equal(entry.run?.run_id, "a".repeat(32));
  assert.equal("script" in entry.run!, false);
});

Deno.test("the journal lives in XDG_STATE_HOME when absolute, else HOME's .local/state", () => {
  assert.equal(journalDirectory({ XDG_STATE_HOME: "/x/", HOME: "/h" }), "/x/tmux-mcp");
  assert.equal(journalDirectory({ XDG_STATE_HOME: "rel", HOME: "/h" }), "/h/.local/state/tmux-mcp");
  assert.equal(journalDirectory({ HOME: "/h" }), "/h/.local/state/tmux-mcp");
  assert.equal(journalDirectory({ HOME: "" }), null);
  assert.equal(journalDirectory({}), null);
});
