// What a script sees and what comes back: native completion, separate and exactly encoded
// outputs, the receipt, and the shell's cwd and exported environment without any persistence.
import assert from "node:assert/strict";
import { sha256Hex } from "../lib/util/ids.ts";
import { childrenOf } from "../lib/host/processes.ts";
import {
  ENROLL,
  enrolled,
  launcherOf,
  typeInto,
  waitForPrompt,
  waitUntilRunning,
  withLab,
  withServer,
} from "./harness.ts";

Deno.test(
  "a run returns exit status, separate outputs and a receipt with the script's digest",
  enrolled(async (lab, s) => {
    const script = "echo out; echo err >&2; exit 9";
    const result = await s.run(script);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(result.data.completion, { state: "exited", exit_status: 9, signal: null });
    assert.deepEqual(result.data.stdout, {
      encoding: "utf-8",
      data: "out\n",
      bytes: 4,
      truncated: false,
    });
    assert.equal(result.data.stderr.data, "err\n");
    assert.equal(
      result.data.authorization.script_digest,
      await sha256Hex(new TextEncoder().encode(script)),
    );
    assert.equal(result.data.authorization.pane_id, lab.pane);
    assert.equal(result.data.authorization.server_generation, s.generation);
    const second = await s.run("true");
    assert.notEqual(second.data.authorization.run_id, result.data.authorization.run_id);
    assert.equal(
      second.data.authorization.enrollment_generation,
      result.data.authorization.enrollment_generation,
    );
  }),
);

Deno.test(
  "sh killed by its own signal is reported as signaled, not as exit 143",
  enrolled(async (_lab, s) => {
    const result = await s.run("kill -TERM $$");
    assert.deepEqual(result.data.completion, { state: "signaled", exit_status: null, signal: 15 });
  }),
);

Deno.test(
  "bytes that are not UTF-8 come back as base64",
  enrolled(async (_lab, s) => {
    const result = await s.run("printf '\\000\\377' >&2; printf 'a\\000b'");
    assert.deepEqual(result.data.stderr, {
      encoding: "base64",
      data: "AP8=",
      bytes: 2,
      truncated: false,
    });
    assert.deepEqual(result.data.stdout, {
      encoding: "utf-8",
      data: "a\u0000b",
      bytes: 3,
      truncated: false,
    });
  }),
);

Deno.test(
  "output that looks like protocol frames comes back unchanged",
  enrolled(async (_lab, s) => {
    const text = 'RESULT 0 12\nAUTHORIZED abc\n\u0000\u0000\u0000\u0010{"type":"result"}\n';
    const result = await s.run(
      `printf 'RESULT 0 12\\nAUTHORIZED abc\\n\\000\\000\\000\\020{"type":"result"}\\n'`,
    );
    assert.equal(result.data.stdout.data, text);
  }),
);

Deno.test(
  "the script runs in the shell's cwd, even with spaces, and cd does not persist",
  enrolled(async (lab, s) => {
    const spaced = `${lab.dir}/a dir with spaces`;
    await Deno.mkdir(spaced);
    await typeInto(lab, `cd '${spaced}'`, true);
    await waitForPrompt(lab);
    const first = await s.run("pwd; cd /; pwd");
    assert.equal(first.data.stdout.data, `${spaced}\n/\n`);
    const second = await s.run("pwd");
    assert.equal(second.data.stdout.data, `${spaced}\n`);
  }),
);

Deno.test(
  "exported variables are visible, unexported ones and exports by the script are not",
  enrolled(async (lab, s) => {
    await typeInto(lab, "LOCAL_ONLY=hidden; export LATE_EXPORT='late value'", true);
    await waitForPrompt(lab);
    const result = await s.run(
      'printf "%s|%s|%s" "${LOCAL_ONLY-unset}" "$LATE_EXPORT" "${TMUX_PANE-none}"; export NEW=1',
    );
    assert.equal(result.data.stdout.data, `unset|late value|${lab.pane}`);
    const again = await s.run('printf "%s" "${NEW-unset}"');
    assert.equal(again.data.stdout.data, "unset");
  }),
);

Deno.test(
  "stdin is closed: cat sees EOF at once",
  enrolled(async (_lab, s) => {
    const result = await s.run("cat; echo done");
    assert.equal(result.data.stdout.data, "done\n");
    assert.equal(result.data.completion.exit_status, 0);
  }),
);

Deno.test(
  "progress is reported while the shell is busy and while the script runs",
  enrolled(async (lab, s) => {
    await typeInto(lab, "sleep 1", true);
    await waitUntilRunning(lab, "sleep");
    const messages: string[] = [];
    const result = await s.client.callTool(
      {
        name: "tmux_run",
        arguments: {
          target: { kind: "pane", id: lab.pane, generation: s.generation },
          script: "echo done",
        },
      },
      { onprogress: (p: { message?: string }) => messages.push(p.message ?? "") },
    );
    assert.equal(result.isError, false);
    const waiting = /^waiting for the shell to be idle at its prompt: \d+ s elapsed$/;
    assert.ok(messages.some((message) => waiting.test(message)), messages.join());
    const running = /^the script is running: \d+ s elapsed/;
    assert.ok(messages.some((message) => running.test(message)), messages.join());
  }),
);

Deno.test("each script's sh is the helper's own child, leads its own group, with default signals", () =>
  withLab(async (lab) => {
    await withServer(lab, ENROLL, async (s) => {
      await s.enroll();
      const helperPid = s.server.context.enrollments?.shells.get(lab.pane)?.helperPid;
      assert.ok(helperPid, "the enrolled shell's helper");
      const result = await s.run(
        'echo "$PPID $$ $(ps -o pgid= -p $$)"; grep -E "^Sig(Ign|Blk)" /proc/self/status',
      );
      const [ids, blocked, ignored] = result.data.stdout.data.trim().split("\n");
      const [parent, sh, group] = ids.trim().split(/\s+/).map(Number);
      assert.equal(parent, helperPid, "sh's parent is the helper");
      assert.equal(group, sh, "sh leads its own process group");
      // Whatever the shell left its helper, a script starts with none of the standard signals
      // (1-31) ignored or blocked: a command it runs inherits them so. (sh's own mask is no
      // witness: dash blocks every signal while it waits for a command. Bits above 31 are
      // real-time signals glibc keeps for itself.)
      const standard = (line: string) => BigInt(`0x${line.split(/\s+/)[1]}`) & 0x7fffffffn;
      assert.equal(standard(ignored), 0n, ignored);
      assert.equal(standard(blocked), 0n, blocked);
      // Reaped: what the helper has left is its launcher (lib/run/helper.pl), which cloned sh.
      const left = await childrenOf(helperPid);
      assert.equal(left.length, 1, "the helper's children after the run");
      assert.deepEqual(left, await launcherOf(helperPid), "the helper's children after the run");
    });
  }));
