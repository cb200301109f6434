// The enroll line an agent relays: tmux_capabilities' enroll_command is the exact line that lends
// a pane to *this* server, written with the absolute paths of the running program, so a person
// can type it in a zsh pane where neither `tmux-mcp` nor `deno` is on PATH. The not-enrolled
// refusal of tmux_run and the enroll_pane prompt quote the same line. The server runs as MCP
// clients start it (its own process over stdio, a bare environment).
import assert from "node:assert/strict";
import { typeInto, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { withStdioServer } from "./stdio_server.ts";

async function screenShows(lab: Parameters<typeof typeInto>[0], pattern: RegExp) {
  return await waitFor(`${pattern} on screen`, async () => {
    const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    return pattern.test(screen) ? screen : null;
  });
}

Deno.test("enroll_command, typed into a zsh pane with no deno on PATH, enrolls it", () =>
  withLab((lab) =>
    withStdioServer(
      { args: ["--socket-name", lab.socketName, "--enable-tool", "tmux_run"] },
      async ({ client, call }) => {
        // The pane is a person's fresh shell: neither program is on its PATH.
        await typeInto(lab, "command -v deno tmux-mcp || echo no-programs", true);
        await screenShows(lab, /^no-programs$/m);
        await waitForPrompt(lab);

        const capabilities = await call("tmux_capabilities");
        const line: string = capabilities.data.enroll_command;
        assert.match(line, /^eval "\$\(\/\S+ .*enroll --server \d+ --directory \/\S+\)"$/);
        const generation = capabilities.data.generation;
        const target = { kind: "pane", id: lab.pane, generation };

        const refused = await call("tmux_run", { target, script: "true" });
        assert.equal(refused.error.code, "unsupported");
        assert.ok(refused.error.message.includes(line), refused.error.message);
        const prompt = await client.getPrompt({
          name: "enroll_pane",
          arguments: { pane_id: lab.pane },
        });
        const content = prompt.messages[0].content;
        assert.ok(content.type === "text" && content.text.includes(`\n     ${line}\n`));

        await typeInto(lab, line, true);
        await screenShows(lab, /this pane is enrolled for tmux_run/);
        await waitForPrompt(lab);
        const after = await call("tmux_capabilities");
        assert.deepEqual(after.data.enrolled_panes.map((p: { pane_id: string }) => p.pane_id), [
          lab.pane,
        ]);
        const run = await call("tmux_run", { target, script: "echo lent" });
        assert.equal(run.ok, true, JSON.stringify(run));
        assert.equal(run.data.stdout.data, "lent\n");
      },
    )
  ));
