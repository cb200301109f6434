// The control-mode reader on made-up client output: the same events however the bytes are
// split, a block's content that looks like other blocks' ends stays content, a notification
// tmux wrote inside a block is read as one (and the block marked inexact), and `%output`
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

const encode = (text: string) => new TextEncoder().encode(text);

const STREAM = encode(
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
    "%output %7 a raw\ttab, which tmux escapes",
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
        "%output %7 a raw\ttab, which tmux escapes",
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

/** Reads `stream` split at every place into two or three chunks, expecting the same events. */
function assertEverySplit(stream: Uint8Array, expected: Seen[]): void {
  for (let cut = 0; cut <= stream.length; cut++) {
    const second = Math.min(stream.length, cut + 7);
    assert.deepEqual(
      read([stream.subarray(0, cut), stream.subarray(cut, second), stream.subarray(second)]),
      expected,
      `split at ${cut} and ${second}`,
    );
  }
}

Deno.test("control lines: the same events for every split of the stream into two or three", () => {
  assertEverySplit(STREAM, EXPECTED);
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
  // Notifications after the guessed end do not hide the real one.
  assert.deepEqual(read([answered(["%end 1 5 1", "%sessions-changed", "%window-add @9"])]), early);
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

/**
 * Our block `1 5 1` with notifications tmux wrote between its lines (3.3a to 3.7c write `%pause`
 * and `%continue` inside refresh-client -A's block), then a plain block.
 */
const INTERLEAVED = Uint8Array.of(
  ...encode(
    [
      "%begin 1 5 1",
      "before",
      "%window-add @3",
      "%pause %4",
      "%continue %4",
      "%output %4 hi\\012",
      "%pane-mode-changed %4",
      "%layout-change @1 b25d,80x24,0,0,4 b25d,80x24,0,0,4 ",
      "%sessions-changed",
      "%subscription-changed tmux-mcp-dead $0 @1 0 %6 : 1",
      "%output %4 ",
    ].join("\n"),
  ),
  0xff,
  ...encode(["", "after", "%end 1 5 1", "%begin 1 6 1", "plain", "%end 1 6 1", ""].join("\n")),
);

const INTERLEAVED_EVENTS: Seen[] = [
  { output: "%4", payload: [...encode("hi\\012")] },
  { changed: "%4" },
  { changed: null },
  { changed: "%6" },
  { output: "%4", payload: [0xff] },
  { block: { ok: true, lines: ["before", "after"], fromUs: true, exact: false } },
  { block: { ok: true, lines: ["plain"], fromUs: true, exact: true } },
];

Deno.test("control lines: a notification inside a block is read as one and the block inexact", () => {
  assert.deepEqual(read([INTERLEAVED]), INTERLEAVED_EVENTS);
  assertEverySplit(INTERLEAVED, INTERLEAVED_EVENTS);
});

Deno.test("control lines: a line shaped unlike any notification stays a block's content", () => {
  const nearly = [
    "%window-add 3",
    "%window-add @3 extra",
    "%sessions-changed now",
    "%session-changed 2 other",
    "%output %4 raw\u0001control",
    "%output %4 lone \\ backslash",
    "%output 4 no pane",
    "%pane-mode-changed @4",
    "%layout-change @1 only-one",
    "%subscription-changed tmux-mcp-dead $0 @1 0 %6 no colon",
    "%window-renamed 1 name",
    "%paste-buffer-changed",
    "%no-such-notification x",
  ];
  assert.deepEqual(read([answered(nearly)]), [
    { block: { ok: true, lines: ["real", ...nearly], fromUs: true, exact: true } },
    { block: { ok: true, lines: [], fromUs: true, exact: true } },
  ]);
});

Deno.test("control lines: a session change inside a block counts only in the attach's block", () => {
  // tmux writes it inside the block of the attach, which is not ours; inside an answer to our
  // command it may be a pane's text, and a pane must not say which session the client is on.
  const stream = encode(
    [
      "%begin 1 4 0",
      "%sessions-changed",
      "%session-changed $0 work",
      "%end 1 4 0",
      "%begin 1 5 1",
      "%session-changed $9 forged",
      "%end 1 5 1",
      "",
    ].join("\n"),
  );
  assert.deepEqual(read([stream]), [
    { session: "$0" },
    { block: { ok: true, lines: [], fromUs: false, exact: false } },
    { block: { ok: true, lines: [], fromUs: true, exact: false } },
  ]);
});
