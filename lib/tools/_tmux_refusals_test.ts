// What the agent reads of a tmux failure: the same codes and words the tools always gave, the
// tools that help named here, and a capture's or paste's directory by role (never its path).
import assert from "node:assert/strict";
import { tmuxRefusal } from "./_tmux_refusals.ts";
import { notFound } from "../tmux/targets.ts";
import { TempDirectoryError } from "../host/directory_problems.ts";

Deno.test("a missing object is named by its id or session name, with the tool that lists it", () => {
  const pane = tmuxRefusal(notFound("%3"));
  assert.deepEqual(pane, {
    ok: false,
    error: {
      code: "not_found",
      message: "pane %3 does not exist on that tmux server; get current ids with list_panes",
      delivery: "not_sent",
    },
  });
  assert.match(tmuxRefusal(notFound("@2")).error.message, /^window @2 .* list_windows$/);
  assert.match(
    tmuxRefusal(notFound("=work:")).error.message,
    /^session named "work" .* list_sessions$/,
  );
  assert.match(tmuxRefusal({ kind: "not_found" }).error.message, /^the target does not exist/);
});

Deno.test("a server that did not answer may still act: possibly_sent", () => {
  const said = tmuxRefusal({ kind: "not_answering", server: { kind: "name", name: "work" } });
  assert.equal(said.error.code, "tmux_not_answering");
  assert.equal(said.error.delivery, "possibly_sent");
  assert.match(said.error.message, /^the tmux server on socket "work" did not answer within/);
});

Deno.test("keys cut short say how far they went, on the reason that stopped them", () => {
  const said = tmuxRefusal({
    kind: "partly_typed",
    failure: { kind: "tmux_failed", reason: "" },
    typed: 2,
    commands: 3,
    commandBytes: 16384,
  });
  assert.equal(said.error.code, "tmux_failed");
  assert.equal(said.error.delivery, "possibly_sent");
  assert.match(said.error.message, /^tmux refused the command\. The keys went as 3 tmux commands/);
  assert.match(said.error.message, /the first 2 were typed/);
});

Deno.test("the directory's refusal names it by role and says what to do, never the path", () => {
  const under = { role: "under TMPDIR", variable: "TMPDIR" } as const;
  const full = tmuxRefusal({
    kind: "directory",
    purpose: "paste",
    error: new TempDirectoryError({ ...under, path: "/secret/path" }, "full"),
  });
  assert.equal(full.error.code, "temp_dir_unusable");
  assert.equal(full.error.delivery, "not_sent");
  assert.equal(
    full.error.message,
    "the paste needs a file in the server's private temporary directory (under TMPDIR), " +
      "which is full; free space there, or restart the server with TMPDIR naming a directory " +
      "on a filesystem with room",
  );
  const xdg = { role: "under XDG_RUNTIME_DIR", variable: "XDG_RUNTIME_DIR" } as const;
  const readOnly = tmuxRefusal({
    kind: "directory",
    purpose: "paste",
    error: new TempDirectoryError(xdg, "read_only"),
  });
  assert.match(readOnly.error.message, /\(under XDG_RUNTIME_DIR\), which is on a read-only/);
  assert.match(readOnly.error.message, /restart the server with XDG_RUNTIME_DIR naming a writable/);
});
