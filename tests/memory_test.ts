// Memory stays flat over many runs: no descriptor of the server or of the helper is left behind
// by a run, and the helper's resident memory does not grow with the number of runs. The long
// version, with numbers, is bench/soak.ts.
import assert from "node:assert/strict";
import { waitFor, withLab, withServer } from "./harness.ts";
import { childrenOf } from "../lib/run/procfs.ts";

const ENROLL = ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP"];

async function rssKib(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
}

async function fdCount(pid: number): Promise<number> {
  let count = 0;
  for await (const _ of Deno.readDir(`/proc/${pid}/fd`)) count++;
  return count;
}

/** The enrolled shell's one child: its helper. */
async function helperOf(shellPid: number): Promise<number> {
  const [helper] = await childrenOf(shellPid);
  if (helper === undefined) throw new Error("the enrolled shell has no helper");
  return helper;
}

Deno.test("300 runs leave no descriptor behind and do not grow the helper's memory", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      await s.enroll();
      const shellPid = Number(await lab.tmuxCmd("display-message", "-p", "#{pane_pid}"));
      const helper = await helperOf(shellPid);
      const runs = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          const result = await s.run(`echo run ${i}; echo err >&2`);
          assert.equal(result.data?.stdout.data, `run ${i}\n`, JSON.stringify(result));
        }
      };
      // The first 100 runs warm up: V8 compiles and sizes its heap, Deno its process table.
      await runs(0, 100);
      const before = { rss: await rssKib(helper), helperFds: await fdCount(helper) };
      const serverFds = await fdCount(Deno.pid);
      await runs(100, 400);
      assert.equal(await fdCount(helper), before.helperFds, "the helper's descriptors grew");
      // The server (this process) closes a run's tmux clients just after it answers.
      await waitFor("the server's descriptors to settle", async () =>
        await fdCount(Deno.pid) <= serverFds);
      // RSS is noisy: V8 grows its heap in steps of about 1 MiB (the helper runs with 1 MiB
      // semi-spaces) and the allocator keeps freed pages. Measured over these 300 runs it grows
      // 3-6 MiB. A leak of one 64 KiB read buffer per run would add 19 MiB; 12 MiB catches any
      // per-run leak of 40 KiB or more.
      const grown = (await rssKib(helper)) - before.rss;
      assert.ok(grown < 12 * 1024, `the helper's RSS grew by ${grown} KiB over 300 runs`);
    })
  ));
