// run_command against real shells: exit statuses, awkward commands, its own markers, timeouts,
// panes that are not at a shell, and two calls on one pane.
import assert from "node:assert/strict";
import {
  type Lab,
  splitPane,
  typeInto,
  waitFor,
  waitForPrompt,
  waitUntilRunning,
  withLab,
} from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";

function zsh(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((lab) => withGeneral(lab, {}, (s) => fn(lab, s)));
}

/** A second pane in the lab's window running `shell` with a known prompt. */
async function shellPane(lab: Lab, shell: "bash" | "dash"): Promise<string> {
  const pane = await splitPane(
    lab,
    "env",
    "-i",
    "PATH=/usr/bin:/bin",
    `HOME=${lab.dir}/home`,
    "PS1=lab# ",
    "TERM=xterm-256color",
    "LANG=C.UTF-8",
    shell,
    ...(shell === "bash" ? ["--norc", "--noprofile", "-i"] : ["-i"]),
  );
  await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
  return pane;
}

Deno.test(
  "exit statuses 0, 1 and 7 come back with the command's output",
  zsh(async (lab, s) => {
    const ok = await s.call("run_command", { pane_id: lab.pane, command: "echo hello" });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.equal(ok.data.exit_status, 0);
    assert.equal(ok.data.timed_out, false);
    assert.equal(ok.data.output, "hello");
    const fail = await s.call("run_command", { pane_id: lab.pane, command: "false" });
    assert.equal(fail.data.exit_status, 1);
    assert.equal(fail.data.output, "");
    const seven = await s.call("run_command", {
      pane_id: lab.pane,
      command: "echo before; (exit 7)",
    });
    assert.equal(seven.data.exit_status, 7);
    assert.equal(seven.data.output, "before");
  }),
);

Deno.test(
  "a heredoc, quotes, tabs and Unicode arrive intact",
  zsh(async (lab, s) => {
    const command = "cat <<'EOF'\nit's \"quoted\" $HOME `not run`\nhé 世界 ✓\nEOF\n" +
      "printf '%s|%s\\n' 'a b' \"c'd\"";
    const result = await s.call("run_command", { pane_id: lab.pane, command });
    assert.equal(result.data.exit_status, 0, JSON.stringify(result));
    assert.equal(
      result.data.output,
      "it's \"quoted\" $HOME `not run`\nhé 世界 ✓\na b|c'd",
    );
  }),
);

Deno.test(
  "a command that prints marker-like text does not end the wait early",
  zsh(async (lab, s) => {
    const command = "echo __MCP_DONE_0000000000000000:0; echo __MCP_START_; sleep 0.3; echo real";
    const result = await s.call("run_command", { pane_id: lab.pane, command });
    assert.equal(result.data.exit_status, 0);
    assert.equal(result.data.output, "__MCP_DONE_0000000000000000:0\n__MCP_START_\nreal");
  }),
);

Deno.test(
  "a syntax error is a failed command, not a hang",
  zsh(async (lab, s) => {
    const result = await s.call("run_command", { pane_id: lab.pane, command: "if then fi (" });
    assert.equal(result.data.timed_out, false);
    assert.notEqual(result.data.exit_status, 0);
  }),
);

Deno.test(
  "the user's shell variables are seen and left alone",
  zsh(async (lab, s) => {
    await typeInto(lab, "status_probe=mine; id=mine", true);
    await waitForPrompt(lab);
    const result = await s.call("run_command", {
      pane_id: lab.pane,
      command: 'echo "$status_probe $id"; status_probe=theirs',
    });
    assert.equal(result.data.output, "mine mine");
    await typeInto(lab, 'echo "probe=$status_probe"', true);
    await waitFor(
      "the shell to print its own variable",
      async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("probe=mine"),
    );
  }),
);

Deno.test(
  "exit N reports N and the pane's shell survives; cd and export do not persist",
  zsh(async (lab, s) => {
    const shellPid = await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid}");
    const three = await s.call("run_command", { pane_id: lab.pane, command: "echo bye; exit 3" });
    assert.deepEqual([three.data.exit_status, three.data.output], [3, "bye"]);
    const exec = await s.call("run_command", { pane_id: lab.pane, command: "exec true" });
    assert.equal(exec.data.exit_status, 0, JSON.stringify(exec));
    await s.call("run_command", { pane_id: lab.pane, command: "cd /; export PROBE_X=1" });
    const after = await s.call("run_command", {
      pane_id: lab.pane,
      command: 'echo "${PROBE_X:-unset} $PWD"',
    });
    assert.notEqual(after.data.output, "1 /");
    assert.match(after.data.output, /^unset /);
    assert.equal(
      await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid} #{pane_dead}"),
      `${shellPid} 0`,
    );
  }),
);

Deno.test(
  "after a timed-out read, the next command is refused instead of becoming its input",
  zsh(async (lab, s) => {
    const reading = await s.call("run_command", {
      pane_id: lab.pane,
      command: 'read -r answer; echo "got:$answer"',
      timeout: 0.5,
    });
    assert.equal(reading.data.timed_out, true);
    const refused = await s.call("run_command", { pane_id: lab.pane, command: "echo typed" });
    assert.equal(refused.error?.code, "unfinished_command", JSON.stringify(refused));
    assert.equal(refused.error.delivery, "not_sent");
    assert.match(refused.error.message, new RegExp(`pane ${lab.pane} earlier has not finished`));
    assert.match(refused.error.message, /send_keys C-c/);
    assert.doesNotMatch(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane), /^got:/m);
    await typeInto(lab, "from-the-person", true);
    await waitForPrompt(lab);
    const next = await s.call("run_command", { pane_id: lab.pane, command: "echo typed" });
    assert.deepEqual([next.data?.exit_status, next.data?.output], [0, "typed"]);
    assert.match(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane), /^got:from-the-person$/m);
  }),
);

Deno.test(
  "text a person left at the prompt is refused and stays on the line",
  zsh(async (lab, s) => {
    await s.call("run_command", { pane_id: lab.pane, command: "true" });
    await typeInto(lab, "echo half-typed");
    await waitFor(
      "the half-typed text to show",
      async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("half-typed"),
    );
    const refused = await s.call("run_command", { pane_id: lab.pane, command: "echo mine" });
    assert.equal(refused.error?.code, "line_not_empty", JSON.stringify(refused));
    assert.match(refused.error.message, new RegExp(`command line in pane ${lab.pane} already`));
    const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    assert.equal(screen.split("\n").filter((l) => l !== "").at(-1), "lab# echo half-typed");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-u");
    await waitForPrompt(lab);
    const next = await s.call("run_command", { pane_id: lab.pane, command: "echo mine" });
    assert.equal(next.data?.output, "mine", JSON.stringify(next));
  }),
);

Deno.test(
  "output taller than a look's window comes back whole, finished or timed out",
  zsh(async (lab, s) => {
    // A look captures 200 history lines above the screen; these outputs start further up.
    const all = Array.from({ length: 450 }, (_, i) => String(i + 1)).join("\n");
    const done = await s.call("run_command", { pane_id: lab.pane, command: "seq 1 450" });
    assert.equal(done.data.exit_status, 0);
    assert.equal(done.data.output, all);
    assert.equal(done.data.note, null);
    const slow = await s.call("run_command", {
      pane_id: lab.pane,
      command: "seq 1 450; sleep 30",
      timeout: 1,
    });
    assert.equal(slow.data.timed_out, true);
    assert.equal(slow.data.output, all);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await waitForPrompt(lab);
  }),
);

Deno.test(
  "a timeout reports timed_out with a null status, and the shell is usable afterwards",
  zsh(async (lab, s) => {
    const result = await s.call("run_command", {
      pane_id: lab.pane,
      command: "echo started; sleep 30",
      timeout: 1,
    });
    assert.equal(result.data.timed_out, true);
    assert.equal(result.data.exit_status, null);
    assert.equal(result.data.effective_timeout, 1);
    assert.match(result.data.note, /may still be running/);
    assert.equal(result.data.output, "started");
    const busy = await s.call("run_command", { pane_id: lab.pane, command: "true" });
    assert.equal(busy.error.code, "unfinished_command");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await waitForPrompt(lab);
    const after = await s.call("run_command", { pane_id: lab.pane, command: "echo again" });
    assert.equal(after.data.exit_status, 0);
    assert.equal(after.data.output, "again");
  }),
);

Deno.test(
  "a pane whose foreground process is not a shell is refused and nothing is typed",
  zsh(async (lab, s) => {
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", "cat");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    await waitUntilRunning(lab, "cat");
    const before = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    const result = await s.call("run_command", { pane_id: lab.pane, command: "echo no" });
    assert.equal(result.ok, false);
    assert.equal(result.error.code, "not_a_shell");
    assert.equal(result.error.delivery, "not_sent");
    assert.equal(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane), before);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-d");
  }),
);

Deno.test(
  "two calls on one pane run one after the other, each with its own result",
  zsh(async (lab, s) => {
    const [a, b] = await Promise.all([
      s.call("run_command", { pane_id: lab.pane, command: "sleep 0.5; echo first; (exit 3)" }),
      s.call("run_command", { pane_id: lab.pane, command: "echo second" }),
    ]);
    assert.deepEqual([a.data.exit_status, a.data.output], [3, "first"]);
    assert.deepEqual([b.data.exit_status, b.data.output], [0, "second"]);
  }),
);

Deno.test(
  "bash and dash run commands too, with their exit statuses",
  zsh(async (lab, s) => {
    for (const shell of ["bash", "dash"] as const) {
      const pane = await shellPane(lab, shell);
      const result = await s.call("run_command", {
        pane_id: pane,
        command: "cat <<EOF\nin $0\nEOF\n(exit 7)",
      });
      assert.equal(result.data.exit_status, 7, `${shell}: ${JSON.stringify(result)}`);
      assert.equal(result.data.output, `in ${shell}`);
    }
  }),
);

Deno.test(
  "a pane that does not exist is not_found, never another pane",
  zsh(async (_lab, s) => {
    const result = await s.call("run_command", { pane_id: "%999", command: "true" });
    assert.equal(result.error.code, "not_found");
  }),
);

Deno.test(
  "history suppression is on by default and off on request (zsh with HIST_IGNORE_SPACE)",
  () =>
    withLab(
      (lab) =>
        withGeneral(lab, {}, async (s) => {
          await s.call("run_command", { pane_id: lab.pane, command: "echo hidden_marker" });
          await s.call("run_command", {
            pane_id: lab.pane,
            command: "echo shown_marker",
            suppress_history: false,
          });
          const history = await s.call("run_command", {
            pane_id: lab.pane,
            command: "fc -ln 1",
            suppress_history: false,
          });
          assert.doesNotMatch(history.data.output, /hidden_marker/);
          assert.match(history.data.output, /shown_marker/);
        }),
      "setopt HIST_IGNORE_SPACE\nHISTSIZE=100",
    ),
);

/** The pane's screen now. */
function screenOf(lab: Lab, pane: string): Promise<string> {
  return lab.tmuxCmd("capture-pane", "-p", "-t", pane);
}

/** The pane's cursor column and row. */
async function cursorOf(lab: Lab, pane: string): Promise<[number, number]> {
  const at = await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{cursor_x} #{cursor_y}");
  const [x, y] = at.split(" ").map(Number);
  return [x, y];
}

/** The row the cursor is on. */
async function cursorRow(lab: Lab, pane: string): Promise<string> {
  const [, row] = await cursorOf(lab, pane);
  return (await screenOf(lab, pane)).split("\n")[row] ?? "";
}

/** The time a row shows last (H:MM:SS), or null. */
function clockOf(row: string): string | null {
  return /(\d{1,2}:\d\d:\d\d)\S*\s*$/.exec(row)?.[1] ?? null;
}

/** Waits until the cursor's row ends with a clock: the prompt is drawn. */
async function waitForClockedPrompt(lab: Lab, pane: string): Promise<void> {
  await waitFor("a prompt with its clock", async () => clockOf(await cursorRow(lab, pane)));
}

/**
 * Five commands in a row on an empty line are never refused; then a line a person left is, with
 * the cursor after the text and moved back to its start, and commands run again once it is
 * cleared.
 */
async function emptyAndTypedLines(lab: Lab, s: GeneralSession, pane: string): Promise<void> {
  for (let i = 1; i <= 5; i++) {
    const result = await s.call("run_command", { pane_id: pane, command: `echo run-${i}` });
    assert.equal(result.ok, true, `call ${i} of 5: ${JSON.stringify(result)}`);
    assert.deepEqual([result.data.exit_status, result.data.output], [0, `run-${i}`]);
  }
  // A person types at a prompt they see: a theme may draw it a while after the command ended.
  await waitForClockedPrompt(lab, pane);
  const [promptEnd] = await cursorOf(lab, pane);
  const promptRow = await cursorRow(lab, pane);
  await lab.tmuxCmd("send-keys", "-t", pane, "-l", "echo half-typed");
  // The clock ticks between the look that learned the prompt and the one that checks the line.
  await waitFor("the half-typed text to show under a later time", async () => {
    const row = await cursorRow(lab, pane);
    return row.includes("half-typed") && clockOf(row) !== clockOf(promptRow) && row;
  });
  const refused = await s.call("run_command", { pane_id: pane, command: "echo mine" });
  assert.equal(refused.error?.code, "line_not_empty", JSON.stringify(refused));
  // At the line's start only the prompt is left of the cursor: the text is right of it.
  await lab.tmuxCmd("send-keys", "-t", pane, "C-a");
  await waitFor("the cursor at the line's start", async () => {
    return (await cursorOf(lab, pane))[0] === promptEnd;
  });
  const refusedAtStart = await s.call("run_command", { pane_id: pane, command: "echo mine" });
  assert.equal(refusedAtStart.error?.code, "line_not_empty", JSON.stringify(refusedAtStart));
  assert.match(await screenOf(lab, pane), /echo half-typed/);
  assert.doesNotMatch(await screenOf(lab, pane), /^mine$/m);
  await lab.tmuxCmd("send-keys", "-t", pane, "C-e", "C-u");
  await waitFor(
    "the line to be cleared",
    async () => !(await screenOf(lab, pane)).includes("half"),
  );
  const next = await s.call("run_command", { pane_id: pane, command: "echo mine" });
  assert.equal(next.data?.output, "mine", JSON.stringify(next));
}

/** A prompt redrawn every second: zsh's TMOUT and TRAPALRM, the usual live clock. */
const LIVE_CLOCK = "TMOUT=1\nTRAPALRM() { zle reset-prompt }";

/** A second pane running zsh with `zshrc`, once its prompt with a clock is drawn. */
async function zshPane(lab: Lab, name: string, zshrc: string): Promise<string> {
  const zdotdir = `${lab.dir}/zdotdir-${name}`;
  await Deno.mkdir(zdotdir);
  await Deno.writeTextFile(`${zdotdir}/.zshrc`, zshrc);
  const pane = await lab.tmuxCmd(
    "split-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    "-c",
    lab.dir,
    "-t",
    lab.pane,
    "env",
    "-i",
    "PATH=/usr/bin:/bin",
    `HOME=${lab.dir}/home`,
    `ZDOTDIR=${zdotdir}`,
    "TERM=xterm-256color",
    "LANG=C.UTF-8",
    "zsh",
    "-i",
  );
  await waitForClockedPrompt(lab, pane);
  return pane;
}

Deno.test(
  "a right prompt and a left one, each with a live clock, never make an empty line look typed on",
  zsh(async (lab, s) => {
    const zshrc = `PROMPT='%* lab# '\nRPROMPT='[rp %*]'\n${LIVE_CLOCK}\n`;
    await emptyAndTypedLines(lab, s, await zshPane(lab, "rprompt", zshrc));
  }),
);

Deno.test(
  "powerlevel9k's prompt, segments left and right and a live clock, is known as a prompt",
  zsh(async (lab, s) => {
    const theme = "/usr/share/powerlevel9k/powerlevel9k.zsh-theme";
    await Deno.stat(theme).catch(() => {
      throw new Error(`${theme} is missing: apt-get install zsh-theme-powerlevel9k`);
    });
    await emptyAndTypedLines(
      lab,
      s,
      await zshPane(lab, "powerlevel9k", `source ${theme}\n${LIVE_CLOCK}\n`),
    );
  }),
);
