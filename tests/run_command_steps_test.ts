// run_command once its line was typed: whichever of its awaits fails (tmux not answering there,
// thrown at that very step through the module's seam), the answer says tmux_not_answering and
// possibly_sent, never a cancel nobody sent or a line not sent; an error no step names (a
// defect injected there) is server_fault, possibly sent.
import assert from "node:assert/strict";
import { type Lab, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { runCommandToolWith } from "../lib/tools/run_command.ts";
import type { RunStep } from "../lib/tools/_command_end.ts";
import { TmuxNotAnswering } from "../lib/tmux/tmux.ts";
import type { ServerContext } from "../lib/tools/context.ts";
import type { ToolPayload } from "../lib/mcp/tool_payload.ts";
import { isJsonObject } from "../lib/util/json_object.ts";

/**
 * Once the test made $HOME/hold, the shell draws its prompt after a command only when the test
 * puts $HOME/go there (taking it away), so every look of a run sees its end marker without the
 * prompt, and a run always reaches the await for the prompt, however slow the machine.
 */
const HELD_PROMPT = `precmd() {
  [[ -e $HOME/hold ]] || return 0
  while [[ ! -e $HOME/go ]]; do sleep 0.02; done
  rm -f $HOME/go
}`;

/**
 * The steps one run awaited, and its answer; `failAt` throws at that await (1-based), or at the
 * first await of that step. `release` lets the run's command finish: called when the run first
 * waits for output (a wake or the spotter), so its first look never sees the end.
 */
async function run(
  context: ServerContext,
  args: Record<string, unknown>,
  failAt: number | RunStep = 0,
  release: () => Promise<void> = () => Promise.resolve(),
  thrown: () => Error = () => new TmuxNotAnswering(),
): Promise<{ steps: RunStep[]; payload: ToolPayload }> {
  const steps: RunStep[] = [];
  const tool = runCommandToolWith(async (step, pending) => {
    steps.push(step);
    const fails = typeof failAt === "number"
      ? steps.length === failAt
      : step === failAt && steps.indexOf(step) === steps.length - 1;
    if (fails) throw thrown();
    if (step === "wake" || step === "spotted") await release();
    return await pending();
  });
  const payload = await tool.handle(context, args, { signal: new AbortController().signal });
  return { steps, payload };
}

/**
 * A command that waits for the test to let it finish ($HOME/release-N), prints its line and
 * exits 9.
 */
function held(lab: Lab, n: number) {
  return {
    args: {
      pane_id: lab.pane,
      command: `until [ -e ~/release-${n} ]; do sleep 0.02; done; echo round-${n}-ran; exit 9`,
    },
    release: () => Deno.writeTextFile(`${lab.dir}/home/release-${n}`, ""),
  };
}

/**
 * Lets round `n`'s command finish if nothing did yet, waits for its line, then lets the shell
 * draw its prompt.
 */
async function roundOver(lab: Lab, n: number): Promise<void> {
  await Deno.writeTextFile(`${lab.dir}/home/release-${n}`, "");
  await waitFor(
    `round ${n}'s output`,
    async () =>
      (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).split("\n")
        .some((line) => line.trimEnd() === `round-${n}-ran`),
  );
  await Deno.writeTextFile(`${lab.dir}/home/go`, "");
  await waitForPrompt(lab);
}

Deno.test("a throw at each await of run_command after typing says tmux_not_answering, possibly sent", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const context = s.server.context;
      await Deno.writeTextFile(`${lab.dir}/home/hold`, "");
      let round = 0;
      const first = held(lab, round);
      const traced = await run(context, first.args, 0, first.release);
      const data = traced.payload.ok ? traced.payload.data : null;
      assert.ok(isJsonObject(data) && data.exit_status === 9, JSON.stringify(traced.payload));
      await roundOver(lab, round++);
      // A run that times out reads the wider window once more.
      const slow = (n: number) => ({
        pane_id: lab.pane,
        command: `sleep 1; echo round-${n}-ran`,
        timeout: 0.3,
      });
      const timedOut = await run(context, slow(round));
      assert.ok(timedOut.steps.includes("wider look"), timedOut.steps.join(", "));
      await roundOver(lab, round++);

      const failed = new Set<RunStep>();
      const check = (steps: RunStep[], payload: ToolPayload, at: number) => {
        const said = JSON.stringify({ at, steps, payload });
        assert.equal(payload.ok, false, said);
        assert.ok(!payload.ok && payload.error.code === "tmux_not_answering", said);
        assert.ok(!payload.ok && payload.error.delivery === "possibly_sent", said);
        failed.add(steps[at - 1]);
      };
      // Every await of a held run, in turn, until a run ends before reaching that many.
      for (let at = 1;; at++) {
        const n = round++;
        const command = held(lab, n);
        const { steps, payload } = await run(context, command.args, at, command.release);
        await roundOver(lab, n);
        if (steps.length < at) break;
        check(steps, payload, at);
      }
      // The steps by name: a held run always waits for its prompt, a slow one reads wider.
      const atPrompt = held(lab, round);
      const prompt = await run(context, atPrompt.args, "prompt", atPrompt.release);
      await roundOver(lab, round++);
      check(prompt.steps, prompt.payload, prompt.steps.length);
      const atWider = await run(context, slow(round), "wider look");
      await roundOver(lab, round++);
      check(atWider.steps, atWider.payload, atWider.steps.length);
      // An error no step names, after typing, is said as the server's fault, possibly sent.
      const broken = held(lab, round);
      const defect = () => new TypeError("an injected defect");
      const fault = await run(context, broken.args, "look", broken.release, defect);
      await roundOver(lab, round++);
      const said = JSON.stringify(fault);
      assert.ok(!fault.payload.ok && fault.payload.error.code === "server_fault", said);
      assert.ok(!fault.payload.ok && fault.payload.error.delivery === "possibly_sent", said);
      assert.ok(!fault.payload.ok && fault.payload.error.message.includes("an injected defect"));

      assert.ok(
        failed.has("look") && failed.has("wider look") && failed.has("prompt"),
        [...failed].join(),
      );
      assert.ok(failed.has("wake") || failed.has("spotted"), [...failed].join());
    }), HELD_PROMPT));
