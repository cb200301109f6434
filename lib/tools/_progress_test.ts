// Progress means the same for every lasting call: the seconds since it began, always rising, and
// a message with the step, those seconds and what is known.
import assert from "node:assert/strict";
import { CallProgress, progressMessage } from "./_progress.ts";

function recorder() {
  const reports: { value: number; message: string }[] = [];
  return {
    reports,
    progress: (value: number, message: string) => reports.push({ value, message }),
  };
}

Deno.test("a report's message says the step, the whole seconds elapsed and what is known", () => {
  assert.equal(progressMessage("waiting for text", 3.9, ""), "waiting for text: 3 s elapsed");
  assert.equal(
    progressMessage("the script is running", 12, "3 bytes of stdout and 2 of stderr so far"),
    "the script is running: 12 s elapsed; 3 bytes of stdout and 2 of stderr so far",
  );
});

Deno.test("reports made in the same millisecond still rise", () => {
  const { reports, progress } = recorder();
  const call = new CallProgress(progress);
  for (let i = 0; i < 5; i++) call.say("waiting for text");
  assert.equal(reports.length, 5);
  for (let i = 1; i < reports.length; i++) assert.ok(reports[i].value > reports[i - 1].value);
  assert.ok(reports.every(({ message }) => message === "waiting for text: 0 s elapsed"));
});

Deno.test("a step reports when it starts, with what is known then; none when unasked", async () => {
  const { reports, progress } = recorder();
  const call = new CallProgress(progress);
  assert.equal(await call.during("the script is running", () => Promise.resolve(7), () => "x"), 7);
  assert.deepEqual(reports.map(({ message }) => message), [
    "the script is running: 0 s elapsed; x",
  ]);
  const unasked = new CallProgress(undefined);
  assert.equal(unasked.wanted, false);
  unasked.say("waiting for text");
  unasked.due("waiting for text");
  assert.equal(await unasked.during("step", () => Promise.resolve("done")), "done");
});

Deno.test("a polling loop's report is due only once a second has passed since the last", () => {
  const { reports, progress } = recorder();
  const call = new CallProgress(progress);
  call.due("waiting for the command to finish");
  assert.equal(reports.length, 0, "not due at the start");
});
