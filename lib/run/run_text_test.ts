// tmux_run's result in words: the outcome first and last, the outputs line by line between.
import assert from "node:assert/strict";
import { runResultText } from "./run_text.ts";
import { encodeOutput } from "./output_encoding.ts";
import { failurePayload, type Receipt, RunFailure } from "./run_outcome.ts";

const RECEIPT: Receipt = {
  state: "authorized",
  run_id: "a".repeat(32),
  script_digest: "d".repeat(64),
  server_generation: "g".repeat(32),
  pane_id: "%4",
  enrollment_generation: "e".repeat(32),
  process_generation: "p".repeat(32),
};

function success(stdout: Uint8Array, stderr: Uint8Array, completion: object) {
  return {
    ok: true as const,
    data: {
      target: { kind: "pane", id: "%4", generation: RECEIPT.server_generation },
      authorization: RECEIPT,
      completion,
      stdout: encodeOutput(stdout),
      stderr: encodeOutput(stderr),
    },
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("a run's text leads with its exit, run id, digest and byte counts", () => {
  const text = runResultText(
    success(bytes("one\ntwo"), bytes("warn\n"), { state: "exited", exit_status: 3, signal: null }),
  ).join("");
  const lines = text.split("\n");
  assert.deepEqual(lines.slice(0, 4), [
    "exited 3",
    `run ${RECEIPT.run_id} in pane %4, script sha256 ${RECEIPT.script_digest}`,
    `authorized: server_generation ${RECEIPT.server_generation}, enrollment_generation ` +
    `${RECEIPT.enrollment_generation}, process_generation ${RECEIPT.process_generation}`,
    "stdout: 7 bytes utf-8; stderr: 5 bytes utf-8",
  ]);
  assert.deepEqual(lines.slice(4), [
    "--- stdout: 7 bytes utf-8 ---",
    "one",
    "two",
    "--- stderr: 5 bytes utf-8 ---",
    "warn",
    `--- end: exited 3, run ${RECEIPT.run_id} ---`,
  ]);
});

Deno.test("a signal, empty streams and base64 in lines of 76", () => {
  const raw = new Uint8Array(100).fill(0xff);
  const text = runResultText(
    success(new Uint8Array(), raw, { state: "signaled", exit_status: null, signal: 15 }),
  ).join("");
  const lines = text.split("\n");
  assert.equal(lines[0], "signaled 15");
  assert.equal(lines[4], "--- stdout: 0 bytes utf-8 ---");
  assert.equal(lines[5], "--- stderr: 100 bytes base64 ---");
  assert.equal(lines[6].length, 76);
  assert.equal(lines.slice(6, -1).join(""), raw.toBase64());
  assert.equal(lines.at(-1), `--- end: signaled 15, run ${RECEIPT.run_id} ---`);
});

Deno.test("long output goes in as the pieces it was decoded in", () => {
  const long = bytes("x".repeat(100_000));
  const payload = success(long, new Uint8Array(), {
    state: "exited",
    exit_status: 0,
    signal: null,
  });
  const pieces = runResultText(payload);
  assert.ok(pieces.length > 6, "the output came as one piece");
  assert.ok(pieces.every((piece) => piece.length <= 32768 + 200));
  assert.ok(pieces.join("").includes(`\n${"x".repeat(100_000)}\n--- stderr`));
});

Deno.test("a failure says code, delivery and message once, then its effects and receipt", () => {
  const refused = runResultText(
    failurePayload(new RunFailure({ code: "unsupported", message: "not enrolled" })),
  );
  assert.deepEqual(refused, [
    "error unsupported (delivery: not_sent): not enrolled\n" +
    "effects: none; not authorized; completion unobserved",
  ]);
  const stopped = runResultText(
    failurePayload(
      new RunFailure({
        code: "capacity",
        message: "over",
        delivery: "possibly_sent",
        receipt: RECEIPT,
      }),
    ),
  ).join("");
  assert.deepEqual(stopped.split("\n"), [
    "error capacity (delivery: possibly_sent): over",
    "effects: known; completion unobserved",
    `run ${RECEIPT.run_id} in pane %4, script sha256 ${RECEIPT.script_digest}`,
    `authorized: server_generation ${RECEIPT.server_generation}, enrollment_generation ` +
    `${RECEIPT.enrollment_generation}, process_generation ${RECEIPT.process_generation}`,
  ]);
  const gate = runResultText(
    failurePayload(
      new RunFailure({
        code: "invalid_input",
        message: "bad",
        delivery: "not_sent",
        receipt: null,
        completion: null,
        atGate: true,
      }),
    ),
  );
  assert.deepEqual(gate, ["error invalid_input (delivery: not_sent): bad"]);
});
