// The spotter finds its text in `%output` data however tmux splits it into events, says so to
// whoever waits, and never finds what is not there.
import assert from "node:assert/strict";
import { OutputSpotter } from "./output_spotter.ts";

const TEXT = "__MCP_DONE_0123456789abcdef:";
const bytes = (text: string) => new TextEncoder().encode(text);
// As tmux writes it: a newline is \012, a backslash \134.
const DATA = bytes(`\\015\\012some \\134output\\012${TEXT}0\\015\\012prompt% `);

Deno.test("the text is found whole or split across events at any byte", () => {
  for (let cut = 0; cut <= DATA.length; cut++) {
    const spotter = new OutputSpotter(TEXT);
    spotter.feed(DATA.subarray(0, cut));
    spotter.feed(DATA.subarray(cut));
    assert.equal(spotter.seen, true, `split at ${cut}`);
  }
  const byByte = new OutputSpotter(TEXT);
  for (const byte of DATA) byByte.feed(new Uint8Array([byte]));
  assert.equal(byByte.seen, true, "one byte per event");
});

Deno.test("a text that is not there, or is there only in pieces, is not found", () => {
  const spotter = new OutputSpotter(TEXT);
  spotter.feed(bytes("__MCP_D''ONE_0123456789abcdef:"));
  spotter.feed(bytes("__MCP_DONE_0123456789abcde"));
  spotter.feed(bytes("x:__MCP_DONE_"));
  assert.equal(spotter.seen, false);
});

Deno.test("a wait returns when the text comes, at its time limit, or on abort", async () => {
  const spotter = new OutputSpotter(TEXT);
  const never = new AbortController();
  assert.equal(await spotter.seenWithin(5, never.signal), false, "time limit");
  const aborted = new AbortController();
  const waiting = spotter.seenWithin(60_000, aborted.signal);
  aborted.abort();
  assert.equal(await waiting, false, "abort");
  const coming = spotter.seenWithin(60_000, never.signal);
  spotter.feed(DATA);
  assert.equal(await coming, true);
  assert.equal(await spotter.seenWithin(60_000, never.signal), true, "already seen");
});

Deno.test("release wakes a wait whose output stopped coming", async () => {
  const spotter = new OutputSpotter(TEXT);
  const waiting = spotter.seenWithin(60_000, new AbortController().signal);
  spotter.release();
  assert.equal(await waiting, false);
});

Deno.test("only printable ASCII without a backslash can be spotted", () => {
  for (const text of ["a\\b", "tab\there", "line\n", "é", ""]) {
    assert.throws(() => new OutputSpotter(text), JSON.stringify(text));
  }
});
