// The names and digests the contract hands out: random hex of the asked length from the
// platform CSPRNG, and SHA-256 over exact bytes that anyone can recompute.
import assert from "node:assert/strict";
import { randomHex, sha256Hex } from "./ids.ts";

Deno.test("randomHex gives 16 bytes as 32 lowercase hex digits by default", () => {
  assert.match(randomHex(), /^[a-f0-9]{32}$/);
  assert.match(randomHex(4), /^[a-f0-9]{8}$/);
});

Deno.test("randomHex does not repeat itself", () => {
  const seen = new Set(Array.from({ length: 1000 }, () => randomHex()));
  assert.equal(seen.size, 1000);
});

Deno.test("sha256Hex matches the published SHA-256 test vectors", async () => {
  assert.equal(
    await sha256Hex(new Uint8Array()),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    await sha256Hex(new TextEncoder().encode("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("sha256Hex hashes a view's own bytes, not its whole buffer", async () => {
  const buffer = new TextEncoder().encode("xxabcxx");
  assert.equal(await sha256Hex(buffer.subarray(2, 5)), await sha256Hex(buffer.slice(2, 5)));
});
