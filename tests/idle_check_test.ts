// The idle check in states that look idle to a widget but are not: a completion asking "do you
// wish to see all N possibilities?" over an empty line, a pending ESC prefix, a pending digit
// argument and a vi operator waiting for its motion. ZLE services the zle -F handler in each of
// them (found with real zsh 5.9), so each is refused: unsupported, not_sent, the screen as it was.
import assert from "node:assert/strict";
import { type Lab, type Session, waitFor, waitForPrompt, withLab, withServer } from "./harness.ts";

const ENROLL = ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP"];

function enrolled(
  zshrc: string,
  fn: (lab: Lab, s: Session) => Promise<void>,
): () => Promise<void> {
  return () =>
    withLab((lab) =>
      withServer(lab, ENROLL, async (s) => {
        await s.enroll();
        await fn(lab, s);
      }), zshrc);
}

async function screen(lab: Lab): Promise<string> {
  return await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
}

/** Bytes the pane's shell has read so far (every read(2), from /proc/<pid>/io). */
async function bytesRead(lab: Lab): Promise<number> {
  const pid = await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid}");
  const io = await Deno.readTextFile(`/proc/${pid}/io`);
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
}

/**
 * Sends `keys` (tmux key names) and waits until the shell has read that many more bytes: zsh
 * reads the terminal one byte at a time, so the state the keys lead to is then the one the
 * next request meets. Nothing is read between two keys of a test but these keys.
 */
async function pressAndWaitRead(lab: Lab, ...keys: string[]): Promise<void> {
  const before = await bytesRead(lab);
  await lab.tmuxCmd("send-keys", "-t", lab.pane, ...keys);
  await waitFor(
    `the shell to read ${keys.join(" ")}`,
    async () => await bytesRead(lab) >= before + keys.length,
  );
}

async function assertRefusedAndUntouched(lab: Lab, s: Session): Promise<void> {
  const before = await screen(lab);
  const result = await s.run(`touch '${lab.dir}/ran'`);
  assert.equal(result.ok, false);
  assert.equal(result.error.code, "unsupported", JSON.stringify(result));
  assert.equal(result.error.delivery, "not_sent");
  assert.match(result.error.message, /not idle and empty/);
  assert.equal(await screen(lab), before);
  await assert.rejects(Deno.lstat(`${lab.dir}/ran`));
}

async function assertRunsAgain(lab: Lab, s: Session): Promise<void> {
  await waitForPrompt(lab);
  const next = await s.run("echo next");
  assert.equal(next.data.stdout.data, "next\n");
}

Deno.test(
  "a completion asking whether to list all possibilities, over an empty line, is refused",
  enrolled(
    "autoload -Uz compinit && compinit -u -D\nzstyle ':completion:*' insert-tab false",
    async (lab, s) => {
      // Tab on an empty line completes command names: thousands, far over LISTMAX (100).
      await lab.tmuxCmd("send-keys", "-t", lab.pane, "Tab");
      await waitFor(
        "the listing question",
        async () => /do you wish to see all \d+ possibilities/.test(await screen(lab)),
      );
      await assertRefusedAndUntouched(lab, s);
      await lab.tmuxCmd("send-keys", "-t", lab.pane, "n");
      await assertRunsAgain(lab, s);
    },
  ),
);

Deno.test(
  "a pending ESC prefix and a pending digit argument are refused",
  enrolled("bindkey -e", async (lab, s) => {
    // In the emacs keymap ESC alone is unbound: zsh waits for the rest of the sequence.
    await pressAndWaitRead(lab, "Escape");
    await assertRefusedAndUntouched(lab, s);
    // ESC 5 is digit-argument: a count waiting for the command it applies to.
    await pressAndWaitRead(lab, "5");
    await assertRefusedAndUntouched(lab, s);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-g");
    await assertRunsAgain(lab, s);
  }),
);

Deno.test(
  "a vi operator waiting for its motion is refused",
  enrolled("bindkey -v", async (lab, s) => {
    // Escape leaves insert mode (vicmd) and `d` starts vi-delete, which waits for a motion.
    await pressAndWaitRead(lab, "Escape", "d");
    await assertRefusedAndUntouched(lab, s);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await assertRunsAgain(lab, s);
  }),
);
