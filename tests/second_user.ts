// Another local user, for the tests of what such a user can do to this one's files (a squatted
// private directory, a raced setup file). Needs root: the user is made once with useradd if
// absent and left, as other test runs may be using it at the same moment.
import assert from "node:assert/strict";

export const SECOND_USER = "tmuxmcp-racer";

export type SecondUser = { uid: number; gid: number };

/** Whether this process may make and become another user. */
export const AS_ROOT = Deno.uid() === 0;

async function run(program: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  assert.ok(out.success, `${program} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).trim();
}

export async function secondUser(): Promise<SecondUser> {
  const exists = await new Deno.Command("id", {
    args: ["-u", SECOND_USER],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!exists.success) {
    await run(
      "useradd",
      "--system",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      SECOND_USER,
    );
  }
  return {
    uid: Number(await run("id", "-u", SECOND_USER)),
    gid: Number(await run("id", "-g", SECOND_USER)),
  };
}

/** `command` as `user` (setpriv execs it: no process of root's stays between). */
export function asUser(user: SecondUser, command: string[]): string[] {
  return [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", ...command];
}

/** Runs `command` as `user` to completion, failing the test if it fails. */
export async function runAs(user: SecondUser, ...command: string[]): Promise<void> {
  await run("setpriv", ...asUser(user, command));
}
