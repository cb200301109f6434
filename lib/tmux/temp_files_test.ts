// What a capture or paste says when its file cannot be made, written or read: which directory
// by the variable that chose it (never its path), what is wrong, and what to do.
import assert from "node:assert/strict";
import { problemOf, TempDirectoryError, TempFiles, tempRefusal } from "./temp_files.ts";

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

Deno.test("the refusal names the directory by role and says what to do, never the path", () => {
  const under = { role: "under TMPDIR", variable: "TMPDIR" } as const;
  const full = tempRefusal(new TempDirectoryError(under, "full"), "capture");
  assert.equal(full.error.code, "temp_dir_unusable");
  assert.equal(full.error.delivery, "not_sent");
  assert.equal(
    full.error.message,
    "the capture needs a file in the server's private temporary directory (under TMPDIR), " +
      "which is full; free space there, or restart the server with TMPDIR naming a directory " +
      "on a filesystem with room",
  );
  const xdg = { role: "under XDG_RUNTIME_DIR", variable: "XDG_RUNTIME_DIR" } as const;
  const readOnly = tempRefusal(new TempDirectoryError(xdg, "read_only"), "paste");
  assert.match(readOnly.error.message, /\(under XDG_RUNTIME_DIR\), which is on a read-only/);
  assert.match(readOnly.error.message, /restart the server with XDG_RUNTIME_DIR naming a writable/);
});

Deno.test("a directory that cannot be made is tried again on the next call", async () => {
  let attempts = 0;
  const files = new TempFiles(() => {
    attempts++;
    return Promise.reject(osError("EROFS"));
  });
  for (let i = 1; i <= 2; i++) {
    const error = await files.lend(() => Promise.resolve()).catch((error) => error);
    assert.ok(error instanceof TempDirectoryError);
    assert.equal(error.problem, "read_only");
    assert.equal(attempts, i);
  }
  await files.close();
  await assert.rejects(files.place(), TempDirectoryError);
  assert.equal(attempts, 2, "nothing is made after close");
});
