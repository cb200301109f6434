// The one strict decoder: text comes back byte for byte, anything else is null, never U+FFFD;
// in pieces, the same text cut only between characters, and null exactly when the whole is not.
import assert from "node:assert/strict";
import { decodeUtf8, decodeUtf8Pieces } from "./utf8.ts";

Deno.test("valid UTF-8 decodes as is, a leading byte-order mark and NUL included", () => {
  const text = "\uFEFFhé 世界\0✓";
  assert.equal(decodeUtf8(new TextEncoder().encode(text)), text);
});

Deno.test("bytes that are not UTF-8 give null rather than replacement characters", () => {
  assert.equal(decodeUtf8(new Uint8Array([0x61, 0xff, 0x62])), null);
  assert.equal(decodeUtf8(new Uint8Array([0xe4, 0xb8])), null);
});

Deno.test("text decoded in pieces is the same text, cut only between characters", () => {
  const text = "a😀世é".repeat(50);
  const bytes = new TextEncoder().encode(text);
  for (const size of [4, 5, 6, 7, 64, bytes.length]) {
    const pieces = decodeUtf8Pieces(bytes, size);
    assert.equal(pieces?.join(""), text, `pieces of ${size} bytes`);
    for (const piece of pieces ?? []) {
      assert.ok(new TextEncoder().encode(piece).length <= size, `a piece over ${size} bytes`);
    }
  }
  assert.deepEqual(decodeUtf8Pieces(new Uint8Array(), 4), []);
});

Deno.test("bytes that are not UTF-8 give null in pieces too, wherever the cuts fall", () => {
  const invalid = [
    [0x61, 0xff, 0x62],
    [0x61, 0x62, 0x63, 0xe4, 0xb8],
    [0x61, 0x80, 0x80, 0x80, 0x80, 0x80, 0x62],
    [0xf0, 0x9f, 0x98, 0x80, 0x80, 0x61],
  ];
  for (const values of invalid) {
    for (const size of [4, 5, 8, 64]) {
      assert.equal(decodeUtf8Pieces(new Uint8Array(values), size), null, `${values} by ${size}`);
    }
  }
});
