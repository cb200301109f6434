// A rope is its pieces joined, and its pieces are found again only for the field that holds it,
// and only while the field holds that very text.
import assert from "node:assert/strict";
import { ropeField, ropePieces } from "./rope.ts";

Deno.test("a rope's pieces are found for its field while the field holds it", () => {
  const holder = { data: "", other: "x" };
  const pieces = ["ab".repeat(20), "cd".repeat(20)];
  holder.data = ropeField(holder, "data", pieces);
  assert.equal(holder.data, pieces.join(""));
  assert.equal(ropePieces(holder, "data", holder.data), pieces);
  assert.equal(ropePieces(holder, "other", holder.other), undefined, "another field");
  assert.equal(ropePieces({ ...holder }, "data", holder.data), undefined, "a copy of the holder");
  holder.data = "replaced";
  assert.equal(ropePieces(holder, "data", holder.data), undefined, "a field that changed");
});
