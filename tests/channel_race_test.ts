// The shell-channel race (docs/security.md): a same-user process that read the setup
// file presents its token on the private channel as the person's shell does. The server cannot
// tell which connection is the shell, so a second presentation drops both at once; before, the
// loser waited out the helper's arrival (15 s) and a tmux_run waited with it. Each racer here is
// a real second process (zsh with its socket module) acting on the channel while the shell does.
import assert from "node:assert/strict";
import {
  ENROLL,
  type Lab,
  typeInto,
  waitFor,
  waitUntilRunning,
  withLab,
  withServer,
} from "./harness.ts";
import { sourceInPane } from "../lib/cli/private_lab.ts";

/** Well under the helper's 15 s arrival wait the race used to cost, and under any deadline. */
const ANSWER_BOUND_MS = 8_000;

/** Presents the token ($2) on the channel ($1) and prints the server's one-line answer. */
const RACER = `zmodload zsh/net/socket
zsocket $1 || exit 2
print -u $REPLY -- "E $2"
read -t 20 -r -u $REPLY answer
print -r -- "$answer"`;

/** The channel, token and proof file named by the setup file (read before it is used up). */
async function invitationOf(setupFile: string) {
  const words = [...(await Deno.readTextFile(setupFile)).matchAll(/'([^']*)'/g)];
  return { channel: words[1][1], token: words[2][1], proof: words[3][1] };
}

/** `promise`, or a failure naming `what` once `ms` have passed. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the racer and returns its answer line, bounded. */
async function race(channel: string, token: string): Promise<string> {
  const racer = new Deno.Command("zsh", {
    args: ["-f", "-c", RACER, "racer", channel, token],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const output = await within(ANSWER_BOUND_MS, "the racer's answer", racer.output());
    return new TextDecoder().decode(output.stdout).trim();
  } finally {
    try {
      racer.kill("SIGKILL");
    } catch {
      // It already exited.
    }
    await racer.status;
  }
}

async function screen(lab: Lab): Promise<string> {
  return await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
}

Deno.test("a racer presenting the token beside the person's source: both refused at once", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const { channel, token, proof } = await invitationOf(s.setupFile);
      // The shell holds the proof file already, so the racer passes the pane-root check and
      // waits for a helper, as a racer that won the first step does.
      await typeInto(lab, `exec {held}<'${proof}'; clear`, true);
      await waitFor("the shell to hold the proof file", async () => {
        const pid = await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid}");
        for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
          if (await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "") === proof) {
            return true;
          }
        }
        return false;
      });
      const answer = race(channel, token);
      await sourceInPane(lab, s.setupFile);
      assert.equal(await answer, "NO contested");
      const verdict = await waitFor(
        "the source line's verdict",
        async () => /tmux-mcp: .*/.exec(await screen(lab))?.[0],
        ANSWER_BOUND_MS,
      );
      // Whichever presentation the server read second names the race; the other is dropped.
      assert.match(verdict, /another process presented this invitation|pane is enrolled/);
      await waitFor("the enrollment to be dropped", () =>
        !s.server.context.enrollments?.shells.has(lab.pane));
      const result = await within(ANSWER_BOUND_MS, "tmux_run", s.run("echo never"));
      assert.equal(result.error.code, "unsupported");
      assert.equal(result.error.delivery, "not_sent");
    })
  ));

Deno.test("a run waiting on an enrolled shell is answered at once when a racer presents its token", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const { channel, token } = await invitationOf(s.setupFile);
      await s.enroll();
      // The shell is busy in the foreground, so the run's request waits in its channel.
      await typeInto(lab, "sleep 60", true);
      await waitUntilRunning(lab, "sleep");
      const run = s.run("echo never");
      // Marked handled: a failed assertion below must not leave its rejection unobserved.
      run.catch(() => {});
      const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
      await waitFor("the run's request to be in flight", () => shell.run !== null);
      const answer = await race(channel, token);
      const result = await within(ANSWER_BOUND_MS, "tmux_run", run);
      assert.equal(answer, "NO contested");
      assert.equal(result.error.code, "transport_error");
      assert.equal(result.error.delivery, "not_sent");
      assert.match(result.error.message, /another process presented this pane's invitation/);
      assert.match(result.error.message, /enroll the pane again/);
      assert.equal(s.server.context.enrollments!.shells.has(lab.pane), false);
      await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    })
  ));
