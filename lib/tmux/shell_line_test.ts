// The shell line's decisions without tmux: the prompt's shape, when the line is free to type on,
// the typed line and its markers, and the store of line records (its bound, a respawned pane,
// calls on one pane one after another).
import assert from "node:assert/strict";
import type { Snapshot } from "./capture.ts";
import {
  endMarker,
  issue,
  ISSUED_KEPT,
  type LineRecord,
  lineState,
  markers,
  promptShape,
  ShellLines,
  typedLine,
} from "./shell_line.ts";

/** A one-screen look with the cursor at `cursorX` on the last of `lines`. */
function look(lines: string[], cursorX: number, panePid = 100): Snapshot {
  return {
    paneId: "%1",
    panePid,
    dead: false,
    currentCommand: "zsh",
    paneHistorySize: 0,
    historySize: 0,
    firstLine: 0,
    cursorX,
    cursorY: lines.length - 1,
    lines,
    escaped: false,
    alternate: false,
  };
}

function fresh(): LineRecord {
  return { panePid: 100, prompt: null, unfinished: null, issued: new Map() };
}

Deno.test("a prompt's shape ignores its digits and trailing blanks", () => {
  assert.equal(promptShape("12:01 ~ $ "), promptShape("12:02 ~ $"));
  assert.notEqual(promptShape("~ $"), promptShape("/tmp $"));
});

Deno.test("the first look learns the prompt; typed text after it is half_typed", () => {
  const record = fresh();
  assert.equal(lineState(record, look(["~ $ "], 4)), "free");
  assert.equal(record.prompt, "~ $ ");
  assert.equal(lineState(record, look(["~ $ ls -l"], 9)), "half_typed");
  // The cursor moved back to the start of the typed text: a character sits at the cursor.
  assert.equal(lineState(record, look(["~ $ ls -l"], 4)), "half_typed");
  // A right prompt past a blank cell is not typed text.
  assert.equal(lineState(record, look(["~ $                 12:00"], 4)), "free");
  // A prompt that changed (a new directory) is learnt again.
  assert.equal(lineState(record, look(["/tmp % "], 7)), "free");
  assert.equal(record.prompt, "/tmp % ");
});

Deno.test("an unfinished run holds the line until its end marker or the prompt is back", () => {
  const record = fresh();
  lineState(record, look(["~ $ "], 4));
  const run = { id: "00112233aabbccdd", secret: "feedfacecafebeef" };
  record.unfinished = { run, typedAt: 0 };
  assert.equal(lineState(record, look(["~ $ sleep 100", "partial"], 7)), "unfinished");
  const ended = look(["partial", `${endMarker(run.id)}0:${run.secret}`, "~ $ "], 4);
  assert.equal(lineState(record, ended), "free");
  assert.equal(record.unfinished, null);
});

Deno.test("an end marker without the run's secret does not end it", () => {
  const record = fresh();
  lineState(record, look(["~ $ "], 4));
  const run = { id: "00112233aabbccdd", secret: "feedfacecafebeef" };
  record.unfinished = { run, typedAt: 0 };
  const forged = look([`${endMarker(run.id)}0:0000000000000000`, "> "], 2);
  assert.equal(lineState(record, forged), "unfinished");
});

Deno.test("the typed line's echo never reads as a marker; the printed markers do", () => {
  const run = { id: "00112233aabbccdd", secret: "feedfacecafebeef" };
  const line = typedLine("echo 'hi'", run.id, "/tmp/x/run-1", true);
  assert.ok(line.startsWith(" "), "a leading space keeps it out of history");
  const echoed = markers([`~ $ ${line}`], run);
  assert.deepEqual([echoed.first, echoed.last], [-1, -1]);
  const printed = markers(
    [`~ $ ${line}`, `__MCP_START_${run.id}`, "hi", `${endMarker(run.id)}0:${run.secret}`],
    run,
  );
  assert.deepEqual([printed.first, printed.last], [1, 3]);
});

Deno.test("a record keeps the last ISSUED_KEPT runs", () => {
  const record = fresh();
  for (let i = 0; i <= ISSUED_KEPT; i++) issue(record, { id: `run${i}`, secret: `s${i}` });
  assert.equal(record.issued.size, ISSUED_KEPT);
  assert.equal(record.issued.has("run0"), false);
  assert.equal(record.issued.get(`run${ISSUED_KEPT}`), `s${ISSUED_KEPT}`);
});

Deno.test("the store forgets the least recently used pane and a respawned pane's record", () => {
  const lines = new ShellLines(2);
  const first = lines.record("a", 1);
  first.prompt = "$ ";
  lines.record("b", 1);
  assert.equal(lines.record("a", 1), first, "used again, so b is now the oldest");
  lines.record("c", 1);
  assert.equal(lines.record("a", 1), first);
  assert.notEqual(lines.record("b", 1).prompt, "$ ");
  assert.equal(lines.record("a", 2).prompt, null, "another shell process starts afresh");
});

Deno.test("calls on one pane run one after another, even after one fails", async () => {
  const lines = new ShellLines();
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const first = lines.serialised("a", async () => {
    order.push("first begins");
    await held;
    order.push("first ends");
    throw new Error("first failed");
  });
  const second = lines.serialised("a", () => {
    order.push("second");
    return Promise.resolve(2);
  });
  const other = lines.serialised("b", () => {
    order.push("other pane");
    return Promise.resolve(3);
  });
  assert.equal(await other, 3);
  release();
  await assert.rejects(first, /first failed/);
  assert.equal(await second, 2);
  assert.deepEqual(order, ["first begins", "other pane", "first ends", "second"]);
});
