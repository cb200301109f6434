// A caller's regex cannot stall the server. `^(a|aa)+$` over a line of 44 `a`s and a `b` took
// V8's backtracking RegExp 15-23 s, during which no other request (not even a ping) was
// answered; regexes now run on RE2JS (lib/util/line_patterns.ts), in time linear in the line.
import assert from "node:assert/strict";
import { callTool, type Lab, typeInto, waitFor, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";
import { CATALOG } from "../lib/server/catalog.ts";

const HOSTILE = "^(a|aa)+$";
const HOSTILE_LINE = `${"a".repeat(44)}b`;

function general(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((lab) => withGeneral(lab, {}, (s) => fn(lab, s)));
}

/** Prints the hostile line in the pane (the command typed holds it only in pieces). */
async function printHostileLine(lab: Lab): Promise<void> {
  await typeInto(lab, "repeat 44 printf a; echo b", true);
  await waitFor(
    "the pane to show the hostile line",
    async () =>
      (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).split("\n").includes(HOSTILE_LINE),
  );
}

Deno.test(
  "a ping is answered while a wait tests a catastrophic regex, and the wait times out",
  general(async (lab, s) => {
    const start = await s.call("capture_since", { pane_id: lab.pane });
    await printHostileLine(lab);
    const events: string[] = [];
    let firstLook: () => void = () => {};
    const looked = new Promise<void>((resolve) => firstLook = resolve);
    // The cursor is from before the line, so the wait's first look already tests it.
    const waiting = callTool(
      s.client,
      "wait_for_text",
      {
        pane_id: lab.pane,
        patterns: [HOSTILE],
        regex: true,
        timeout: 3,
        cursor: start.data.cursor,
      },
      { onprogress: () => firstLook() },
      CATALOG.find((t) => t.name === "wait_for_text")!
        .outputSchema,
    ).then((payload) => {
      events.push("wait answered");
      return payload;
    });
    // Progress comes right after a look that found nothing; a stalled look gives none.
    await Promise.race([looked, waiting]);
    assert.equal(events.length, 0, "the wait answered before its first look was reported");
    await s.client.ping();
    events.push("ping answered");
    const result = await waiting;
    assert.deepEqual(events, ["ping answered", "wait answered"]);
    assert.equal(result.data?.outcome, "timeout", JSON.stringify(result));
    assert.ok(result.data.last_lines.includes(HOSTILE_LINE));
  }),
);

Deno.test(
  "search_panes tests a catastrophic regex in linear time and finds what a fair one finds",
  general(async (lab, s) => {
    await printHostileLine(lab);
    const hostile = await s.call("search_panes", { pattern: HOSTILE, regex: true });
    assert.deepEqual(hostile.data?.matches, [], JSON.stringify(hostile));
    const fair = await s.call("search_panes", { pattern: "^(a|aa)+b$", regex: true });
    assert.deepEqual(
      fair.data?.matches.map((m: { text: string }) => m.text),
      [HOSTILE_LINE],
      JSON.stringify(fair),
    );
  }),
);

Deno.test(
  "a regex the linear-time engine cannot run is refused, not matched differently",
  general(async (lab, s) => {
    for (const pattern of ["a(?=b)", "(a)\\1", "(?<x>a)\\k<x>"]) {
      const search = await s.call("search_panes", { pattern, regex: true });
      assert.equal(search.error?.code, "invalid_pattern", JSON.stringify(search));
      assert.match(search.error.message, /lookahead, a backreference/);
      const wait = await s.call("wait_for_text", {
        pane_id: lab.pane,
        patterns: ["fine", pattern],
        regex: true,
        timeout: 0.1,
      });
      assert.equal(wait.error?.code, "invalid_pattern", JSON.stringify(wait));
    }
    const invalid = await s.call("search_panes", { pattern: "(", regex: true });
    assert.match(invalid.error?.message, /not a valid regular expression/);
  }),
);
