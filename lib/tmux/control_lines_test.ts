// The control-mode reader on made-up client output: the same events however the bytes are
// split, a block's content that looks like other blocks' ends stays content, and `%output`
// payloads arrive as tmux escaped them, undecoded.
import assert from "node:assert/strict";
import { type ControlBlock, ControlLines } from "./control_lines.ts";

type Seen =
  | { block: ControlBlock }
  | { output: string; payload: number[] }
  | { session: string };

function read(chunks: Uint8Array[]): Seen[] {
  const seen: Seen[] = [];
  const lines = new ControlLines({
    block: (block) => seen.push({ block }),
    output: (paneId, payload) => seen.push({ output: paneId, payload: [...payload] }),
    sessionChanged: (session) => seen.push({ session }),
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
  { block: { ok: true, lines: [], fromUs: false } },
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
    },
  },
  {
    block: { ok: false, lines: ["parse error: unknown command: tmux-mcp-end-1"], fromUs: true },
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
