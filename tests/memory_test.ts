// Memory stays flat over many runs: no descriptor of the server or of the helper is left behind
// by a run, the helper's resident memory does not grow with the number of runs, and no run's
// abort signals outlive it in the server. The long version, with numbers, is bench/soak.ts.
import assert from "node:assert/strict";
import { Session } from "node:inspector";
import { waitFor, withLab, withServer } from "./harness.ts";
import { childrenOf } from "../lib/host/processes.ts";
import { isJsonObject } from "../lib/util/json_object.ts";

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

/** What each of a process's descriptors is, for a message that says which one changed. */
async function fdList(pid: number): Promise<string> {
  const fds: string[] = [];
  for await (const entry of Deno.readDir(`/proc/${pid}/fd`)) {
    const target = await Deno.readLink(`/proc/${pid}/fd/${entry.name}`).catch(() => "closed");
    fds.push(`${entry.name}: ${target.replace(/\[\d+\]$/, "")}`);
  }
  return fds.sort().join(", ");
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
      // The first 100 runs warm up: perl's allocator takes the memory a run's buffers need.
      await runs(0, 100);
      const before = { rss: await rssKib(helper), helperFds: await fdList(helper) };
      const serverFds = await fdCount(Deno.pid);
      await runs(100, 400);
      const fdsAfter = await fdList(helper);
      assert.equal(fdsAfter, before.helperFds, "the helper's descriptors");
      // The server (this process) closes a run's tmux clients just after it answers.
      await waitFor("the server's descriptors to settle", async () =>
        await fdCount(Deno.pid) <= serverFds);
      // The perl helper's RSS moved by under 0.1 MiB over 2000 runs (bench/soak.ts): 1 MiB over
      // these 300 catches any per-run leak of 3.5 KiB or more (a run's stdout and stderr lines
      // are a few bytes; one 64 KiB read buffer kept per run would add 19 MiB).
      const grown = (await rssKib(helper)) - before.rss;
      assert.ok(grown < 1024, `the helper's RSS grew by ${grown} KiB over 300 runs`);
    })
  ));

/**
 * How many objects whose prototype is `prototype` (an expression) this process holds after a
 * full collection, counted by V8's inspector. The server runs in this process (withServer).
 */
async function liveInstances(prototype: string): Promise<number> {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => error ? reject(error) : resolve(result))
    );
  try {
    await post("HeapProfiler.collectGarbage", {});
    const found = await post("Runtime.evaluate", { expression: prototype });
    const instances = await post("Runtime.queryObjects", {
      prototypeObjectId: field(found, "result", "objectId"),
    });
    const count = field(
      await post("Runtime.callFunctionOn", {
        objectId: field(instances, "objects", "objectId"),
        functionDeclaration: "function () { return this.length; }",
        returnByValue: true,
      }),
      "result",
      "value",
    );
    if (typeof count !== "number") throw new Error("the inspector counted no objects");
    return count;
  } finally {
    session.disconnect();
  }
}

/** `value[keys[0]][keys[1]]…` of an inspector answer; undefined where a step is no object. */
function field(value: unknown, ...keys: string[]): unknown {
  let here = value;
  for (const key of keys) {
    if (!isJsonObject(here)) return undefined;
    here = here[key];
  }
  return here;
}

Deno.test("finished runs leave no abort signal behind in the server", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      await s.enroll();
      const runs = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const result = await s.run(`echo run ${i}`);
          assert.equal(result.data?.stdout.data, `run ${i}\n`, JSON.stringify(result));
        }
      };
      await runs(10);
      const before = await liveInstances("AbortSignal.prototype");
      await runs(100);
      const after = await liveInstances("AbortSignal.prototype");
      // Each run makes several signals (its deadline, the interruption that joins it to the
      // call's and to shutdown, its tmux commands' bounds); a run that kept one, as a pending
      // deadline timer did until it fired, adds 100 here.
      assert.ok(
        after - before < 20,
        `live AbortSignals went from ${before} to ${after} over 100 finished runs`,
      );
    })
  ));
