// The error table of the tmux_run contract (../shared/spec/tmux_run.md §4), one row per test
// case: each row builds the RunFailure its phase throws (lib/tools/tmux_run.ts) with the
// evidence that phase holds, and checks the derived delivery and effects, and that the payload
// is a valid tmux_run result. `effects` is derived from evidence, so no row can claim more.
import assert from "node:assert/strict";
import type { Completion } from "./frames.ts";
import { failurePayload, type Receipt, RunFailure, type RunFailureCode } from "./run_outcome.ts";
import { schemas } from "./contract.ts";
import { ajvAccepts, validationErrors } from "../../tests/schema_oracle.ts";
import { POLICY_DENIED, refusal } from "../mcp/tool_payload.ts";

const RECEIPT: Receipt = {
  state: "authorized",
  run_id: "0123456789abcdef0123456789abcdef",
  script_digest: "e".repeat(64),
  server_generation: "gen-1",
  pane_id: "%3",
  enrollment_generation: "1".repeat(32),
  process_generation: "2".repeat(32),
};
const EXITED: Completion = { state: "exited", exit_status: 0, signal: null };
const SIGNALED: Completion = { state: "signaled", exit_status: null, signal: 15 };

type Row = {
  stage: "gate" | "prepare" | "authorize" | "execute" | "after";
  condition: string;
  code: RunFailureCode;
  delivery: "not_sent" | "possibly_sent" | "observed";
  /** What the phase holds when it fails. */
  receipt?: boolean;
  completion?: Completion;
  atGate?: boolean;
  /** The contract's effects.state column; "absent" means no effects key at all. */
  effects: "absent" | "none" | "unknown" | "known";
};

const TABLE: Row[] = [
  {
    stage: "gate",
    condition: "script > 65536 bytes, NUL, lone surrogate",
    code: "invalid_input",
    delivery: "not_sent",
    atGate: true,
    effects: "absent",
  },
  {
    stage: "gate",
    condition: "already cancelled",
    code: "cancelled",
    delivery: "not_sent",
    effects: "none",
  },
  ...([
    ["response reservation exceeded", "capacity"],
    ["generation mismatch", "stale_target"],
    ["pane not enrolled", "unsupported"],
    ["another run on that shell / server run capacity full", "capacity"],
    ["shell process gone", "stale_target"],
    ["shell stayed busy until the deadline", "deadline"],
    ["editor not idle and empty", "unsupported"],
    ["helper identity mismatch", "transport_error"],
    ["cancelled before the commit point", "cancelled"],
  ] as const).map(([condition, code]): Row => ({
    stage: "prepare",
    condition,
    code,
    delivery: "not_sent",
    effects: "none",
  })),
  {
    stage: "authorize",
    condition: "predicate false",
    code: "stale_target",
    delivery: "not_sent",
    effects: "none",
  },
  {
    stage: "authorize",
    condition: "guard client timed out in flight",
    code: "deadline",
    delivery: "possibly_sent",
    effects: "unknown",
  },
  {
    stage: "authorize",
    condition: "guard client cancelled in flight",
    code: "cancelled",
    delivery: "possibly_sent",
    effects: "unknown",
  },
  {
    stage: "authorize",
    condition: "shell gone right after the guard",
    code: "stale_target",
    delivery: "observed",
    receipt: true,
    effects: "known",
  },
  ...([
    ["output overflow", "capacity"],
    ["script too slow", "deadline"],
    ["cancelled (MCP notifications/cancelled)", "cancelled"],
    ["digest mismatch, malformed frame, identity mismatch", "transport_error"],
    ["channel closed while reading the result", "closed"],
  ] as const).map(([condition, code]): Row => ({
    stage: "execute",
    condition,
    code,
    delivery: "possibly_sent",
    receipt: true,
    effects: "known",
  })),
  // Not rows of the contract's table: its rule "after the commit point, the failure's own
  // knowledge" (§4). The helper knows nothing ran when sh could not start.
  ...([
    ["the helper cannot enter the shell's directory", "unsupported"],
    ["the system refuses the helper a fork, pipe or memory", "capacity"],
    ["/bin/sh cannot be started", "unsupported"],
    ["the helper is leaving", "closed"],
  ] as const).map(([condition, code]): Row => ({
    stage: "execute",
    condition,
    code,
    delivery: "not_sent",
    receipt: true,
    effects: "known",
  })),
  {
    stage: "execute",
    condition: "cancelled, and the helper confirmed how sh ended",
    code: "cancelled",
    delivery: "possibly_sent",
    receipt: true,
    completion: SIGNALED,
    effects: "known",
  },
  {
    stage: "after",
    condition: "drain window exceeded after the native completion was read",
    code: "deadline",
    delivery: "observed",
    receipt: true,
    completion: EXITED,
    effects: "known",
  },
];

for (const row of TABLE) {
  Deno.test(`${row.stage}: ${row.condition} → ${row.code}, ${row.delivery}, ${row.effects}`, () => {
    const failure = new RunFailure({
      code: row.code,
      message: "a fixed message",
      delivery: row.delivery,
      receipt: row.receipt ? RECEIPT : null,
      completion: row.completion ?? null,
      atGate: row.atGate ?? false,
    });
    const payload = failurePayload(failure);
    assert.ok(!payload.ok);
    assert.equal(payload.error.code, row.code);
    assert.equal(payload.error.delivery, row.delivery);
    assert.equal(payload.error.message, "a fixed message");
    if (row.effects === "absent") {
      assert.ok(!("effects" in payload.error), "gate failures carry no effects");
    } else {
      assert.deepEqual(payload.error.effects, {
        state: row.effects,
        authorization: row.receipt ? RECEIPT : null,
        completion: row.completion ?? { state: "unobserved" },
      });
    }
    assert.ok(
      ajvAccepts(schemas.tmuxRunOutput, payload),
      validationErrors(schemas.tmuxRunOutput, payload),
    );
  });
}

Deno.test("gate refusals outside tmux_run's handler are valid results without effects", () => {
  for (const payload of [POLICY_DENIED, refusal("closed", "the server is shutting down")]) {
    assert.ok(!payload.ok);
    assert.equal(payload.error.delivery, "not_sent");
    assert.ok(!("effects" in payload.error));
    assert.ok(
      ajvAccepts(schemas.tmuxRunOutput, payload),
      validationErrors(schemas.tmuxRunOutput, payload),
    );
  }
});

Deno.test("a receipt makes effects known whatever the delivery", () => {
  for (const delivery of ["not_sent", "possibly_sent", "observed"] as const) {
    const payload = failurePayload(
      new RunFailure({ code: "closed", message: "m", delivery, receipt: RECEIPT }),
    );
    assert.ok(!payload.ok);
    assert.equal((payload.error.effects as { state: string }).state, "known");
  }
});

Deno.test("a failure is not_sent with no effects evidence unless told otherwise", () => {
  const failure = new RunFailure({ code: "unsupported", message: "m" });
  assert.equal(failure.delivery, "not_sent");
  assert.equal(failure.receipt, null);
  assert.equal(failure.completion, null);
  assert.equal(failure.atGate, false);
  assert.ok(failure instanceof Error);
  assert.equal(failure.message, "m");
});
