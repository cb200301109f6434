// How output bytes travel in JSON (the contract's §3 step 17): strict UTF-8 as text, anything
// else as padded base64, never a byte dropped or replaced, `bytes` always the raw count.
import assert from "node:assert/strict";
import { encodeOutput } from "./output_encoding.ts";
import { jsonPieces } from "../mcp/tool_result.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("valid UTF-8 travels as text, NUL and a leading BOM included", () => {
  assert.deepEqual(encodeOutput(new TextEncoder().encode("héllo ✓\n")), {
    encoding: "utf-8",
    data: "héllo ✓\n",
    bytes: 11,
    truncated: false,
  });
  assert.deepEqual(encodeOutput(bytes(0x00, 0x41)), {
    encoding: "utf-8",
    data: "\0A",
    bytes: 2,
    truncated: false,
  });
  assert.equal(encodeOutput(bytes(0xef, 0xbb, 0xbf, 0x41)).data, "\ufeffA");
});

Deno.test("no output is empty UTF-8 text", () => {
  assert.deepEqual(encodeOutput(new Uint8Array()), {
    encoding: "utf-8",
    data: "",
    bytes: 0,
    truncated: false,
  });
});

Deno.test("the contract's examples: \\xff is /w== and \\x00\\xff is AP8=", () => {
  assert.deepEqual(encodeOutput(bytes(0xff)), {
    encoding: "base64",
    data: "/w==",
    bytes: 1,
    truncated: false,
  });
  assert.equal(encodeOutput(bytes(0x00, 0xff)).data, "AP8=");
});

Deno.test("a cut multi-byte character or an encoded surrogate is base64, byte for byte", () => {
  for (const input of [bytes(0x41, 0xe2, 0x9c), bytes(0xed, 0xa0, 0x80), bytes(0xc0, 0xaf)]) {
    const out = encodeOutput(input);
    assert.equal(out.encoding, "base64");
    assert.equal(out.bytes, input.length);
    assert.deepEqual(Uint8Array.fromBase64(out.data), input);
  }
});

Deno.test("long binary output is one padded base64 string without newlines", () => {
  const input = new Uint8Array(70_001).map((_, i) => (i * 7 + 0x80) & 0xff);
  const out = encodeOutput(input);
  assert.equal(out.encoding, "base64");
  assert.match(out.data, /^[A-Za-z0-9+/]+=*$/);
  assert.equal(out.data.length % 4, 0);
  assert.deepEqual(Uint8Array.fromBase64(out.data), input);
});

Deno.test("long text decoded in pieces is the whole text, and its JSON is JSON.stringify's", () => {
  const text = "0123456789abcdé😀\n".repeat(20000);
  const output = encodeOutput(new TextEncoder().encode(text));
  assert.equal(output.encoding, "utf-8");
  assert.equal(output.data, text);
  const payload = { ok: true, data: { stdout: output } };
  const pieces = jsonPieces(payload);
  assert.ok(pieces.length > 10, "the text went in as its pieces");
  assert.equal(pieces.join(""), JSON.stringify(payload));
});
