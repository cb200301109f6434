// Both process-facts backends against real processes on this machine: /proc (on Linux), and
// ps/lsof as macOS uses them (forced here on Linux). They must agree on a live process's parent, keep its start
// time stable, see a zombie or an exited process as gone, list the process table alike, tell a process that holds a file open
// from one that does not, and pick /proc on Linux and ps/lsof elsewhere unless told otherwise.
import assert from "node:assert/strict";
import { chooseProcessFacts, type ProcessFacts } from "../lib/host/processes.ts";
import { PROC_FACTS } from "../lib/host/process_facts_proc.ts";
import { PORTABLE_FACTS } from "../lib/host/process_facts_portable.ts";
import { openLab, waitFor } from "../lib/cli/private_lab.ts";

const LINUX = Deno.build.os === "linux";
const BACKENDS: ProcessFacts[] = LINUX ? [PROC_FACTS, PORTABLE_FACTS] : [PORTABLE_FACTS];

/** The process state letter as ps shows it, or "" once the pid is gone. */
async function psState(pid: number): Promise<string> {
  const output = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] })
    .output();
  return new TextDecoder().decode(output.stdout).trim();
}

/** Starts `sh -c script`, returning the child and the first line it prints. */
async function started(script: string) {
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    await child.stdin.close().catch(() => {});
  };
  return { child, line: text.trim(), stop };
}

Deno.test("the backend is /proc on Linux and ps/lsof elsewhere, unless forced", () => {
  assert.equal(chooseProcessFacts(undefined, "linux").name, "proc");
  assert.equal(chooseProcessFacts(undefined, "darwin").name, "portable");
  assert.equal(chooseProcessFacts("portable", "linux").name, "portable");
  assert.equal(chooseProcessFacts("proc", "darwin").name, "proc");
});

Deno.test("both backends agree on a live process and see an exited one as gone", async () => {
  const { child, stop } = await started("echo ready; exec sleep 60");
  try {
    for (const facts of BACKENDS) {
      const identity = await facts.readIdentity(child.pid);
      assert.ok(identity, facts.name);
      assert.equal(identity.parentPid, Deno.pid, facts.name);
      assert.deepEqual(await facts.readIdentity(child.pid), identity, `${facts.name} is stable`);
      assert.equal(await facts.readIdentity(-1), null);
    }
  } finally {
    await stop();
  }
  for (const facts of BACKENDS) assert.equal(await facts.readIdentity(child.pid), null, facts.name);
});

Deno.test("both backends see a zombie as gone", async () => {
  // The background sleep exits first; its parent (now `sleep 60`) never reaps it.
  const { line, stop } = await started("sleep 0.1 & echo $!; exec sleep 60");
  try {
    const zombie = Number(line);
    await waitFor(
      "the child to become a zombie",
      async () => (await psState(zombie)).startsWith("Z"),
    );
    for (const facts of BACKENDS) assert.equal(await facts.readIdentity(zombie), null, facts.name);
  } finally {
    await stop();
  }
});

Deno.test("both backends see a process stopped by a signal as stopped, and live", async () => {
  const { child, stop } = await started("echo ready; exec sleep 60");
  try {
    Deno.kill(child.pid, "SIGSTOP");
    await waitFor("the child to stop", async () => (await psState(child.pid)).startsWith("T"));
    for (const facts of BACKENDS) {
      const row = (await facts.listProcesses())?.find((row) => row.pid === child.pid);
      assert.equal(row?.stopped, true, facts.name);
      assert.equal(row?.live, true, facts.name);
    }
  } finally {
    Deno.kill(child.pid, "SIGCONT");
    await stop();
  }
});

Deno.test("both backends list a child with its parent and group, and a zombie as not live", async () => {
  const { child, line, stop } = await started("sleep 0.1 & echo $!; exec sleep 60");
  try {
    const zombie = Number(line);
    await waitFor(
      "the child to become a zombie",
      async () => (await psState(zombie)).startsWith("Z"),
    );
    for (const facts of BACKENDS) {
      const rows = await facts.listProcesses();
      assert.ok(rows, facts.name);
      const ours = rows.find((row) => row.pid === Deno.pid);
      const theirs = rows.find((row) => row.pid === child.pid);
      assert.ok(ours && theirs, `${facts.name} lists this process and its child`);
      assert.deepEqual(theirs, {
        pid: child.pid,
        parentPid: Deno.pid,
        processGroup: ours.processGroup,
        live: true,
        stopped: false,
      }, facts.name);
      const dead = rows.find((row) => row.pid === zombie);
      assert.equal(dead?.parentPid, child.pid, facts.name);
      assert.equal(dead?.live, false, facts.name);
    }
  } finally {
    await stop();
  }
});

Deno.test("both backends tell a process holding a file open from one that does not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-facts-" });
  const held = `${dir}/held`;
  const other = `${dir}/other`;
  await Deno.writeTextFile(held, "");
  await Deno.writeTextFile(other, "");
  const holder = await started(`exec 3<'${held}'; echo ready; exec sleep 60`);
  try {
    for (const facts of BACKENDS) {
      assert.equal(await facts.holdsFileOpen(holder.child.pid, held), true, facts.name);
      assert.equal(await facts.holdsFileOpen(holder.child.pid, other), false, facts.name);
      assert.equal(await facts.holdsFileOpen(Deno.pid, held), false, facts.name);
    }
  } finally {
    await holder.stop();
    await Deno.remove(dir, { recursive: true });
  }
  for (const facts of BACKENDS) {
    assert.equal(await facts.holdsFileOpen(holder.child.pid, held), false, facts.name);
  }
});

Deno.test("both backends read a terminal's foreground program, and nothing of a gone pid", async () => {
  const lab = await openLab({ prefix: "tmux-mcp-test-facts" });
  try {
    const pane = await lab.tmuxCmd(
      "split-window",
      ...["-d", "-P", "-F", "#{pane_id}", "-t", lab.pane],
      ...["--", "sh", "-c", "sleep 1000; :", "a b", "c"],
    );
    const panePid = Number(await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{pane_pid}"));
    const shellPid = Number(
      await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid}"),
    );
    await waitFor("sh to start in the new pane", async () => {
      const found = await BACKENDS[0].foregroundProcesses([panePid]);
      return found.get(panePid)?.commandLine.startsWith("sh ");
    });
    const gone = await gonePid();
    // Started by tmux, sh leads its terminal's session and its foreground group.
    for (const facts of BACKENDS) {
      const found = await facts.foregroundProcesses([panePid, shellPid, gone, 0]);
      assert.deepEqual(found.get(panePid), {
        pid: panePid,
        argv: facts.name === "proc" ? ["sh", "-c", "sleep 1000; :", "a b", "c"] : null,
        commandLine: "sh -c sleep 1000; : a b c",
        cut: false,
      }, facts.name);
      assert.equal(found.get(shellPid)?.pid, shellPid, facts.name);
      assert.match(found.get(shellPid)?.commandLine ?? "", /^zsh -i$/, facts.name);
      assert.equal(found.size, 2, `${facts.name}: nothing for a gone pid or 0`);
    }
  } finally {
    await lab.close();
  }
});

/** The pid of a process that has exited and been reaped. */
async function gonePid(): Promise<number> {
  const done = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await done.status;
  return done.pid;
}
