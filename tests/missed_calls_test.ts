// A call the client gave up on is not lost to its model: the client cancels a running tmux_run
// (as Codex does when its tool_timeout_sec passes), the server stops the script, and the next
// answer on that connection opens with one line naming the run and how it ended, once.
import assert from "node:assert/strict";
import { ENROLL, MISSED_LEAD, waitFor, withLab, withServer } from "./harness.ts";
import { processExists } from "../lib/host/processes.ts";

/** The text content of a raw tools/call on `s.client`. */
function textOf(result: { content?: unknown }): string {
  const [first] = Array.isArray(result.content) ? result.content : [];
  return typeof first?.text === "string" ? first.text : "";
}

Deno.test("the next answer after a cancelled tmux_run names the run and how it ended, once", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      await s.enroll();
      const pidFile = `${lab.dir}/sh.pid`;
      const abort = new AbortController();
      const pending = s.call("tmux_run", {
        target: { kind: "pane", id: lab.pane, generation: s.generation },
        script: `echo $$ > '${pidFile}'; sleep 60`,
      }, abort.signal);
      pending.catch(() => {});
      const pid = Number(
        await waitFor("the script to start", () => Deno.readTextFile(pidFile).catch(() => "")),
      );
      abort.abort();
      await assert.rejects(pending);
      await waitFor("the script to be stopped", async () => !await processExists(pid));

      // The cancelled call's answer is made once its run is stopped: the first answer after
      // that carries the note.
      let noted = "";
      let structured: unknown = null;
      await waitFor("an answer with the note", async () => {
        const result = await s.client.callTool({ name: "tmux_capabilities", arguments: {} });
        noted = textOf(result);
        structured = result.structuredContent;
        return MISSED_LEAD.test(noted);
      });
      const [lead] = noted.split("\n", 1);
      const capabilities = await s.call("tmux_capabilities");
      const runId: string = capabilities.data.recent_runs[0].run_id;
      assert.match(
        lead,
        new RegExp(
          `^note: your client cancelled or timed out a call whose answer it never took; they ` +
            `ended: tmux_run after \\d+\\.\\d s: error cancelled \\(delivery: possibly_sent\\), ` +
            `run ${runId} (signaled \\d+|exited \\d+|completion unobserved)\\. ` +
            "tmux_capabilities.recent_runs keeps each tmux_run's receipt\\.$",
        ),
      );
      // The contract's payload is untouched: only the text leads with the note.
      assert.equal(JSON.stringify(structured).includes("note: your client"), false);

      const after = await s.client.callTool({ name: "tmux_capabilities", arguments: {} });
      assert.equal(MISSED_LEAD.test(textOf(after)), false, "the note is said once");
    })
  ));
