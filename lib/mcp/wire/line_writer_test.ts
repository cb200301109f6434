// Lines reach the sink whole and in order, whatever their size and characters, even when the
// sink takes a little at a time, and a line is written a buffer at a time.
import assert from "node:assert/strict";
import { asJsonString, LineWriter, messageLine } from "./line_writer.ts";
import { jsonPieces, toCallToolResult } from "../tool_result.ts";
import { refusal, success } from "../tool_payload.ts";

/** The line a result message is, as the transport hands it over. */
function line(id: number, result: object): string[] {
  return [`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`];
}

const TEXT = 'a"b\\c\n😀 ünï\u0000'.repeat(20000);

Deno.test("lines reach a sink that takes a little at a time whole, in order, unsplit", async () => {
  const received: Uint8Array[] = [];
  const writer = new LineWriter((bytes) => {
    const taken = bytes.slice(0, 1000);
    received.push(taken);
    return Promise.resolve(taken.length);
  });
  const first = line(1, toCallToolResult(success(TEXT)));
  const second = line(2, {});
  await Promise.all([writer.write(first), writer.write(second)]);
  const all = new TextDecoder("utf-8", { fatal: true }).decode(
    new Uint8Array(received.flatMap((part) => [...part])),
  );
  assert.equal(all, first.join("") + second.join(""));
});

Deno.test("idle waits for every line handed over, even one handed over while it waits", async () => {
  const written: string[] = [];
  const writer = new LineWriter(async (bytes) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    written.push(new TextDecoder().decode(bytes));
    return bytes.length;
  });
  writer.write(["first\n"]);
  const idle = writer.idle();
  setTimeout(() => writer.write(["second\n"]), 0);
  await idle;
  assert.deepEqual(written, ["first\n", "second\n"]);
});

Deno.test("a line is written a buffer at a time, not a piece at a time", async () => {
  const writes: number[] = [];
  const writer = new LineWriter((bytes) => {
    writes.push(bytes.length);
    return Promise.resolve(bytes.length);
  });
  const small = ['{"jsonrpc":', '"2.0"}\n'];
  await writer.write(small);
  assert.deepEqual(writes, [new TextEncoder().encode(small.join("")).length]);
  writes.length = 0;
  const large = line(2, toCallToolResult(success(TEXT)));
  await writer.write(large);
  // A long line grows the buffer to 1 MiB: every write but the last is a full buffer, less the
  // bytes of a character that did not fit.
  assert.ok(writes.length > 1, `${writes}`);
  assert.ok(writes.slice(0, -1).every((length) => length > 1024 * 1024 - 4), `${writes}`);
});

Deno.test("a tool result's line is the message's JSON, its payload serialized once", () => {
  const payload = success({ stdout: TEXT, n: 1 });
  const made = toCallToolResult(payload);
  // As the SDK hands results on: 2026-07-28 keeps the payload, adds resultType and _meta;
  // 2025-11-25 copies the payload (same values, same order).
  const modern = { _meta: { "io.x/serverInfo": { name: "t" } }, resultType: "complete", ...made };
  const legacy = { ...made, structuredContent: { ...payload } };
  for (const result of [made, modern, legacy]) {
    const message = { jsonrpc: "2.0" as const, id: "r-7", result };
    const pieces = messageLine(message);
    assert.ok(pieces.length > 3, "the payload comes in pieces");
    assert.equal(pieces.join(""), `${JSON.stringify(message)}\n`);
  }
  const changed = { ...made, structuredContent: { ...payload, n: 2 } };
  const other = { jsonrpc: "2.0" as const, id: 3, result: changed };
  assert.deepEqual(messageLine(other), [`${JSON.stringify(other)}\n`], "any other result as is");
});

Deno.test("a payload's JSON and its text content come in pieces that never split a pair", () => {
  const values = [
    {},
    { a: 'q"b\\s' },
    { data: TEXT },
    // Every piece boundary falls on an emoji: each is two UTF-16 code units.
    { data: "😀".repeat(70000) },
    { data: `x${"😀".repeat(70000)}`, lone: "\ud800".repeat(40000), gone: undefined },
    { list: ["a".repeat(40000), 1, null, "b".repeat(33000), [`"${"c".repeat(32769)}`]] },
    // Control characters JSON escapes (and DEL, which it does not), deep in long strings.
    { data: `${"d".repeat(40000)}\u0001\u001f\u007f${"e".repeat(40000)}\t` },
  ];
  for (const value of values) {
    const json = jsonPieces(value);
    assert.equal(json.join(""), JSON.stringify(value));
    const text = asJsonString(json);
    assert.equal(text.join(""), JSON.stringify(JSON.stringify(value)));
    for (const piece of [...json, ...text]) {
      const last = piece.charCodeAt(piece.length - 1);
      assert.ok(!(last >= 0xd800 && last <= 0xdbff), "a piece ends with half a pair");
    }
  }
});

Deno.test("a result in its tool's words or a failure's line is written from its pieces", () => {
  const payload = success({ stdout: TEXT });
  const worded = toCallToolResult(payload, ["exited 0\n", TEXT, "\u0001\t\n", TEXT]);
  const failed = toCallToolResult(refusal("not_found", 'pane "%9" \\ is gone\n'));
  for (const result of [worded, failed]) {
    const message = { jsonrpc: "2.0" as const, id: 9, result };
    const pieces = messageLine(message);
    assert.ok(pieces.length > 3, "the result comes in pieces");
    assert.equal(pieces.join(""), `${JSON.stringify(message)}\n`);
  }
  assert.equal(
    (failed.content[0] as { text: string }).text,
    'error not_found (delivery: not_sent): pane "%9" \\ is gone\n',
  );
});
