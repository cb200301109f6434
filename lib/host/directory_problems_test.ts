// What a filesystem call's error says about the private directory it was made in.
import assert from "node:assert/strict";
import { problemOf } from "./directory_problems.ts";

function osError(code: string): Error {
  return Object.assign(new Error(`${code} /some/private/path`), { code });
}

Deno.test("filesystem errors say what is wrong with the directory", () => {
  assert.equal(problemOf(osError("ENOSPC")), "full");
  assert.equal(problemOf(osError("EDQUOT")), "full");
  assert.equal(problemOf(osError("EROFS")), "read_only");
  assert.equal(problemOf(osError("EACCES")), "not_writable");
  assert.equal(problemOf(osError("ENOENT")), "missing");
  assert.equal(problemOf(osError("EIO")), "unusable");
  assert.equal(problemOf("not an error"), "unusable");
});
