// The perl helper on its own, without tmux or zsh: this test plays the shell (the helper's
// stdin) and the server (the channel it connects to), so each refusal, the strict reading of
// the server's headers and the helper's ways of ending are seen as frames and exit codes.
import assert from "node:assert/strict";
import {
  encodeFrame,
  type Frame,
  type HelperMessage,
  parseHelperMessage,
  readFrames,
} from "../lib/run/frames.ts";
import { helperCommand, helperProgram } from "../lib/run/helper_program.ts";
import sha256Source from "../lib/run/sha256.pl" with { type: "text" };
import { randomHex, sha256Hex } from "../lib/util/ids.ts";
import { childrenOf, processExists } from "../lib/host/processes.ts";
import { waitFor } from "../lib/cli/private_lab.ts";
import { openPidsLimit, pidsLimitAvailable } from "./pids_limit.ts";
import { launcherOf } from "./harness.ts";

const TOKEN = randomHex();
const SHELL_ENV = ["PATH=/usr/bin:/bin", "GREETING=a=b c"];

type Helper = {
  child: Deno.ChildProcess;
  /** What the shell writes to the helper: NUL-ended fields. */
  shell: WritableStreamDefaultWriter<Uint8Array>;
  frames: AsyncGenerator<Frame<unknown>>;
  send: (header: object, body?: Uint8Array) => Promise<void>;
  /** Writes bytes on the link as they are, for frames encodeFrame would not make. */
  sendRaw: (bytes: Uint8Array) => Promise<void>;
  /** The helper's next frame, its header checked as the server checks it. */
  next: () => Promise<{ message: HelperMessage; body: Uint8Array }>;
  /** Asks for a run as the shell's ZLE handler does; resolves to its run id once `ready`. */
  request: (script: string, cwd?: string) => Promise<string>;
  dir: string;
};

/**
 * The helper as the server writes it, but as where no system call's number is known (macOS,
 * other machines): no launcher, so it forks each script, and perl's exec after setting %ENV in
 * the forked child.
 */
const PORTABLE_PROGRAM = (() => {
  const table = /my %SYSCALLS_BY_MACHINE = \([^;]*\);/;
  assert.match(helperProgram, table, "the helper's table of system calls, as this test knows it");
  return helperProgram.replace(table, "my %SYSCALLS_BY_MACHINE = ();");
})();

async function withHelper(
  fn: (helper: Helper) => Promise<void>,
  programText = helperProgram,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-helper-test-" });
  const program = `${dir}/helper.pl`;
  await Deno.writeTextFile(program, programText);
  const listener = Deno.listen({ transport: "unix", path: `${dir}/channel` });
  // Started with a descriptor it must not pass on (7, not close-on-exec), as a shell may leave
  // one; the person's perl settings must not reach it either: PERL5OPT would make perl die.
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", 'exec 7</dev/null; exec "$@"', "sh", ...helperCommand(program)],
    env: { PERL5OPT: "-Mtmux_mcp_no_such_module" },
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const shell = child.stdin.getWriter();
  const fields = (...values: string[]) =>
    shell.write(new TextEncoder().encode(values.map((value) => `${value}\0`).join("")));
  await fields("H", `${dir}/channel`, TOKEN);
  const conn = await listener.accept();
  listener.close();
  const frames = readFrames(conn);
  const writer = conn.writable.getWriter();
  const next = async () => {
    const frame = await frames.next();
    assert.equal(frame.done, false, "the helper closed its link");
    const message = parseHelperMessage(frame.value!.header);
    assert.ok(message, "the helper's header is one the server accepts");
    return { message, body: frame.value!.body };
  };
  const helper: Helper = {
    child,
    shell,
    frames,
    dir,
    send: (header, body) => writer.write(encodeFrame(header, body)),
    sendRaw: (bytes) => writer.write(bytes),
    next,
    request: async (script, cwd = dir) => {
      const runId = randomHex();
      const digest = await sha256Hex(new TextEncoder().encode(script));
      await fields(
        "R",
        runId,
        TOKEN,
        digest,
        cwd,
        "0027\n",
        String(SHELL_ENV.length),
        ...SHELL_ENV,
      );
      assert.deepEqual((await next()).message, {
        type: "ready",
        run_id: runId,
        token: TOKEN,
        digest,
      });
      return runId;
    },
  };
  let launcher: number[] = [];
  try {
    const hello = await next();
    assert.deepEqual(hello.message, { type: "hello", token: TOKEN, pid: child.pid });
    // The launcher names itself right after the helper forks it, which the helper's hello need
    // not wait for: a launcher is waited for; its absence is read once.
    const expected = programText === helperProgram ? 1 : 0;
    launcher = expected === 1
      ? await waitFor("the helper's launcher", async () => {
        const found = await launcherOf(child.pid);
        return found.length > 0 ? found : null;
      })
      : await launcherOf(child.pid);
    assert.equal(launcher.length, expected, "the helper's launcher");
    await fn(helper);
  } finally {
    await shell.close().catch(() => {});
    await writer.close().catch(() => {});
    await waitFor("the helper to exit", async () => !await processExists(child.pid));
    for (const pid of launcher) {
      await waitFor("the launcher to go with the helper", async () => !await processExists(pid));
    }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

const LIMITS = { stdout_limit: 1024, stderr_limit: 1024 };
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

for (
  const [how, program, killLauncher] of [
    ["the launcher's clone", helperProgram, false],
    ["the helper's fork and execve, as where its launcher was killed", helperProgram, true],
    ["perl's exec, as where no system call's number is known", PORTABLE_PROGRAM, false],
  ] as const
) {
  Deno.test(`the helper runs a script in the shell's cwd, umask and environment, and nothing else (${how})`, () =>
    withHelper(async (helper) => {
      if (killLauncher) {
        for (const pid of await launcherOf(helper.child.pid)) Deno.kill(pid, "SIGKILL");
      }
      const script = 'printf "%s|%s|%s|" "$PWD" "$(umask)" "$GREETING"; env | sort | tr "\\n" ,; ' +
        "{ ls /dev/fd | tr '\\n' ' '; echo; grep -E '^Sig(Ign|Blk)' /proc/self/status; } >&2";
      const runId = await helper.request(script);
      await helper.send(
        { type: "script", run_id: runId, ...LIMITS },
        new TextEncoder().encode(script),
      );
      assert.equal((await helper.next()).message.type, "started");
      const result = await helper.next();
      assert.equal(result.message.type, "result");
      const header = result.message;
      assert.deepEqual(header.completion, { state: "exited", exit_status: 0, signal: null });
      const stdout = text(result.body.subarray(0, header.stdout_bytes));
      const dir = await Deno.realPath(helper.dir);
      // sh adds PWD (and the dash on Debian OLDPWD is not set): the rest is the shell's.
      assert.equal(stdout, `${dir}|0027|a=b c|GREETING=a=b c,PATH=/usr/bin:/bin,PWD=${dir},`);
      const [descriptors, ignored, blocked] = text(result.body.subarray(header.stdout_bytes))
        .split("\n");
      // 0, 1, 2 and the descriptor `ls` opened to read the list: no link, no other pipe, not the
      // descriptor the helper was started with.
      assert.equal(descriptors.trim().split(" ").length, 4, descriptors);
      // No standard signal (1-31) ignored or blocked, perl's own ignored SIGFPE included.
      const standard = (line: string) => BigInt(`0x${line.split(/\s+/)[1]}`) & 0x7fffffffn;
      assert.equal(standard(ignored), 0n, ignored);
      assert.equal(standard(blocked), 0n, blocked);
    }, program));
}

Deno.test("the helper refuses an unknown run, a wrong digest, a NUL and a cwd it cannot enter", () =>
  withHelper(async (helper) => {
    const refusal = async (runId: string, script: Uint8Array) => {
      await helper.send({ type: "script", run_id: runId, ...LIMITS }, script);
      return (await helper.next()).message;
    };
    const unknown = randomHex();
    assert.deepEqual(await refusal(unknown, new Uint8Array([0x3a])), {
      type: "refused",
      run_id: unknown,
      reason: "unknown_run",
    });
    const wrong = await helper.request("true");
    assert.deepEqual(await refusal(wrong, new TextEncoder().encode("false")), {
      type: "refused",
      run_id: wrong,
      reason: "digest",
    });
    const nul = await helper.request("a\0b");
    assert.deepEqual(await refusal(nul, new TextEncoder().encode("a\0b")), {
      type: "refused",
      run_id: nul,
      reason: "nul",
    });
    const gone = await helper.request("true", `${helper.dir}/no such directory`);
    assert.deepEqual(await refusal(gone, new TextEncoder().encode("true")), {
      type: "refused",
      run_id: gone,
      reason: "directory",
    });
    // Removed after the request was made: the child's chdir is what fails.
    await Deno.mkdir(`${helper.dir}/removed`);
    const removed = await helper.request("true", `${helper.dir}/removed`);
    await Deno.remove(`${helper.dir}/removed`);
    assert.deepEqual(await refusal(removed, new TextEncoder().encode("true")), {
      type: "refused",
      run_id: removed,
      reason: "directory",
    });
    const aborted = await helper.request("true");
    await helper.send({ type: "abort", run_id: aborted });
    assert.deepEqual(await refusal(aborted, new TextEncoder().encode("true")), {
      type: "refused",
      run_id: aborted,
      reason: "unknown_run",
    });
  }));

Deno.test("a server header that is not a flat object of plain strings and integers ends the link", async () => {
  const run = randomHex();
  for (
    const header of [
      `{"type": "cancel","run_id":"${run}"}`,
      `{"type":"cancel","run_id":"${run.slice(0, 31)}\\u0066"}`,
      `{"type":"script","run_id":"${run}","stdout_limit":-1,"stderr_limit":0}`,
      `{"type":"cancel","run_id":"${run}"`,
      `{"type":"cancel","run_id":"not hex"}`,
      `{"type":"other","run_id":"${run}"}`,
      "[]",
    ]
  ) {
    await withHelper(async (helper) => {
      // A well-formed frame first, answered, so the end below is the bad header's doing.
      await helper.send({ type: "prove" }, new TextEncoder().encode("/dev/null"));
      assert.deepEqual((await helper.next()).message, { type: "proved" });
      const bytes = new TextEncoder().encode(header);
      const frame = new Uint8Array(8 + bytes.length);
      new DataView(frame.buffer).setUint32(0, bytes.length);
      frame.set(bytes, 8);
      await helper.sendRaw(frame);
      const timer = Promise.withResolvers<"still open">();
      const timeout = setTimeout(() => timer.resolve("still open"), 5000);
      const end = await Promise.race([helper.frames.next(), timer.promise]);
      clearTimeout(timeout);
      assert.deepEqual(end, { done: true, value: undefined }, `the link after ${header}`);
      assert.equal((await helper.child.status).code, 0, header);
    });
  }
});

Deno.test("the shell's exit lets a run in flight finish and report before the helper goes", () =>
  withHelper(async (helper) => {
    const script = "sleep 0.3; echo done";
    const runId = await helper.request(script);
    await helper.send(
      { type: "script", run_id: runId, ...LIMITS },
      new TextEncoder().encode(script),
    );
    assert.equal(((await helper.next()).message as { type: string }).type, "started");
    await helper.shell.close();
    const result = await helper.next();
    assert.equal(result.message.type, "result");
    assert.equal(text(result.body), "done\n");
    assert.equal((await helper.child.status).code, 0);
  }));

Deno.test("SIGTERM stops the running script's group, says so, and ends the helper", () =>
  withHelper(async (helper) => {
    const script = "sleep 30 & sleep 30";
    const runId = await helper.request(script);
    await helper.send(
      { type: "script", run_id: runId, ...LIMITS },
      new TextEncoder().encode(script),
    );
    const started = (await helper.next()).message as { pid: number };
    helper.child.kill("SIGTERM");
    assert.deepEqual((await helper.next()).message, {
      type: "cancelled",
      run_id: runId,
      completion: { state: "signaled", exit_status: null, signal: 15 },
      stop: {
        remaining: 0,
        escapees: 0,
        escapees_left: 0,
        orphans_traced: ADOPTS,
        halted: 0,
        halt_signal: null,
      },
    });
    assert.equal(await processExists(started.pid), false);
    assert.equal((await helper.child.status).code, 0);
  }));

/** Whether the helper makes `sh` adopt orphans here: Linux on the machines its table knows. */
const ADOPTS = Deno.build.os === "linux" && ["x86_64", "aarch64"].includes(Deno.build.arch);

Deno.test({
  name: "a cancel finds and stops a double-forked escapee, which sh adopted" +
    (ADOPTS ? "" : " (skipped: sh cannot adopt orphans here)"),
  ignore: !ADOPTS,
  fn: () =>
    withHelper(async (helper) => {
      const pidFile = `${helper.dir}/escapee.pid`;
      // The subshell exits at once: the escapee, in its own session, has lost its parent.
      const script = `(setsid sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 60' ` +
        `'${pidFile}' >/dev/null 2>&1 &); sleep 60`;
      const runId = await helper.request(script);
      await helper.send(
        { type: "script", run_id: runId, ...LIMITS },
        new TextEncoder().encode(script),
      );
      try {
        const started = (await helper.next()).message as { pid: number; adopts: boolean };
        assert.equal(started.adopts, true);
        const escapee = Number(
          await waitFor("the escapee's pid", () => Deno.readTextFile(pidFile).catch(() => "")),
        );
        await waitFor("the escapee to be sh's (adopted) child", async () =>
          (await Deno.readTextFile(`/proc/${escapee}/stat`)).split(") ")[1].split(" ")[1] ===
            String(started.pid));
        await helper.send({ type: "cancel", run_id: runId });
        const cancelled = (await helper.next()).message as { stop: unknown };
        assert.deepEqual(cancelled.stop, {
          remaining: 0,
          escapees: 1,
          escapees_left: 0,
          orphans_traced: true,
          halted: 0,
          halt_signal: null,
        });
        assert.equal(await processExists(escapee), false);
      } finally {
        // Whatever failed above, the escapee does not outlive the test.
        const escapee = Number(
          await waitFor("the escapee's pid", () =>
            Deno.readTextFile(pidFile).catch(() =>
              ""
            )),
        );
        if (await processExists(escapee)) Deno.kill(escapee, "SIGKILL");
      }
    }),
});

const PIDS_LIMIT = await pidsLimitAvailable();

Deno.test({
  name: "a helper whose process the system refuses says so, and runs the next script" +
    (PIDS_LIMIT ? "" : " (skipped: no writable pids cgroup, and ulimit -u does not bind root)"),
  ignore: !PIDS_LIMIT,
  fn: () =>
    withHelper(async (helper) => {
      const limit = await openPidsLimit(`tmux-mcp-helper-test-${randomHex(4)}`);
      assert.ok(limit);
      const launcher = await launcherOf(helper.child.pid);
      try {
        await limit.holdHelper(helper.child.pid);
        const runId = await helper.request("true");
        await helper.send(
          { type: "script", run_id: runId, ...LIMITS },
          new TextEncoder().encode("true"),
        );
        assert.deepEqual((await helper.next()).message, {
          type: "refused",
          run_id: runId,
          reason: "resources",
        });
      } finally {
        await limit.close();
      }
      const next = await helper.request("echo fine");
      await helper.send(
        { type: "script", run_id: next, ...LIMITS },
        new TextEncoder().encode("echo fine"),
      );
      assert.equal((await helper.next()).message.type, "started");
      assert.equal(text((await helper.next()).body), "fine\n");
      assert.deepEqual(await launcherOf(helper.child.pid), launcher, "the launcher stays");
    }),
});

Deno.test("a helper killed with SIGKILL leaves no launcher behind", () =>
  withHelper(async (helper) => {
    const [launcher] = await launcherOf(helper.child.pid);
    assert.ok(launcher, "the helper's launcher");
    Deno.kill(helper.child.pid, "SIGKILL");
    await waitFor(
      "the launcher to see its request pipe end",
      async () => !await processExists(launcher),
    );
  }));

Deno.test("a helper whose launcher was killed forks the next script itself and reaps the launcher", () =>
  withHelper(async (helper) => {
    const [launcher] = await launcherOf(helper.child.pid);
    assert.ok(launcher, "the helper's launcher");
    Deno.kill(launcher, "SIGKILL");
    const runId = await helper.request('echo "$PPID"');
    await helper.send(
      { type: "script", run_id: runId, ...LIMITS },
      new TextEncoder().encode('echo "$PPID"'),
    );
    assert.equal((await helper.next()).message.type, "started");
    assert.equal(text((await helper.next()).body), `${helper.child.pid}\n`);
    assert.deepEqual(await childrenOf(helper.child.pid), [], "the helper's children after it");
  }));

Deno.test("the plain-perl SHA-256, for a perl without Digest::SHA, agrees with WebCrypto", async () => {
  const sizes = [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 65536];
  const inputs = sizes.map((size) => crypto.getRandomValues(new Uint8Array(size)));
  const program = `${sha256Source}
binmode STDIN; local $/; my $all = <STDIN>;
my @sizes = (${sizes.join(", ")}); my $at = 0;
for my $size (@sizes) { print sha256_hex_plain(substr $all, $at, $size), "\\n"; $at += $size }`;
  const child = new Deno.Command("/usr/bin/perl", {
    args: ["-e", program],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  for (const input of inputs) await writer.write(input);
  await writer.close();
  const got = text((await child.output()).stdout).trim().split("\n");
  assert.deepEqual(got, await Promise.all(inputs.map(sha256Hex)));
});

/** Debian's perl-base directory, where this perl keeps POSIX; null on other systems. */
async function perlBaseDirectory(): Promise<string | null> {
  const where = await new Deno.Command("/usr/bin/perl", {
    args: ["-MPOSIX", "-e", 'print $INC{"POSIX.pm"}'],
  }).output();
  const directory = text(where.stdout).replace(/\/POSIX\.pm$/, "");
  return directory.endsWith("/perl-base") ? directory : null;
}
const PERL_BASE = await perlBaseDirectory();

Deno.test({
  name: "the helper needs nothing beyond Debian's perl-base" +
    (PERL_BASE ? "" : " (skipped: this perl has no perl-base directory)"),
  ignore: PERL_BASE === null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-helper-test-" });
    try {
      await Deno.writeTextFile(`${dir}/helper.pl`, helperProgram);
      // With only perl-base on @INC, the helper compiles, finds the shell's pipe closed and
      // exits 0; a module outside perl-base would make it die. Digest::SHA is not there, so
      // the plain SHA-256 is the one it would use.
      const onlyBase = `BEGIN { @INC = ("${PERL_BASE}") }`;
      const run = await new Deno.Command("/usr/bin/env", {
        args: ["-i", "/usr/bin/perl", "-e", `${onlyBase} do "${dir}/helper.pl"; die $@ if $@;`],
        stdin: "null",
        stderr: "piped",
      }).output();
      assert.equal(run.code, 0, text(run.stderr));
      const sha = await new Deno.Command("/usr/bin/perl", {
        args: ["-e", `${onlyBase} ${sha256Source}\nprint sha256_hex("abc")`],
      }).output();
      assert.equal(text(sha.stdout), await sha256Hex(new TextEncoder().encode("abc")));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
