// Lending a pane from inside it: `eval "$(tmux-mcp enroll)"` asks the one running server with
// tmux_run for an invitation for $TMUX_PANE; `eval "$(tmux-mcp leave)"` takes the pane back.
// It says clearly when no server, or more than one, could take the pane.
import assert from "node:assert/strict";
import {
  type Lab,
  runDeno,
  typeInto,
  waitFor,
  waitForPrompt,
  withLab,
  withServer,
} from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

function program(subcommand: string): string {
  return `DENO_DIR='${DENO_DIR}' '${Deno.execPath()}' run -A --no-config '${MAIN}' ${subcommand}`;
}

async function typeAndSee(lab: Lab, command: string, pattern: RegExp): Promise<string> {
  await typeInto(lab, command, true);
  return await waitFor(`${pattern} on screen`, async () => {
    const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    return pattern.test(screen) ? screen : null;
  });
}

Deno.test("a person enrolls the pane they are in, runs happen, and leave takes it back", () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      await typeInto(lab, `eval "$(${program("enroll")})"`, true);
      await waitFor("the pane to be enrolled", () =>
        s.server.context.enrollments?.shells.has(lab.pane));
      await waitForPrompt(lab);
      const capabilities = await s.call("tmux_capabilities");
      assert.deepEqual(
        capabilities.data.enrolled_panes.map((p: { pane_id: string }) =>
          p.pane_id
        ),
        [lab.pane],
      );
      const panes = await s.call("list_panes");
      const listed = panes.data.panes.find((p: { pane_id: string }) => p.pane_id === lab.pane);
      assert.equal(listed.enrolled, true);
      const run = await s.run("echo lent");
      assert.equal(run.data.stdout.data, "lent\n");
      await typeAndSee(lab, `eval "$(${program("enroll")})"`, /nothing to do: this pane is alr/);
      await typeAndSee(lab, `eval "$(${program("leave")})"`, /no longer enrolled/);
      await waitFor("the enrollment to end", () =>
        !s.server.context.enrollments?.shells.has(lab.pane));
      const after = await s.run("echo gone");
      assert.equal(after.error.code, "unsupported");
      await typeAndSee(lab, 'zmodload -e zsh/net/socket; echo "sock""et=$?"', /socket=1/);
    })
  ));

Deno.test("leave keeps zsh/net/socket loaded when the shell had loaded it itself", () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      await typeInto(lab, `eval "$(${program("enroll")})"`, true);
      await waitFor("the pane to be enrolled", () =>
        s.server.context.enrollments?.shells.has(lab.pane));
      await typeAndSee(lab, `eval "$(${program("leave")})"`, /no longer enrolled/);
      await typeAndSee(lab, 'zmodload -e zsh/net/socket; echo "sock""et=$?"', /socket=0/);
    }), "zmodload zsh/net/socket"));

Deno.test("the startup line gives this server's exact enroll line, and typing it enrolls", () =>
  withLab(async (lab) => {
    const server = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "--socket-name", lab.socketName, "--enable-tool", "tmux_run"],
      stdin: "piped",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let line = "";
      while (!line.includes("\n")) {
        const { value, done } = await stderr.read();
        if (done) break;
        line += value;
      }
      const enroll = /; to lend a pane to this server, type in it: (eval .*)$/m.exec(line)?.[1];
      assert.ok(enroll, line);
      assert.match(enroll, new RegExp(`enroll --server ${server.pid} --directory /\\S+\\)"$`));
      await typeAndSee(lab, enroll, /this pane is enrolled for tmux_run/);
    } finally {
      await server.stdin.close();
      await stderr.cancel();
      await server.status;
    }
  }));

Deno.test("tmux-mcp installed the Deno way enrolls with the README's line", () =>
  withLab(async (lab) => {
    const root = `${lab.dir}/deno-root`;
    const installed = await runDeno(["install", "-g", "-A", "-n", "tmux-mcp", MAIN], {
      DENO_INSTALL_ROOT: root,
    });
    assert.equal(installed.code, 0, installed.stderr);
    // The installed script runs `deno` by name: the README's way has one on PATH (npm install
    // -g deno). A fresh machine has only the one npx runs, so the pane gets that one by name.
    const denoOnPath = `${lab.dir}/deno-on-path`;
    await Deno.mkdir(denoOnPath);
    await Deno.symlink(Deno.execPath(), `${denoOnPath}/deno`);
    await withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      await typeInto(
        lab,
        `PATH='${root}/bin:${denoOnPath}':$PATH; eval "$(tmux-mcp enroll)"`,
        true,
      );
      await waitFor(
        "the pane to be enrolled",
        () => s.server.context.enrollments?.shells.has(lab.pane),
      );
      await typeAndSee(lab, 'eval "$(tmux-mcp leave)"', /no longer enrolled/);
    });
  }));

Deno.test("enroll says so when no server with tmux_run is bound to this tmux", () =>
  withLab(async (lab) => {
    await withServer(lab, [], async () => {
      const screen = await typeAndSee(lab, `${program("enroll")}; echo "rc=$?"`, /rc=\d/);
      assert.match(screen, /no running server with tmux_run enabled is bound to this tmux server/);
      assert.match(screen, /rc=1/);
    });
  }));

Deno.test("enroll asks to pick one when several servers are bound, and --server picks it", () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      const other = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "--socket-name", lab.socketName, "--enable-tool", "tmux_run"],
        stdin: "piped",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = other.stderr.getReader();
      try {
        await stderr.read();
        const screen = await typeAndSee(lab, `${program("enroll")}; echo "rc=$?"`, /rc=\d/);
        assert.match(
          screen,
          /several servers are bound to this tmux server; pick one with --server PID/,
        );
        assert.match(screen, new RegExp(`\\b${other.pid}\\b`));
        await typeInto(lab, "clear", true);
        await typeInto(lab, `eval "$(${program(`enroll --server ${Deno.pid}`)})"`, true);
        await waitFor("the pane to be enrolled", () =>
          s.server.context.enrollments?.shells.has(lab.pane));
      } finally {
        await other.stdin.close();
        stderr.releaseLock();
        await other.stderr.cancel();
        await other.status;
      }
    })
  ));
