// The notice's text, pure: what a person reads under their prompt, and nothing a terminal acts on.
import assert from "node:assert/strict";
import { runNotice } from "./run_notice.ts";

const RUN = "0123456789abcdef0123456789abcdef";
const EXIT_0 = { completion: { state: "exited", exit_status: 0, signal: null } } as const;

Deno.test("a notice names the run, its first line, how it ended and how long it took", () => {
  assert.equal(
    runNotice(RUN, "make test\n", EXIT_0, 2345),
    'tmux-mcp: run 01234567 "make test" exited 0 after 2.3 s',
  );
  assert.equal(
    runNotice(RUN, "cd app\nmake\nmake install", {
      completion: { state: "signaled", exit_status: null, signal: 15 },
    }, 100),
    'tmux-mcp: run 01234567 "cd app" and 2 more lines killed by signal 15 after 0.1 s',
  );
  assert.equal(
    runNotice(RUN, "sleep 60\necho done", { code: "deadline" }, 30000),
    'tmux-mcp: run 01234567 "sleep 60" and 1 more line failed: deadline after 30.0 s',
  );
});

Deno.test("a script whose first line is blank is named by its size", () => {
  assert.equal(
    runNotice(RUN, "\necho é", EXIT_0, 0),
    "tmux-mcp: run 01234567 a script of 8 bytes exited 0 after 0.0 s",
  );
});

Deno.test("control and format characters never reach the terminal, and a long line is cut", () => {
  const notice = runNotice(RUN, "printf '\x1b]0;x\x07' \u202e\t" + "y".repeat(100), EXIT_0, 0);
  assert.doesNotMatch(notice, /[\p{Cc}\p{Cf}]/u);
  assert.match(notice, /"printf '\?\]0;x\?' \?\?y+…" exited 0/);
  assert.equal([...notice.match(/"(.*)"/)![1]].length, 61);
});
