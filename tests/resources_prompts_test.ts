// Resources read tmux when read; prompts are text only. Both stay available with no tools
// selected at all.
import assert from "node:assert/strict";
import { withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

const NO_TOOLS = { LIBTMUX_TOOLSETS: "" };

/** The text of a resource's contents or a prompt message's content (the SDK types a union). */
function textOf(part: object): string {
  assert.ok("text" in part && typeof part.text === "string", "the part carries no text");
  return part.text;
}

Deno.test("with no tools selected, resources read tmux and prompts answer", () =>
  withLab((lab) =>
    withGeneral(lab, { env: NO_TOOLS }, async (s) => {
      assert.deepEqual((await s.client.listTools()).tools, []);
      const listed = await s.client.listResources();
      // Beside tmux's, the skill for agents (tests/skills_test.ts reads it).
      assert.deepEqual(listed.resources.map((r: { uri: string }) => r.uri), [
        "tmux://sessions",
        "skill://tmux-mcp/SKILL.md",
      ]);
      const templates = await s.client.listResourceTemplates();
      assert.deepEqual(
        templates.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate),
        [
          "tmux://sessions/{session}/windows",
          "tmux://panes/{pane_id}",
          "tmux://panes/{pane_id}/content",
          "skill://{+path}",
        ],
      );
      const sessions = await s.client.readResource({ uri: "tmux://sessions" });
      const data = JSON.parse(textOf(sessions.contents[0]));
      assert.deepEqual(data.sessions.map((x: { session_id: string }) => x.session_id), ["$0"]);
      const windows = await s.client.readResource({ uri: "tmux://sessions/%240/windows" });
      assert.equal(JSON.parse(textOf(windows.contents[0])).windows.length, 1);
      const pane = await s.client.readResource({
        uri: `tmux://panes/${encodeURIComponent(lab.pane)}`,
      });
      assert.equal(JSON.parse(textOf(pane.contents[0])).pane.pane_id, lab.pane);
      const content = await s.client.readResource({
        uri: `tmux://panes/${encodeURIComponent(lab.pane)}/content`,
      });
      assert.equal(content.contents[0].mimeType, "text/plain");
      assert.match(textOf(content.contents[0]), /lab#/);
      await assert.rejects(s.client.readResource({ uri: "tmux://panes/%2599/content" }));
      await assert.rejects(s.client.readResource({ uri: "tmux://elsewhere" }));
      await assert.rejects(
        s.client.readResource({ uri: "tmux://sessions/a.b/windows" }),
        (error: { code?: number; message?: string }) =>
          error.code === -32602 && /session_name/.test(error.message ?? ""),
        "a URI whose session name the tool refuses is invalid params, naming the field",
      );
      const prompts = await s.client.listPrompts();
      assert.deepEqual(prompts.prompts.map((p: { name: string }) => p.name).sort(), [
        "diagnose_failing_pane",
        "enroll_pane",
        "run_and_wait",
      ]);
    })
  ));

Deno.test("prompts answer without contacting tmux, even when no server is running", () =>
  withLab(async (lab) => {
    await lab.tmuxCmd("kill-server");
    await withGeneral(lab, {}, async (s) => {
      const run = await s.client.getPrompt({ name: "run_and_wait", arguments: { pane_id: "%4" } });
      const text = textOf(run.messages[0].content);
      assert.match(text, /run_command/);
      assert.match(text, /tmux_run/);
      const enroll = await s.client.getPrompt({ name: "enroll_pane", arguments: {} });
      assert.match(textOf(enroll.messages[0].content), /--enroll-pane %N=FILE/);
      const inPane = await s.client.getPrompt({
        name: "enroll_pane",
        arguments: { pane_id: "%2" },
      });
      const steps = textOf(inPane.messages[0].content);
      assert.match(
        steps,
        /In pane %2, at an idle zsh 5\.9 prompt, the person types:\n +eval "\$\(tmux-mcp enroll\)"/,
      );
      assert.match(steps, /deno install -g -A -n tmux-mcp/);
      assert.match(steps, /eval "\$\(tmux-mcp leave\)"/);
      const diagnose = await s.client.getPrompt({
        name: "diagnose_failing_pane",
        arguments: { pane_id: "%1" },
      });
      assert.match(textOf(diagnose.messages[0].content), /untrusted/);
      await assert.rejects(s.client.getPrompt({ name: "diagnose_failing_pane", arguments: {} }));
      await assert.rejects(s.client.readResource({ uri: "tmux://sessions" }));
    });
  }));
