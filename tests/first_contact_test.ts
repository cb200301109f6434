// What a person meets the first time, in a shell or on a machine that cannot be lent: bash and
// dash sourcing the setup file, or evaluating `enroll` and `leave`, get one line and status 1; a
// refused `enroll` fails its `eval` line; a machine without /usr/bin/perl (hidden in a mount
// namespace by an empty file bound over it) is named at once, by `enroll`, by the setup file
// and by the server's startup, instead of an enrollment that waits for a helper never started.
import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "./test_deps.ts";
import {
  clientEnvironment,
  type Lab,
  splitPane,
  waitFor,
  waitForPrompt,
  withLab,
  withServer,
  zshCommand,
} from "./harness.ts";
import { denoTrustEnvironment } from "../lib/cli/private_lab.ts";
import { childrenOf } from "../lib/host/processes.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const PERL = "/usr/bin/perl";
const NOT_ZSH = "tmux-mcp: not enrolled: this shell is not zsh (tmux_run needs zsh 5.9: start " +
  "zsh in this pane and enroll there)";
const NO_PERL = "tmux_run's helper is a perl program and there is no executable /usr/bin/perl " +
  "here; install perl";
/** Hiding a file with a bind mount in a new mount namespace needs root (CI runs as root). */
const ROOT = Deno.uid() === 0;

function program(subcommand: string): string {
  return `DENO_DIR='${DENO_DIR}' '${Deno.execPath()}' run -A --no-config '${MAIN}' ${subcommand}`;
}

/**
 * Types `command` in `pane` between two markers and returns what it printed (wrapped lines
 * joined) and its status.
 */
async function outcome(
  lab: Lab,
  pane: string,
  command: string,
): Promise<{ lines: string[]; status: number }> {
  await lab.tmuxCmd("send-keys", "-t", pane, "-l", `echo "be""gin"; ${command}; echo "rc=$?"`);
  await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
  return await waitFor(`the status of ${command}`, async () => {
    const screen = (await lab.tmuxCmd("capture-pane", "-p", "-J", "-t", pane)).split("\n");
    const begin = screen.lastIndexOf("begin");
    const end = screen.findIndex((line, i) => i > begin && /^rc=\d+$/.test(line));
    if (begin < 0 || end < 0) return null;
    return { lines: screen.slice(begin + 1, end), status: Number(screen[end].slice(3)) };
  });
}

/** A pane running `shell` interactively, with tmux's TMUX and TMUX_PANE and a known prompt. */
async function shellPane(lab: Lab, shell: "bash" | "dash"): Promise<string> {
  const keep = [
    "PATH=/usr/bin:/bin",
    `HOME=${lab.dir}/home`,
    "PS1=lab# ",
    "TERM=xterm-256color",
    "LANG=C.UTF-8",
    ...Object.entries(denoTrustEnvironment()).map(([name, value]) => `${name}=${value}`),
  ].map((assignment) => `'${assignment}'`).join(" ");
  const flags = shell === "bash" ? "--norc --noprofile -i" : "-i";
  const pane = await splitPane(
    lab,
    "/bin/sh",
    "-c",
    `exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${keep} ${shell} ${flags}`,
  );
  await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
  return pane;
}

/** A lab zsh pane in its own mount namespace, where an empty file hides /usr/bin/perl. */
async function paneWithoutPerl(lab: Lab): Promise<string> {
  const empty = `${lab.dir}/no-perl`;
  await Deno.writeTextFile(empty, "", { mode: 0o644 });
  const zsh = zshCommand(lab.dir)[2];
  const pane = await splitPane(
    lab,
    "unshare",
    "-m",
    "/bin/sh",
    "-c",
    `mount --bind '${empty}' ${PERL} && ${zsh}`,
  );
  await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
  return pane;
}

for (const shell of ["bash", "dash"] as const) {
  const source = shell === "bash" ? "source" : ".";
  Deno.test(`${shell} sourcing the setup file, or leave, gets one line and status 1`, () =>
    withLab(async (lab) => {
      const pane = await shellPane(lab, shell);
      await withServer(
        lab,
        ["--enable-tool", "tmux_run", "--enroll-pane", `${pane}=SETUP`],
        async (s) => {
          const sourced = await outcome(lab, pane, `${source} ${s.setupFile}`);
          assert.deepEqual(sourced, { lines: [NOT_ZSH], status: 1 });
          const left = await outcome(lab, pane, `eval "$(${program("leave")})"`);
          assert.deepEqual(left, {
            lines: [
              "tmux-mcp: this shell is not zsh, and only zsh is ever enrolled: nothing to leave",
            ],
            status: 1,
          });
          const capabilities = await s.call("tmux_capabilities");
          assert.deepEqual(capabilities.data.enrolled_panes, []);
          assert.deepEqual(
            capabilities.data.pending_invitations,
            [pane],
            "the server was not asked",
          );
        },
      );
    }));

  Deno.test(`${shell} evaluating enroll gets the same one line and status 1`, () =>
    withLab(async (lab) => {
      const pane = await shellPane(lab, shell);
      await withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
        const enrolled = await outcome(lab, pane, `eval "$(${program("enroll")})"`);
        assert.deepEqual(enrolled, { lines: [NOT_ZSH], status: 1 });
        assert.deepEqual((await s.call("tmux_capabilities")).data.enrolled_panes, []);
      });
    }));
}

Deno.test("a refused enroll makes its eval line fail", () =>
  withLab((lab) =>
    withServer(lab, [], async () => {
      const refused = await outcome(lab, lab.pane, `eval "$(${program("enroll")})"`);
      assert.equal(refused.status, 1);
      assert.equal(refused.lines.length, 1, refused.lines.join("\n"));
      assert.match(
        refused.lines[0],
        /^tmux-mcp: no running server with tmux_run enabled is bound to this tmux server \(searched \/\S+\); .* enroll_command\), which names it$/,
      );
    })
  ));

Deno.test({
  name: "without an executable /usr/bin/perl, enroll and the setup file name perl at once",
  ignore: !ROOT,
  fn: () =>
    withLab(async (lab) => {
      const pane = await paneWithoutPerl(lab);
      await withServer(
        lab,
        ["--enable-tool", "tmux_run", "--enroll-pane", `${pane}=SETUP`],
        async (s) => {
          const enrolled = await outcome(lab, pane, `eval "$(${program("enroll")})"`);
          assert.deepEqual(enrolled, { lines: [`tmux-mcp: not enrolled: ${NO_PERL}`], status: 1 });
          const sourced = await outcome(lab, pane, `source ${s.setupFile}`);
          assert.deepEqual(sourced, { lines: [`tmux-mcp: not enrolled: ${NO_PERL}`], status: 1 });
          // Neither asked the server nor started a helper: one invitation, still pending.
          const capabilities = await s.call("tmux_capabilities");
          assert.deepEqual(capabilities.data.pending_invitations, [pane]);
          assert.deepEqual(capabilities.data.enrolled_panes, []);
          const shellPid = Number(
            await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{pane_pid}"),
          );
          assert.deepEqual(await childrenOf(shellPid), []);
        },
      );
    }),
});

Deno.test({
  name: "without an executable /usr/bin/perl, the server says so in one line and still serves",
  ignore: !ROOT,
  fn: () =>
    withLab(async (lab) => {
      const empty = `${lab.dir}/no-perl`;
      await Deno.writeTextFile(empty, "", { mode: 0o644 });
      const transport = new StdioClientTransport({
        command: "unshare",
        args: [
          "-m",
          "/bin/sh",
          "-c",
          `mount --bind "$0" ${PERL} && exec "$@"`,
          empty,
          Deno.execPath(),
          "run",
          "--allow-all",
          "--quiet",
          MAIN,
          "--socket-name",
          lab.socketName,
          "--enable-tool",
          "tmux_run",
        ],
        env: clientEnvironment(),
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Uint8Array) => {
        stderr += new TextDecoder().decode(chunk);
      });
      const client = new Client({ name: "first-contact-test", version: "1" });
      await client.connect(transport);
      try {
        const result = await client.callTool({ name: "tmux_capabilities", arguments: {} });
        const payload = JSON.parse((result.content as { text: string }[])[0].text);
        assert.equal(payload.ok, true);
      } finally {
        await client.close();
      }
      const lines = stderr.trimEnd().split("\n");
      assert.equal(lines.length, 2, stderr);
      assert.match(lines[0], /^tmux-mcp: bound to .*; to lend a pane to this server, type in it/);
      assert.equal(lines[1], `tmux-mcp: ${NO_PERL}`);
    }),
});
