// Another machine: an MCP client starts the server over ssh (`ssh -T host tmux-mcp …` as its
// stdio command). Here the other machine is this one, reached through a real sshd that the test
// starts on a loopback port with its own host key, client key and config in a temp dir (root
// login by key allowed for this sshd only). Through that client: tools/list, a tool call, the
// remote server's enroll_command typed into a pane of the remote tmux, and one tmux_run. The
// test is skipped, saying why, where sshd cannot run; cleanup leaves no sshd, server or key.
import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "./test_deps.ts";
import {
  clientEnvironment,
  type Lab,
  type Payload,
  processExists,
  typeInto,
  waitFor,
  waitForPrompt,
  withLab,
} from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const SSHD = "/usr/sbin/sshd";

async function whySshCannotRun(): Promise<string | null> {
  if (Deno.uid() !== 0) return "the test logs in as root, and this process is not root";
  for (const program of [SSHD, "/usr/bin/ssh", "/usr/bin/ssh-keygen"]) {
    if (!await Deno.stat(program).then(() => true, () => false)) {
      return `${program} is missing (apt-get install openssh-server)`;
    }
  }
  return null;
}

const skipReason = await whySshCannotRun();
if (skipReason) console.warn(`tests/ssh_test.ts skipped: ${skipReason}`);

async function run(command: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" })
    .output();
  assert.equal(output.code, 0, `${command}: ${new TextDecoder().decode(output.stderr)}`);
}

function freeLoopbackPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

type Sshd = { port: number; clientKey: string };

/** A private sshd on 127.0.0.1, up until `fn` returns; then it is stopped and its files go. */
async function withSshd(fn: (sshd: Sshd) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-sshd-" });
  // sshd refuses to start without its privilege separation directory; made only if missing.
  const madeRunDir = await Deno.mkdir("/run/sshd", { mode: 0o755 }).then(() => true, () => false);
  let sshd: Deno.ChildProcess | null = null;
  try {
    await run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", `${dir}/host_key`);
    await run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", `${dir}/client_key`);
    await Deno.copyFile(`${dir}/client_key.pub`, `${dir}/authorized_keys`);
    const port = freeLoopbackPort();
    await Deno.writeTextFile(
      `${dir}/sshd_config`,
      [
        `HostKey ${dir}/host_key`,
        "ListenAddress 127.0.0.1",
        `AuthorizedKeysFile ${dir}/authorized_keys`,
        "StrictModes no",
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        `PidFile ${dir}/sshd.pid`,
        "",
      ].join("\n"),
    );
    sshd = new Deno.Command(SSHD, {
      args: ["-D", "-e", "-f", `${dir}/sshd_config`, "-p", String(port)],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const started = sshd;
    const exited = started.status.then(() => true);
    await waitFor("sshd to listen", async () => {
      if (await Promise.race([exited, Promise.resolve(false)])) throw new Error("sshd exited");
      const conn = await Deno.connect({ hostname: "127.0.0.1", port }).catch(() => null);
      conn?.close();
      return conn !== null;
    });
    await fn({ port, clientKey: `${dir}/client_key` });
  } finally {
    if (sshd) {
      sshd.kill("SIGTERM");
      await sshd.status;
    }
    await Deno.remove(dir, { recursive: true });
    if (madeRunDir) await Deno.remove("/run/sshd");
  }
}

/** An SDK client whose stdio server is `ssh … root@127.0.0.1 <deno> run -A main.ts <args>`. */
async function withSshClient(
  sshd: Sshd,
  lab: Lab,
  fn: (client: Client) => Promise<void>,
): Promise<void> {
  const transport = new StdioClientTransport({
    command: "ssh",
    args: [
      "-T",
      "-i",
      sshd.clientKey,
      "-p",
      String(sshd.port),
      "-o",
      "StrictHostKeyChecking=no",
      "-o",
      "UserKnownHostsFile=/dev/null",
      "-o",
      "LogLevel=ERROR",
      "-o",
      "BatchMode=yes",
      "root@127.0.0.1",
      Deno.execPath(),
      "run",
      "-A",
      MAIN,
      "--socket-name",
      lab.socketName,
      "--tmux",
      lab.tmux.bin,
      "--enable-tool",
      "tmux_run",
      // sshd gives the server root's real HOME: its journal would outlive the test.
      "--no-journal",
    ],
    env: clientEnvironment(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "ssh-test", version: "1" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the client could not connect over ssh: ${error}; stderr:\n${stderr}`);
  }
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent as Payload;
}

Deno.test({
  name: "a client starts the server over ssh, and a pane on the remote side enrolls and runs",
  ignore: skipReason !== null,
  fn: () =>
    withLab((lab) =>
      withSshd((sshd) =>
        withSshClient(sshd, lab, async (client) => {
          const { tools } = await client.listTools();
          const names = tools.map((tool) => tool.name);
          assert.ok(names.includes("tmux_run") && names.includes("list_panes"), names.join());

          const panes = await call(client, "list_panes");
          assert.ok(
            panes.data.panes.some((p: { pane_id: string }) => p.pane_id === lab.pane),
            JSON.stringify(panes),
          );

          const capabilities = await call(client, "tmux_capabilities");
          const line: string = capabilities.data.enroll_command;
          const serverPid = Number(/--server (\d+) --directory \/\S+\)"$/.exec(line)?.[1]);
          assert.ok(serverPid > 0, line);
          await typeInto(lab, line, true);
          await waitFor("the remote pane to be enrolled", async () => {
            const now = await call(client, "tmux_capabilities");
            return now.data.enrolled_panes.some((p: { pane_id: string }) => p.pane_id === lab.pane);
          });
          await waitForPrompt(lab);
          const run = await call(client, "tmux_run", {
            target: { kind: "pane", id: lab.pane, generation: capabilities.data.generation },
            script: "echo over ssh; echo to stderr >&2",
          });
          assert.equal(run.ok, true, JSON.stringify(run));
          assert.equal(run.data.stdout.data, "over ssh\n");
          assert.equal(run.data.stderr.data, "to stderr\n");
          await client.close();
          await waitFor(
            "the remote server to exit once the ssh session ends",
            async () => !await processExists(serverPid),
          );
        })
      )
    ),
});
