// tmux_run's refusals tell the agent what to do next, with the contract's codes unchanged: where
// the generation comes from, how a person enrolls a pane, that a busy line is transient, which
// stream an overflow came from with its limit and how to get the output anyway, and which
// deadline a script ran past.
import assert from "node:assert/strict";
import { ENROLL, enrolled, typeInto, waitFor, withLab, withServer } from "./harness.ts";

Deno.test(
  "a wrong generation says to take the top-level one from tmux_capabilities",
  enrolled(async (lab, s) => {
    const result = await s.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation: "0".repeat(32) },
      script: "true",
    });
    assert.equal(result.error.code, "stale_target");
    assert.match(result.error.message, /top-level generation from tmux_capabilities/);
    assert.match(result.error.message, /not an enrolled pane's enrollment_generation/);
  }),
);

Deno.test("a pane that is not enrolled is named, with the line a person types to enroll it", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const result = await s.run("true");
      assert.equal(result.error.code, "unsupported");
      assert.match(result.error.message, new RegExp(`^pane ${lab.pane} is not enrolled`));
      assert.ok(result.error.message.includes(s.server.context.enrollCommand ?? "no line"));
    })
  ));

Deno.test(
  "a line that is not idle says the condition is transient and when to retry",
  enrolled(async (lab, s) => {
    await typeInto(lab, "echo half");
    await waitFor(
      "the typed text",
      async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("echo half"),
    );
    const result = await s.run("true");
    assert.equal(result.error.code, "unsupported");
    assert.match(result.error.message, /transient: call again once the person's line is empty/);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-u");
  }),
);

Deno.test(
  "an overflow names the stream, its limit and the two ways to get the output",
  enrolled(async (_lab, s) => {
    const result = await s.run("yes | head -c 5000", { stdout_limit: 100 });
    assert.equal(result.error.code, "capacity");
    assert.match(result.error.message, /^stdout went over stdout_limit \(100 bytes\)/);
    assert.doesNotMatch(result.error.message, /stderr/);
    assert.match(result.error.message, /Raise stdout_limit \(up to 262144\)/);
    assert.match(result.error.message, /write the output to a file and read its tail/);
  }),
);

Deno.test(
  "an overflow on stderr names stderr and its limit, not stdout",
  enrolled(async (_lab, s) => {
    const result = await s.run("yes | head -c 5000 >&2", { stderr_limit: 50 });
    assert.equal(result.error.code, "capacity");
    assert.match(result.error.message, /^stderr went over stderr_limit \(50 bytes\)/);
    assert.doesNotMatch(result.error.message, /stdout/);
    assert.match(result.error.message, /Raise stderr_limit \(up to 262144\)/);
  }),
);

Deno.test(
  "a script past the deadline names the deadline and how to run longer work",
  enrolled(async (_lab, s) => {
    const result = await s.run("sleep 5");
    assert.equal(result.error.code, "deadline");
    assert.match(result.error.message, /ran past the run deadline \(1 s\)/);
    assert.match(result.error.message, /in the background with its output redirected to a file/);
  }, ["--run-timeout", "1"]),
);
