// What a capture or paste says when its file cannot be made, written or read: which directory
// by the variable that chose it (never its path), what is wrong, and what to do.
import assert from "node:assert/strict";
import { tempRefusal } from "./targets.ts";
import { TempDirectoryError } from "../host/directory_problems.ts";

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
