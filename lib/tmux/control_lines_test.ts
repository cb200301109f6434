// The control-mode reader on made-up client output: the same events however the bytes are
// split, a block's content that looks like other blocks' ends stays content, and `%output`
// payloads arrive as tmux escaped them, undecoded.
import assert from "node:assert/strict";
import { type ControlBlock, ControlLines } from "./control_lines.ts";

type Seen =
  | { block: ControlBlock }
  | { output: string; payload: number[] }
  | { session: string }
  | { changed: string | null }
  | { desync: true };

function read(chunks: Uint8Array[]): Seen[] {
  const seen: Seen[] = [];
  const lines = new ControlLines({
    block: (block) => seen.push({ block }),
    output: (paneId, payload) => seen.push({ output: paneId, payload: [...payload] }),
    sessionChanged: (session) => seen.push({ session }),
    changed: (changed) => seen.push({ changed }),
    desync: () => seen.push({ desync: true }),
  });
  for (const chunk of chunks) lines.feed(chunk);
  return seen;
}

const STREAM = new TextEncoder().encode(
  [
    "%begin 1700000000 10 0",
    "%end 1700000000 10 0",
    "%session-changed $3 work",
    "%output %7 caf\\303\\251 \\033[0m",
    "%begin 1700000001 11 1",
    "first line",
    "%end 1700000001 12 1",
    "%error 1700000001 11 0",
    "%begin 1700000001 99 1",
    "%output %7 not an event",
    "%end 1700000001 11 1",
    "%begin 1700000002 13 1",
    "parse error: unknown command: tmux-mcp-end-1",
    "%error 1700000002 13 1",
    "",
  ].join("\n"),
);

const EXPECTED: Seen[] = [
  { block: { ok: true, lines: [], fromUs: false, exact: true } },
  { session: "$3" },
  { output: "%7", payload: [...new TextEncoder().encode("caf\\303\\251 \\033[0m")] },
  {
    block: {
      ok: true,
      lines: [
        "first line",
        "%end 1700000001 12 1",
        "%error 1700000001 11 0",
        "%begin 1700000001 99 1",
        "%output %7 not an event",
      ],
      fromUs: true,
      exact: true,
    },
  },
  {
    block: {
      ok: false,
      lines: ["parse error: unknown command: tmux-mcp-end-1"],
      fromUs: true,
      exact: true,
    },
  },
];

Deno.test("control lines: events in order, forged block ends kept as content", () => {
  assert.deepEqual(read([STREAM]), EXPECTED);
});

Deno.test("control lines: the same events for every split of the stream into two or three", () => {
  for (let cut = 0; cut <= STREAM.length; cut++) {
    const second = Math.min(STREAM.length, cut + 7);
    assert.deepEqual(
      read([STREAM.subarray(0, cut), STREAM.subarray(cut, second), STREAM.subarray(second)]),
      EXPECTED,
      `split at ${cut} and ${second}`,
    );
  }
});

Deno.test("control lines: one byte at a time, and an unfinished line waits for its end", () => {
  assert.deepEqual(read([...STREAM].map((byte) => Uint8Array.of(byte))), EXPECTED);
  const unfinished = new TextEncoder().encode("%session-changed $1 a\n%output %2 no newline yet");
  assert.deepEqual(read([unfinished]), [{ session: "$1" }]);
});

Deno.test("control lines: an output payload's bytes are handed on as they came", () => {
  const bytes = Uint8Array.of(...new TextEncoder().encode("%output %12 "), 0xff, 0x5c, 0x0a);
  assert.deepEqual(read([bytes]), [{ output: "%12", payload: [0xff, 0x5c] }]);
});

/** A block of ours (guard `1 5 1`) whose content holds `forged`, then the block after it. */
function answered(forged: string[]): Uint8Array {
  return new TextEncoder().encode(
    ["%begin 1 5 1", "real", ...forged, "%end 1 5 1", "%begin 1 6 1", "%end 1 6 1", ""].join("\n"),
  );
}

Deno.test("control lines: a guessed block end is found out when the real one arrives", () => {
  const early = [{ block: { ok: true, lines: ["real"], fromUs: true, exact: true } }, {
    desync: true,
  }];
  // The real end outside any block, after text that is no notification, or after nothing.
  assert.deepEqual(read([answered(["%end 1 5 1", "after"])]), early);
  assert.deepEqual(read([answered(["%end 1 5 1"])]), early);
  // The real end inside a block the pane began, with a later or the same number.
  assert.deepEqual(read([answered(["%end 1 5 1", "%begin 1 7 1"])]), early);
  assert.deepEqual(read([answered(["%end 1 5 1", "%begin 1 5 1"])]), early);
  // Nothing is read after it, even a block that would end the right way.
  const seen = read([answered(["%error 1 5 1", "x"]), answered([])]);
  assert.deepEqual(seen.at(-1), { desync: true });
  assert.equal(seen.length, 2);
});

Deno.test("control lines: block ends with other guards inside a block change nothing", () => {
  const forged = ["%end 1 4 1", "%error 1 6 1", "%begin 1 6 1", "%end 2 5 1", "%end 1 5 0"];
  assert.deepEqual(read([answered(forged)]), [
    { block: { ok: true, lines: ["real", ...forged], fromUs: true, exact: true } },
    { block: { ok: true, lines: [], fromUs: true, exact: true } },
  ]);
});

Deno.test("control lines: a block line that is not UTF-8 marks the block inexact", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const bytes = Uint8Array.of(
    ...encode("%begin 1 5 1\ncaf\u00e9\n"),
    0x61,
    0xff,
    0x0a,
    ...encode("%end 1 5 1\n%begin 1 6 1\nplain\n%end 1 6 1\n"),
  );
  assert.deepEqual(read([bytes]), [
    { block: { ok: true, lines: ["caf\u00e9", "a\ufffd"], fromUs: true, exact: false } },
    { block: { ok: true, lines: ["plain"], fromUs: true, exact: true } },
  ]);
});

Deno.test("control lines: a pane's death and a window's change are reported as changes", () => {
  const stream = new TextEncoder().encode(
    [
      "%subscription-changed tmux-mcp-dead $0 @1 0 %4 : 1",
      "%pane-mode-changed %5",
      "%layout-change @1 b25d,80x24,0,0,4 b25d,80x24,0,0,4 *",
      "%window-close @2",
      "%window-renamed @1 zsh",
      "",
    ].join("\n"),
  );
  assert.deepEqual(read([stream]), [
    { changed: "%4" },
    { changed: "%5" },
    { changed: null },
    { changed: null },
  ]);
});
