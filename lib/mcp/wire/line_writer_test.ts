// The line a tool result becomes is the JSON the message is, whatever its size and characters,
// and lines reach the sink whole and in order even when the sink takes a little at a time.
import assert from "node:assert/strict";
import { asJsonString, LineWriter, messageLine } from "./line_writer.ts";
import { success, toCallToolResult } from "../tool_result.ts";

const TEXT = 'a"b\\c\n😀 ünï\u0000'.repeat(20000);

Deno.test("a tool result's line parses to the message, its payload written twice", () => {
  const result = toCallToolResult(success({ stdout: TEXT, n: 1 }));
  const message = { jsonrpc: "2.0" as const, id: "r-7", result };
  const line = messageLine(message).join("");
  assert.ok(line.endsWith("}\n") && line.indexOf("\n") === line.length - 1, "one line");
  assert.deepEqual(JSON.parse(line), JSON.parse(JSON.stringify(message)));
  const other = { jsonrpc: "2.0" as const, id: 3, result: { content: [], isError: false } };
  assert.deepEqual(messageLine(other), [`${JSON.stringify(other)}\n`], "any other result as is");
});

Deno.test("lines reach a sink that takes a little at a time whole, in order, unsplit", async () => {
  const received: Uint8Array[] = [];
  const writer = new LineWriter((bytes) => {
    const taken = bytes.slice(0, 1000);
    received.push(taken);
    return Promise.resolve(taken.length);
  });
  const first = messageLine({ jsonrpc: "2.0", id: 1, result: toCallToolResult(success(TEXT)) });
  const second = messageLine({ jsonrpc: "2.0", id: 2, result: {} });
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
  const small = messageLine({ jsonrpc: "2.0", id: 1, result: toCallToolResult(success("hi")) });
  assert.ok(small.length > 1, "a tool result comes in pieces");
  await writer.write(small);
  assert.deepEqual(writes, [new TextEncoder().encode(small.join("")).length]);
  writes.length = 0;
  const large = messageLine({ jsonrpc: "2.0", id: 2, result: toCallToolResult(success(TEXT)) });
  await writer.write(large);
  // A long line grows the buffer to 1 MiB: every write but the last is a full buffer, less the
  // bytes of a character that did not fit.
  assert.ok(writes.length > 1, `${writes}`);
  assert.ok(writes.slice(0, -1).every((length) => length > 1024 * 1024 - 4), `${writes}`);
});

Deno.test("a payload's text content is JSON.stringify's, in pieces that never split a pair", () => {
  const payloads = [
    "",
    JSON.stringify({ a: 'q"b\\s' }),
    JSON.stringify({ data: TEXT }),
    // Every piece boundary falls on an emoji: each is two UTF-16 code units.
    JSON.stringify({ data: "😀".repeat(70000) }),
    JSON.stringify({ data: `x${"😀".repeat(70000)}` }),
  ];
  for (const payload of payloads) {
    const pieces = asJsonString(payload);
    assert.equal(pieces.join(""), JSON.stringify(payload));
    for (const piece of pieces) {
      const last = piece.charCodeAt(piece.length - 1);
      assert.ok(!(last >= 0xd800 && last <= 0xdbff), "a piece ends with half a pair");
    }
  }
});
