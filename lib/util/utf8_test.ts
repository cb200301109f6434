// The one strict decoder: text comes back byte for byte, anything else is null, never U+FFFD.
import assert from "node:assert/strict";
import { decodeUtf8 } from "./utf8.ts";

Deno.test("valid UTF-8 decodes as is, a leading byte-order mark and NUL included", () => {
  const text = "\uFEFFhé 世界\0✓";
  assert.equal(decodeUtf8(new TextEncoder().encode(text)), text);
});

Deno.test("bytes that are not UTF-8 give null rather than replacement characters", () => {
  assert.equal(decodeUtf8(new Uint8Array([0x61, 0xff, 0x62])), null);
  assert.equal(decodeUtf8(new Uint8Array([0xe4, 0xb8])), null);
});
