// The person's journal against real tmux and a real enrolled zsh: a run's line holds the run id
// and SHA-256 the agent received (and `tmux-mcp journal`, a separate process with no server,
// shows them), typed input only as size and digest, outputs never; a journal that is a symlink
// or another user's is refused naming the path and the reason while every call goes on; and a
// real full filesystem (a 16 KiB tmpfs, then remounted read-only) fails no call, is said once on
// stderr and in tmux_capabilities, and is written again once there is room.
import assert from "node:assert/strict";
import {
  callTool,
  type Lab,
  type Payload,
  runDeno,
  splitPane,
  waitFor,
  waitForPrompt,
  withConnectedServer,
  withLab,
} from "./harness.ts";
import { sourceInPane } from "../lib/cli/private_lab.ts";
import { CATALOG } from "../lib/server/catalog.ts";
import type { RunningServer } from "../lib/server/server.ts";
import { sha256Hex } from "../lib/util/ids.ts";
import { parseJournal } from "../lib/journal/reading.ts";
import { Journal } from "../lib/journal/journal.ts";
import type { JournalEntry } from "../lib/journal/entries.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const digest = (text: string) => sha256Hex(new TextEncoder().encode(text));

type Journaled = {
  server: RunningServer;
  call: (name: string, args?: Record<string, unknown>) => Promise<Payload>;
  run: (script: string) => Promise<Payload>;
};

/**
 * A server on the lab's tmux with its state directory at `state` (XDG_STATE_HOME), tmux_run on
 * and the lab's pane lent to it when `enroll`.
 */
async function withJournaledServer(
  lab: Lab,
  state: string,
  options: { flags?: string[]; enroll?: boolean },
  fn: (s: Journaled) => Promise<void>,
): Promise<void> {
  const setupFile = `${lab.dir}/enroll-setup`;
  const flags = [
    "--enable-tool",
    "tmux_run",
    ...(options.enroll ? ["--enroll-pane", `${lab.pane}=${setupFile}`] : []),
    ...(options.flags ?? []),
  ];
  await withConnectedServer(
    lab,
    { flags, env: { XDG_STATE_HOME: state } },
    async ({ server, client }) => {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        callTool(client, name, args, {}, CATALOG.find((tool) => tool.name === name)?.outputSchema);
      if (options.enroll) {
        await sourceInPane(lab, setupFile);
        await waitFor(
          "the pane to be enrolled",
          () => server.context.enrollments?.shells.has(lab.pane),
        );
        await waitForPrompt(lab);
      }
      const run = (script: string) =>
        call("tmux_run", {
          target: { kind: "pane", id: lab.pane, generation: server.context.generation },
          script,
        });
      await fn({ server, call, run });
    },
  );
}

async function journalLines(state: string): Promise<JournalEntry[]> {
  const text = await Deno.readTextFile(`${state}/tmux-mcp/journal.jsonl`);
  const { entries, skipped } = parseJournal(text);
  assert.equal(skipped, 0, text);
  return entries;
}

Deno.test(
  "a run's line holds the receipt the agent got; `tmux-mcp journal` shows it with no server",
  () =>
    withLab(async (lab) => {
      const state = `${lab.dir}/state`;
      // printf builds the output from pieces, so the output's text is not in the script's.
      const script = "printf 'out%s\\n' put-marker-7f3; exit 3";
      const keys = "true typed-words-9c1";
      let result: Payload = null;
      await withJournaledServer(
        lab,
        state,
        { enroll: true, flags: ["--journal-scripts"] },
        async (s) => {
          result = await s.run(script);
          assert.equal(result.ok, true);
          assert.equal(result.data.stdout.data, "output-marker-7f3\n");
          const typed = await s.call("send_keys", { pane_id: lab.pane, keys, enter: true });
          assert.equal(typed.ok, true);
          await waitForPrompt(lab);
          await s.server.context.journal.flush();
          const capabilities = await s.call("tmux_capabilities");
          assert.deepEqual(capabilities.data.journal, {
            state: "on",
            path: `${state}/tmux-mcp/journal.jsonl`,
            scripts_kept: true,
            entries_written: 2,
            entries_lost: 0,
            problem: null,
          });
        },
      );
      const receipt = result!.data.authorization;
      const cwd = await lab.tmuxCmd(
        "display-message",
        "-p",
        "-t",
        lab.pane,
        "#{pane_current_path}",
      );
      const [ran, sent] = await journalLines(state);
      assert.deepEqual(ran.run, {
        run_id: receipt.run_id,
        script_sha256: receipt.script_digest,
        script_bytes: new TextEncoder().encode(script).length,
        cwd: await Deno.realPath(cwd),
        completion: { state: "exited", exit_status: 3, signal: null },
        script,
      });
      assert.equal(receipt.script_digest, await digest(script));
      assert.equal(ran.tool, "tmux_run");
      assert.equal(ran.pane_id, lab.pane);
      assert.equal(ran.enrollment_generation, receipt.enrollment_generation);
      assert.equal(ran.server_generation, receipt.server_generation);
      assert.equal(ran.server_pid, Deno.pid);
      assert.deepEqual(ran.outcome, { ok: true });
      assert.equal(sent.tool, "send_keys");
      assert.equal(sent.enrollment_generation, receipt.enrollment_generation);
      assert.deepEqual(sent.input, {
        field: "keys",
        bytes: keys.length,
        sha256: await digest(keys),
      });
      const file = await Deno.readTextFile(`${state}/tmux-mcp/journal.jsonl`);
      assert.doesNotMatch(file, /output-marker|typed-words/);
      assert.equal((await Deno.stat(`${state}/tmux-mcp`)).mode! & 0o777, 0o700);
      assert.equal((await Deno.stat(`${state}/tmux-mcp/journal.jsonl`)).mode! & 0o777, 0o600);

      const env = { XDG_STATE_HOME: state };
      const table = await runDeno(["run", "--allow-all", MAIN, "journal"], env);
      assert.equal(table.code, 0, table.stderr);
      const [header, runRow, keysRow, ...more] = table.stdout.trimEnd().split("\n");
      assert.deepEqual(more, []);
      assert.match(header, /^TIME \(UTC\) +PANE +TOOL +WHAT +OUTCOME$/);
      assert.match(
        runRow,
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ +%0 +tmux_run +run ${
            receipt.run_id.slice(0, 8)
          } script ${receipt.script_digest.slice(0, 12)} ${script.length} B in /.* +exit 3, `,
        ),
      );
      assert.match(keysRow, /%0 +send_keys +keys 20 B [0-9a-f]{12} enter=true +ok, /);
      const shown = await runDeno(
        ["run", "--allow-all", MAIN, "journal", "show", receipt.run_id],
        env,
      );
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`run_id: +${receipt.run_id}\n`));
      assert.match(shown.stdout, new RegExp(`sha256: +${receipt.script_digest}\n`));
      assert.ok(shown.stdout.endsWith(`script:\n${script}\n`), shown.stdout);
      const json = await runDeno(
        ["run", "--allow-all", MAIN, "journal", "--json", "--since", "1h"],
        env,
      );
      assert.deepEqual(json.stdout.trimEnd().split("\n").map((line) => JSON.parse(line)), [
        ran,
        sent,
      ]);
      const none = await runDeno(["run", "--allow-all", MAIN, "journal", "--pane", "%99"], env);
      assert.match(none.stdout, /^no entries in the journal in .* that match\n$/);
      const bad = await runDeno(["run", "--allow-all", MAIN, "journal", "--since", "soon"], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--since takes an age/);
    }),
);

Deno.test("a journal that is a symlink or another user's is refused by path and reason; calls go on", () =>
  withLab(async (lab) => {
    const cases: { name: string; make: (state: string) => Promise<void>; refused: RegExp }[] = [
      {
        name: "the file a symlink",
        make: async (state) => {
          await Deno.mkdir(`${state}/tmux-mcp`, { recursive: true, mode: 0o700 });
          await Deno.symlink(`${lab.dir}/elsewhere`, `${state}/tmux-mcp/journal.jsonl`);
        },
        refused: /^the journal (\S+)\/tmux-mcp\/journal\.jsonl is refused: it is a symlink/,
      },
      {
        name: "the directory a symlink",
        make: async (state) => {
          await Deno.mkdir(`${lab.dir}/elsewhere-dir`, { mode: 0o700 });
          await Deno.mkdir(state, { recursive: true });
          await Deno.symlink(`${lab.dir}/elsewhere-dir`, `${state}/tmux-mcp`);
        },
        refused: /^the journal (\S+)\/tmux-mcp is refused: it is a symlink/,
      },
      {
        name: "the directory another user's",
        make: async (state) => {
          await Deno.mkdir(`${state}/tmux-mcp`, { recursive: true, mode: 0o700 });
          await Deno.chown(`${state}/tmux-mcp`, 65534, 65534);
        },
        refused:
          /^the journal (\S+)\/tmux-mcp is refused: it belongs to another user \(uid 65534\)/,
      },
    ];
    for (const [index, { name, make, refused }] of cases.entries()) {
      const state = `${lab.dir}/state-${index}`;
      await make(state);
      await withJournaledServer(lab, state, {}, async (s) => {
        const sent = await s.call("send_keys", { pane_id: lab.pane, keys: "x" });
        assert.equal(sent.ok, true, name);
        await s.server.context.journal.flush();
        const { journal } = (await s.call("tmux_capabilities")).data;
        assert.equal(journal.state, "refused", name);
        const match = refused.exec(journal.problem);
        assert.ok(match, `${name}: ${journal.problem}`);
        assert.equal(match[1], state, name);
        assert.equal(journal.entries_written, 0, name);
      });
    }
    await assert.rejects(Deno.lstat(`${lab.dir}/elsewhere`), "a line went through the symlink");
    assert.deepEqual([...Deno.readDirSync(`${lab.dir}/elsewhere-dir`)], []);
  }));

async function mount(...args: string[]): Promise<void> {
  const output = await new Deno.Command("mount", { args, stderr: "piped" }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
}

Deno.test(
  "a full or read-only filesystem fails no call, is said once a server, and is written again with room",
  () =>
    withLab(async (lab) => {
      // A real full disk: a 16 KiB tmpfs as the state directory, filled before the server starts
      // (root may write a directory chmod made read-only, so only a real filesystem refuses it).
      const state = `${lab.dir}/state`;
      const other = await splitPane(lab);
      await Deno.mkdir(state);
      await mount("-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", state);
      const said: string[] = [];
      const stderr = console.error;
      try {
        await Deno.mkdir(`${state}/tmux-mcp`, { mode: 0o700 });
        const fill = await Deno.open(`${state}/fill`, { write: true, create: true });
        await assert.rejects(
          fill.write(new Uint8Array(64 * 1024)).then(() => fill.write(new Uint8Array(4096))),
        );
        fill.close();
        console.error = (...args: unknown[]) => said.push(args.join(" "));
        await withJournaledServer(lab, state, { enroll: true }, async (s) => {
          const ran = await s.run("echo fine");
          assert.equal(ran.ok, true);
          // Typed into another pane, so the lent pane's line stays empty for the next run.
          const sent = await s.call("send_keys", { pane_id: other, keys: "x" });
          assert.equal(sent.ok, true);
          await s.server.context.journal.flush();
          let { journal } = (await s.call("tmux_capabilities")).data;
          assert.equal(journal.state, "failing");
          assert.equal(journal.entries_lost, 2);
          assert.equal(journal.entries_written, 0);
          assert.match(
            journal.problem,
            new RegExp(
              `^the journal ${state}/tmux-mcp/journal\\.jsonl could not be written \\(ENOSPC\\)`,
            ),
          );

          await Deno.remove(`${state}/fill`);
          const after = await s.run("echo room again");
          await s.server.context.journal.flush();
          journal = (await s.call("tmux_capabilities")).data.journal;
          assert.equal(journal.state, "on");
          assert.equal(journal.entries_written, 1);
          const [line] = await journalLines(state);
          assert.equal(line.run?.run_id, after.data.authorization.run_id);
        });
        // Read-only: remounted once no file on it is open for writing (the server above closed).
        await mount("-o", "remount,ro", state);
        await withJournaledServer(lab, state, {}, async (s) => {
          assert.equal((await s.call("send_keys", { pane_id: other, keys: "x" })).ok, true);
          await s.server.context.journal.flush();
          const { journal } = (await s.call("tmux_capabilities")).data;
          assert.equal(journal.state, "failing");
          assert.equal(journal.entries_lost, 1);
          assert.match(journal.problem, /could not be written \(EROFS\)/);
        });
      } finally {
        console.error = stderr;
        await mount("-o", "remount,rw", state).catch(() => {});
        const output = await new Deno.Command("umount", { args: [state] }).output();
        assert.equal(output.code, 0, "the tmpfs could not be unmounted");
      }
      const journalSaid = said.filter((line) => line.includes("journal"));
      assert.equal(journalSaid.length, 2, said.join("\n"));
      assert.match(journalSaid[1], /could not be written \(EROFS\); calls go on/);
      assert.match(
        journalSaid[0],
        /^tmux-mcp: the journal .* could not be written \(ENOSPC\); calls go on/,
      );
    }),
);

Deno.test("lines are written in the order queued, and the file rotates before it passes its size", async () => {
  const directory = await Deno.makeTempDir({ prefix: "tmux-mcp-journal-" });
  try {
    const said: string[] = [];
    const journal = new Journal({
      directory: `${directory}/tmux-mcp`,
      keepScripts: false,
      report: (message) => said.push(message),
      rotateBytes: 1000,
    });
    await journal.open();
    const entry = (n: number): JournalEntry => ({
      v: 1,
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      server_pid: 1,
      server_generation: "g".repeat(32),
      tool: "send_keys",
      socket: "/s",
      pane_id: `%${n}`,
      enrollment_generation: null,
      input: { field: "keys", bytes: 1, sha256: "a".repeat(64) },
      outcome: { ok: true },
      duration_ms: n,
    });
    // The first entry is still being made when the second is ready: it is written first anyway.
    let release = () => {};
    const late = new Promise<void>((resolve) => release = resolve).then(() => entry(1));
    journal.record(late);
    journal.record(entry(2));
    release();
    for (let n = 3; n <= 10; n++) journal.record(entry(n));
    await journal.close();
    const files = [`${directory}/tmux-mcp/journal.1.jsonl`, `${directory}/tmux-mcp/journal.jsonl`];
    const sizes = await Promise.all(files.map(async (file) => (await Deno.stat(file)).size));
    assert.ok(sizes.every((size) => size <= 1000), `${sizes}`);
    const kept = (await Promise.all(files.map((file) => Deno.readTextFile(file))))
      .flatMap((text) => parseJournal(text).entries.map((line) => line.duration_ms));
    // Each line is about 300 bytes: three fit, the fourth moves them to journal.1.jsonl.
    assert.deepEqual(kept, [7, 8, 9, 10]);
    assert.equal((await Deno.stat(files[1])).mode! & 0o777, 0o600);
    assert.deepEqual(journal.status().entries_written, 10);
    assert.deepEqual(said, []);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("a line cut short by a full disk is skipped by the reader, and the next starts on its own line", async () => {
  // A real short write: a 16 KiB tmpfs whose journal fills most of one page and whose other pages
  // are taken, so a line's first bytes fit in that page and the rest finds no room.
  const directory = await Deno.makeTempDir({ prefix: "tmux-mcp-journal-" });
  await mount("-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", directory);
  try {
    const entry = (n: number, pad = ""): JournalEntry => ({
      v: 1,
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      server_pid: 1,
      server_generation: "g".repeat(32),
      tool: "set_pane_title",
      socket: "/s",
      pane_id: "%1",
      enrollment_generation: null,
      ...(pad && { arguments: { title: pad } }),
      outcome: { ok: true },
      duration_ms: n,
    });
    const first = `${JSON.stringify(entry(1, "x".repeat(3600)))}\n`;
    await Deno.mkdir(`${directory}/tmux-mcp`, { mode: 0o700 });
    await Deno.writeTextFile(`${directory}/tmux-mcp/journal.jsonl`, first, { mode: 0o600 });
    const fill = await Deno.open(`${directory}/fill`, { write: true, create: true });
    await assert.rejects(async () => {
      while (true) await fill.write(new Uint8Array(4096));
    });
    fill.close();
    const said: string[] = [];
    const journal = new Journal({
      directory: `${directory}/tmux-mcp`,
      keepScripts: false,
      report: (message) => said.push(message),
    });
    await journal.open();
    journal.record(entry(2, "y".repeat(1000)));
    await journal.flush();
    const size = (await Deno.stat(`${directory}/tmux-mcp/journal.jsonl`)).size;
    assert.ok(size > first.length && size < first.length + 1000, `not cut short: ${size}`);
    assert.equal(journal.status().state, "failing");
    assert.match(said.join("\n"), /could not be written \(a short write\)/);
    await Deno.remove(`${directory}/fill`);
    journal.record(entry(3));
    await journal.close();
    const text = await Deno.readTextFile(`${directory}/tmux-mcp/journal.jsonl`);
    const { entries, skipped } = parseJournal(text);
    assert.deepEqual(entries.map((line) => line.duration_ms), [1, 3]);
    assert.equal(skipped, 1);
    assert.deepEqual(journal.status().entries_lost, 1);
  } finally {
    const output = await new Deno.Command("umount", { args: [directory] }).output();
    await Deno.remove(directory, { recursive: true });
    assert.equal(output.code, 0, "the tmpfs could not be unmounted");
  }
});
