// The sentences a stop ends with, for every shape of report the helper or the server's own stop
// can make: each says only what the stop saw, and says so when something could not be seen (an
// orphaned escapee where `sh` could not adopt it: macOS, or `sh` already gone).
import assert from "node:assert/strict";
import { describeHalt, describeStop } from "./process_group.ts";
import type { StopReport } from "./frames.ts";

const CLEAN: StopReport = {
  remaining: 0,
  escapees: 0,
  escapees_left: 0,
  orphans_traced: true,
  halted: 0,
  halt_signal: null,
};

Deno.test("a clean stop where orphans were traceable says only that the group is gone", () => {
  assert.equal(describeStop(CLEAN), "stopped: no process of the script's group remains");
});

Deno.test("where orphans could not be traced the stop says they were not counted", () => {
  const sentence = describeStop({ ...CLEAN, orphans_traced: false });
  assert.match(sentence, /^stopped: no process of the script's group remains; /);
  assert.match(sentence, /cannot be found here, so any such process was not counted/);
});

Deno.test("escapees are counted as stopped, as remaining, or as unconfirmed", () => {
  assert.equal(
    describeStop({ ...CLEAN, escapees: 2 }),
    "stopped: no process of the script's group remains; 2 process(es) that had left the group " +
      "(setsid or double fork) were stopped too",
  );
  assert.match(
    describeStop({ ...CLEAN, escapees: 2, escapees_left: 1 }),
    /; 1 of 2 process\(es\) that had left the group \(setsid or double fork\) remain after SIGKILL/,
  );
  const unread = describeStop({ ...CLEAN, remaining: null, escapees: 1, escapees_left: null });
  assert.match(unread, /^signalled with SIGTERM then SIGKILL; the process table could not be read/);
  assert.match(unread, /were signalled too, unconfirmed/);
  assert.doesNotMatch(unread, /no process/);
});

Deno.test("no report is an unknown stop", () => {
  assert.equal(describeStop(null), "whether the script's processes were stopped is unknown");
  assert.equal(describeHalt(null), null);
});

Deno.test("a stop by the terminal is named by its signal, or by the stopped count", () => {
  assert.equal(describeHalt(CLEAN), null);
  assert.match(describeHalt({ ...CLEAN, halt_signal: 21 })!, /^waiting on the terminal: .*SIGTTIN/);
  assert.match(describeHalt({ ...CLEAN, halt_signal: 22 })!, /^waiting on the terminal: .*SIGTTOU/);
  assert.equal(
    describeHalt({ ...CLEAN, halt_signal: 19 }),
    "stopped, not running: sh was stopped by signal 19",
  );
  assert.match(
    describeHalt({ ...CLEAN, halted: 2 })!,
    /^stopped, not running: 2 process\(es\) of its group were stopped \(state T;/,
  );
});
