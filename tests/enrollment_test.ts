// Enrollment is consent: the setup file is private, exclusive and short-lived, and `source` is
// refused (status 1, one line, shell unchanged) anywhere but the pane's own interactive zsh.
import assert from "node:assert/strict";
import { parseCommandLine } from "../lib/server/config.ts";
import { tmuxCapabilitiesTool } from "../lib/tools/tmux_capabilities.ts";
import { startServer, StartupError } from "../lib/server/server.ts";
import { encodeFrame, readFrames } from "../lib/run/frames.ts";
import { sourceInPane } from "../lib/cli/private_lab.ts";
import {
  type Lab,
  splitPane,
  typeInto,
  waitFor,
  waitForPrompt,
  withLab,
  withServer,
  zshCommand,
} from "./harness.ts";

const ENROLL = ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP"];

async function screen(lab: Lab): Promise<string> {
  return await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
}

/** Types `command` at the prompt and returns the screen once `marker` shows up. */
async function typeAndWait(lab: Lab, command: string, marker: string): Promise<string> {
  await typeInto(lab, command, true);
  return await waitFor(`"${marker}" on screen`, async () => {
    const text = await screen(lab);
    return text.includes(marker) ? text : null;
  });
}

const LEFTOVERS =
  `echo "le""ft:$(typeset +m '_tmux_mcp*' | wc -l):$(functions +m '_tmux_mcp*' | wc -l):$(zmodload | grep -c net/socket)"`;

Deno.test("the setup file is one line, mode 0600, and gone after enrollment", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const info = await Deno.lstat(s.setupFile);
      assert.equal((info.mode ?? 0) & 0o777, 0o600);
      const channel = await Deno.lstat(s.server.context.enrollments?.channelPath ?? "");
      assert.equal((channel.mode ?? 0) & 0o777, 0o600, "the channel socket is 0600");
      const text = await Deno.readTextFile(s.setupFile);
      assert.equal(text.split("\n").length, 2);
      assert.ok(text.startsWith('[ -n "${ZSH_VERSION-}" ] || '), "bash and dash are told first");
      assert.match(text, /; source '[^']*\/helper\.sh' /);
      await s.enroll();
      await assert.rejects(Deno.lstat(s.setupFile));
      const capabilities = await s.call("tmux_capabilities");
      assert.deepEqual(
        capabilities.data.enrolled_panes.map((p: { pane_id: string }) => p.pane_id),
        [
          lab.pane,
        ],
      );
    })
  ));

Deno.test("the setup file is removed at shutdown and at expiry", () =>
  withLab(async (lab) => {
    let setup = "";
    await withServer(lab, ENROLL, async (s) => {
      setup = s.setupFile;
      await Deno.lstat(setup);
    });
    await assert.rejects(Deno.lstat(setup), "removed at shutdown");
    await withServer(lab, [...ENROLL, "--enrollment-timeout", "1"], async (s) => {
      await waitFor("the setup file to expire", () =>
        Deno.lstat(s.setupFile).then(() => false, () => true));
      const capabilities = await s.call("tmux_capabilities");
      assert.deepEqual(capabilities.data.pending_invitations, []);
    });
  }));

Deno.test("startup fails when the setup path exists, as a file or a symlink, and leaves nothing", () =>
  withLab(async (lab) => {
    const fresh = `${lab.dir}/fresh`;
    await lab.tmuxCmd("split-window", "-t", lab.pane);
    for (
      const make of [
        (path: string) => Deno.writeTextFile(path, "theirs"),
        (path: string) => Deno.symlink(`${lab.dir}/nowhere`, path),
      ]
    ) {
      const taken = `${lab.dir}/taken`;
      await make(taken);
      const parsed = parseCommandLine([
        "--socket-name",
        lab.socketName,
        "--enable-tool",
        "tmux_run",
        "--enroll-pane",
        `%0=${fresh}`,
        "--enroll-pane",
        `%1=${taken}`,
      ], {});
      assert.ok("config" in parsed);
      await assert.rejects(startServer(parsed.config), StartupError);
      await assert.rejects(Deno.lstat(fresh), "the file written first is removed");
      const kept = await Deno.lstat(taken);
      assert.ok(kept.isFile || kept.isSymlink, "the existing path is untouched");
      await Deno.remove(taken);
    }
  }));

Deno.test("a nested zsh is refused with status 1 and left as it was", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      await typeInto(lab, "zsh -i", true);
      await waitFor("the nested zsh", async () =>
        await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_current_command}") ===
          "zsh" && (await screen(lab)).trimEnd().endsWith("lab#"));
      const text = await typeAndWait(lab, `source ${s.setupFile}; echo "sta""tus=$?"`, "status=");
      assert.match(text, /not enrolled: source it in the pane's own shell/);
      assert.match(text, /status=1/);
      assert.equal(s.server.context.enrollments?.shells.size, 0);
      const left = await typeAndWait(lab, LEFTOVERS, "left:");
      assert.match(left, /left:0:0:0/);
      await typeInto(lab, "exit", true);
      await waitForPrompt(lab);
      await s.enroll();
    })
  ));

Deno.test("a non-interactive zsh is refused", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const text = await typeAndWait(
        lab,
        `zsh -c 'source ${s.setupFile}; echo "sta""tus=$?"'`,
        "status=",
      );
      assert.match(text, /not enrolled: this is not an interactive shell/);
      assert.match(text, /status=1/);
    })
  ));

Deno.test("an enrolled shell refuses a second enrollment", () =>
  withLab(async (lab) => {
    await lab.tmuxCmd("split-window", "-t", lab.pane);
    const second = `${lab.dir}/second-setup`;
    await withServer(lab, [...ENROLL, "--enroll-pane", `%1=${second}`], async (s) => {
      await s.enroll();
      const text = await typeAndWait(lab, `source ${second}; echo "sta""tus=$?"`, "status=");
      assert.match(text, /nothing to do: this shell is already enrolled/);
      assert.match(text, /status=1/);
      assert.equal(s.server.context.enrollments?.shells.size, 1);
      const run = await s.run("echo still");
      assert.equal(run.data.stdout.data, "still\n");
    });
  }));

Deno.test("tmux older than 3.3 makes tmux_run unsupported and enrollment is refused", () =>
  withLab(async (lab) => {
    const fakeTmux = `${lab.dir}/old-tmux`;
    await Deno.writeTextFile(
      fakeTmux,
      `#!/bin/sh\nfor a; do [ "$a" = -V ] && { echo "tmux 3.2a"; exit 0; }; done\nexec tmux "$@"\n`,
    );
    await Deno.chmod(fakeTmux, 0o755);
    await withServer(lab, [...ENROLL, "--tmux", fakeTmux], async (s) => {
      const capabilities = await s.call("tmux_capabilities");
      assert.equal(capabilities.data.authored_run.availability, "unsupported");
      const text = await typeAndWait(lab, `source ${s.setupFile}; echo "sta""tus=$?"`, "status=");
      assert.match(text, /tmux 3.3 or newer is required/);
      assert.match(text, /status=1/);
    });
  }));

Deno.test("the shell retires its enrollment when the server goes, and can enroll again", () =>
  withLab(async (lab) => {
    await withServer(lab, ENROLL, async (s) => {
      await s.enroll();
    });
    let probe = 0;
    await waitFor("the shell to retire", async () => {
      probe++;
      const marker = `probe${probe}:`;
      const text = await typeAndWait(
        lab,
        LEFTOVERS.replace('"le""ft:', `"pro""be${probe}:`),
        marker,
      );
      return text.includes(`${marker}0:0:0`);
    });
    await withServer(lab, ENROLL, async (s) => {
      await s.enroll();
      const run = await s.run("echo again");
      assert.equal(run.data.stdout.data, "again\n");
    });
  }));

Deno.test("a setup file replaced by someone else is not removed at expiry", () =>
  withLab((lab) =>
    withServer(lab, [...ENROLL, "--enrollment-timeout", "1"], async (s) => {
      await Deno.remove(s.setupFile);
      await Deno.writeTextFile(s.setupFile, "someone else's file\n");
      await waitFor("the invitation to expire", async () =>
        (await s.call("tmux_capabilities")).data.pending_invitations.length === 0);
      assert.equal(await Deno.readTextFile(s.setupFile), "someone else's file\n");
    })
  ));

Deno.test("tmux_capabilities answers without starting a tmux server", () =>
  withLab(async (lab) => {
    const parsed = parseCommandLine(["--socket-name", `${lab.socketName}-absent`], {});
    assert.ok("config" in parsed);
    const server = await startServer(parsed.config);
    try {
      const payload = await tmuxCapabilitiesTool.handle(server.context, {}, {
        signal: new AbortController().signal,
      });
      assert.ok(payload.ok);
      const data = payload.data as { tmux: { running: boolean; pid: null } };
      assert.equal(data.tmux.running, false);
      assert.equal(data.tmux.pid, null);
      await assert.rejects(Deno.lstat(`/tmp/tmux-${Deno.uid()}/${lab.socketName}-absent`));
    } finally {
      await server.close();
    }
  }));

Deno.test("a shell that exits is no longer listed, even if its background job keeps the channel", () =>
  withLab(async (lab) => {
    const second = await splitPane(lab, "--", ...zshCommand(lab.dir));
    await waitForPrompt({ ...lab, pane: second });
    await withServer(
      lab,
      ["--enable-tool", "tmux_run", "--enroll-pane", `${second}=SETUP`],
      async (s) => {
        await s.enroll(second);
        const pidFile = `${lab.dir}/job.pid`;
        await lab.tmuxCmd(
          "send-keys",
          "-t",
          second,
          "-l",
          `sleep 30 &! echo $! > '${pidFile}'; exit`,
        );
        await lab.tmuxCmd("send-keys", "-t", second, "Enter");
        const pid = Number(
          await waitFor("the job's pid", () => Deno.readTextFile(pidFile).catch(() => "")),
        );
        try {
          await waitFor(
            "the pane to close",
            async () =>
              !(await lab.tmuxCmd("list-panes", "-a", "-F", "#{pane_id}")).split("\n").includes(
                second,
              ),
          );
          const capabilities = await s.call("tmux_capabilities");
          assert.deepEqual(capabilities.data.enrolled_panes, []);
        } finally {
          Deno.kill(pid, "SIGKILL");
        }
      },
    );
  }));

Deno.test("a zsh that is not 5.9 is refused (the version as the shell reports it)", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      for (const version of ["5.8.1", "5.10"]) {
        const text = await typeAndWait(
          lab,
          `() { local ZSH_VERSION=${version}; source ${s.setupFile}; echo "sta""tus-${version}=$?" }`,
          `status-${version}=`,
        );
        assert.match(text, /not enrolled: zsh 5.9 is required/);
        assert.match(text, new RegExp(`status-${version.replace(".", "\\.")}=1`));
      }
      assert.equal(s.server.context.enrollments?.shells.size, 0);
      await s.enroll();
    })
  ));

/** The first process whose parent is `parent`, from /proc. */
async function childOf(parent: number): Promise<number | null> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    if (stat && Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent) {
      return Number(entry.name);
    }
  }
  return null;
}

Deno.test("a same-user process with the token cannot stand in for the helper", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const words = [...(await Deno.readTextFile(s.setupFile)).matchAll(/'([^']*)'/g)];
      const [channel, token] = [words[1][1], words[2][1]];
      const shellPid = Number(
        await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid}"),
      );
      // A child of the enrolled shell that is not its helper, whose pid the rogue claims.
      await typeInto(lab, "sleep 60 &", true);
      const decoy = await waitFor("the shell's child", () => childOf(shellPid));
      try {
        await typeInto(lab, "clear", true);
        await waitForPrompt(lab);
        // The rogue says hello before the real helper exists, and even opens the file the
        // challenge names itself: the kernel shows that the claimed pid does not hold it.
        const rogue = await Deno.connect({ transport: "unix", path: channel });
        const frames = readFrames(rogue);
        const writer = rogue.writable.getWriter();
        await writer.write(encodeFrame({ type: "hello", token, pid: decoy }));
        const challenge = await frames.next();
        assert.equal(challenge.done, false);
        assert.deepEqual(challenge.value!.header, { type: "prove" });
        const path = new TextDecoder().decode(challenge.value!.body);
        const held = await Deno.open(path, { read: true });
        await writer.write(encodeFrame({ type: "proved" }));
        const after = await Promise.race([
          frames.next(),
          new Promise((resolve) => setTimeout(() => resolve({ done: false }), 5000)),
        ]);
        assert.deepEqual(after, { done: true, value: undefined }, "the rogue was not refused");
        held.close();
        await writer.close().catch(() => {});
        await s.enroll();
        const helperPid = s.server.context.enrollments!.shells.get(lab.pane)!.helperPid;
        assert.notEqual(helperPid, decoy);
        const result = await s.run("echo real");
        assert.equal(result.data.stdout.data, "real\n");
        assert.doesNotMatch(await screen(lab), /broken pipe/);
      } finally {
        Deno.kill(decoy, "SIGKILL");
      }
    })
  ));

Deno.test("a refused 9th enrollment says why and its setup and proof files are gone at once", () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      const enrollments = s.server.context.enrollments!;
      const panes = [lab.pane];
      while (panes.length < 9) {
        panes.push(
          await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", ...zshCommand(lab.dir)),
        );
      }
      const setupFor = (pane: string) => `${lab.dir}/setup-${pane.slice(1)}`;
      for (const pane of panes) await waitForPrompt({ ...lab, pane });
      for (const pane of panes.slice(0, 8)) {
        await enrollments.invite(pane, setupFor(pane));
        await sourceInPane(lab, setupFor(pane), pane);
        await waitFor(`pane ${pane} to be enrolled`, () => enrollments.shells.has(pane));
      }
      const ninth = panes[8];
      await enrollments.invite(ninth, setupFor(ninth));
      // The source command's fourth word (after `source`, the script and the channel) is the
      // token; the proof file the server made for this invitation comes after it.
      const line = await Deno.readTextFile(setupFor(ninth));
      const proofPath = line.slice(line.indexOf("; source ") + 2).split(" ")[4].replaceAll(
        "'",
        "",
      );
      await Deno.lstat(proofPath);
      const text = await typeAndWait(
        { ...lab, pane: ninth },
        `source ${setupFor(ninth)}; echo "sta""tus=$?"`,
        "status=",
      );
      assert.match(text, /tmux-mcp: not enrolled: every enrollment slot of the server is in use/);
      assert.match(text, /take another pane back \(eval "\$\(tmux-mcp leave\)" there\)/);
      assert.match(text, /status=1/);
      await assert.rejects(Deno.lstat(setupFor(ninth)), "the setup file is left behind");
      await assert.rejects(Deno.lstat(proofPath), "the proof file is left behind");
      assert.deepEqual(enrollments.pendingInvitations(), []);
      assert.equal(enrollments.shells.size, 8);
      assert.ok(!enrollments.shells.has(ninth));
    })
  ));
