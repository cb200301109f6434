// The sentences an agent reads when its arguments are refused: for inputs that break each kind
// of rule, inputProblems names the field, the rule and the limit (and a hint where the schema
// has one), never the value. The messages were recorded from the explainer before the move to
// ajv; they hold that mapping ajv's errors keeps every word. The hints in parentheses are the
// parameters' descriptions, and change with them.
import assert from "node:assert/strict";
import { CATALOG } from "../server/catalog.ts";
import { inputProblems, isValid } from "./schemas.ts";
import { schemas } from "../run/contract.ts";

const ASTRAL = "\u{1F600}";

function shown(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      typeof v === "string" && v.length > 40 ? `${v.slice(0, 40)}…(${v.length} units)` : v,
  );
}

const target = { kind: "pane", id: "%3", generation: "g1" };

/** Inputs and the messages the ajv-based explainer gave them, recorded before the switch. */
const MESSAGES: [tool: string, input: unknown, message: string][] = [
  [
    "tmux_run",
    {},
    '`target` is required (like {"kind": "pane", "id": "%N", "generation": "…"}); ' +
    "`script` is required (the POSIX sh script to run, at most 65536 UTF-8 bytes)",
  ],
  ["tmux_run", null, "`` must be an object"],
  ["tmux_run", [], "`` must be an object"],
  [
    "tmux_run",
    { target, script: 5 },
    "`script` must be a string (the POSIX sh script to run, at most 65536 UTF-8 bytes)",
  ],
  [
    "tmux_run",
    { target: { kind: "window", id: "3", generation: "" }, script: "true" },
    "`target.generation` must not be empty; " +
    "`target.id` must look like %N (a pane id, e.g. %3; list_panes gives them); " +
    '`target.kind` must be "pane"',
  ],
  [
    "tmux_run",
    { target: "pane", script: "a\u0000b" },
    "`script` must not contain a NUL character; " +
    '`target` must be an object (like {"kind": "pane", "id": "%N", "generation": "…"})',
  ],
  [
    "tmux_run",
    { target, script: "true", extra: 1, "weird key!": 2 },
    "`extra` is not a parameter of this tool (allowed: script, stderr_limit, stdout_limit, " +
    "target); a parameter is not a parameter of this tool (allowed: script, stderr_limit, " +
    "stdout_limit, target)",
  ],
  [
    "tmux_run",
    { target: { ...target, colour: "red" }, script: "true" },
    "`target.colour` is not a parameter of `target` (allowed: generation, id, kind)",
  ],
  [
    "tmux_run",
    { target, script: "true", stdout_limit: 1.5, stderr_limit: -1 },
    "`stderr_limit` must be at least 0; `stdout_limit` must be an integer",
  ],
  [
    "tmux_run",
    { target, script: "true", stdout_limit: 262145, stderr_limit: "10" },
    "`stderr_limit` must be an integer; `stdout_limit` must be at most 262144",
  ],
  [
    "tmux_run",
    { target: { kind: "pane", id: "%3" }, script: "x".repeat(65537) },
    "`script` is over its limit of 65536 characters; `target.generation` is required " +
    "(get it from tmux_capabilities: its top-level generation field)",
  ],
  [
    "tmux_run",
    { target: { ...target, generation: ASTRAL.repeat(129) }, script: "" },
    "`target.generation` is over its limit of 128 characters",
  ],
  [
    "capture_pane",
    { pane_id: "3" },
    "`pane_id` must look like %N (a pane id, e.g. %3; list_panes gives them)",
  ],
  [
    "capture_pane",
    { pane_id: "%1", start: "x", end: 10001, max_lines: 0 },
    "`start` must be an integer (first line: 0 is the screen's top, negative is history " +
    "(-100: 100 lines up), at most 10000; default: the top); `end` must be at most 10000; " +
    "`max_lines` must be at least 1",
  ],
  [
    "capture_pane",
    { pane_id: "%1", socket_name: "" },
    "`socket_name` must not be empty; " +
    "`socket_name` may hold only letters, digits, '.', '_' and '-'",
  ],
  [
    "capture_pane",
    { pane_id: "%1", socket_name: "a/b", start: -1000001 },
    "`socket_name` may hold only letters, digits, '.', '_' and '-'; " +
    "`start` must be at least -1000000",
  ],
  [
    "capture_pane",
    { pane: "%1" },
    "`pane_id` is required (%N from list_panes); `pane` is not a parameter of this tool (allowed: " +
    "pane_id, socket_name, start, end, max_lines)",
  ],
  ["send_keys", { pane_id: "%1", keys: "" }, "`keys` must not be empty"],
  [
    "send_keys",
    { pane_id: "%1", keys: "x".repeat(16385), literal: "yes" },
    "`keys` is over its limit of 16384 characters; `literal` must be true or false (false: " +
    "keys are tmux key names (default true: text))",
  ],
  [
    "send_keys",
    { pane_id: 1, keys: null, enter: 1 },
    "`pane_id` must be a string (%N from list_panes); `keys` must be a string (the text to type; with " +
    "literal false, space-separated key names or single characters); `enter` must be true " +
    "or false (press Enter afterwards (default false))",
  ],
  ["wait_for_text", { pane_id: "%1", patterns: [] }, "`patterns` must have at least 1 item"],
  [
    "wait_for_text",
    { pane_id: "%1", patterns: ["a", "", 3], stop: Array(17).fill("s") },
    "`patterns[1]` must not be empty; `patterns[2]` must be a string; " +
    "`stop` may have at most 16 items",
  ],
  [
    "wait_for_text",
    { pane_id: "%1", patterns: "a", timeout: 0 },
    "`patterns` must be an array (1 to 16; the wait ends when a line of new output matches " +
    "one); `timeout` must be greater than 0",
  ],
  [
    "wait_for_text",
    { pane_id: "%1", patterns: ["a"], timeout: -1, cursor: "" },
    "`timeout` must be greater than 0; `cursor` must not be empty",
  ],
  [
    "resize_pane",
    { pane_id: "%1", width: 0, height: 1001, zoom: null },
    "`width` must be at least 1; `height` must be at most 1000; `zoom` must be true or " +
    "false (toggle zoom instead (default false); give width, height or zoom)",
  ],
  [
    "search_panes",
    { pattern: "x", session_id: "1", session_name: "a:b" },
    "`session_id` must look like $N (a session id, e.g. $1); to name a session by its name use " +
    "session_name; `session_name` must not contain ':', '.' or control characters",
  ],
  [
    "search_panes",
    { pattern: "x", session_name: "a\u0001b", max_matches: 2.5 },
    "`session_name` must not contain ':', '.' or control characters; `max_matches` must be " +
    "an integer (most lines returned, 1 to 1000, default 100)",
  ],
  [
    "set_environment",
    { name: "1ABC", value: "x" },
    "`name` must be a variable name (letters, digits and '_', not first a digit)",
  ],
  [
    "set_environment",
    { name: "A", value: 3, unset: "no", global: 0, session_id: "$x" },
    "`value` must be a string (default: empty; ignored with unset); `unset` must be true or " +
    "false (remove the variable (default false)); `global` must be true or false (the " +
    "global environment (default false: give session_id or session_name)); `session_id` " +
    "must look like $N (a session id, e.g. $1); to name a session by its name use " +
    "session_name",
  ],
  [
    "create_session",
    {
      session_name: "a.b",
      window_name: "w\n",
      start_directory: "",
      width: 9,
      height: 4,
    },
    "`session_name` must not contain ':', '.' or control characters; `window_name` must not " +
    "contain control characters; `start_directory` must not be empty; `width` must be at least " +
    "10; and 1 more",
  ],
  [
    "create_session",
    { width: 10, height: 5, socket_name: ASTRAL.repeat(101) },
    "`socket_name` is over its limit of 100 characters; " +
    "`socket_name` may hold only letters, digits, '.', '_' and '-'",
  ],
  ["create_session", "just a string", "`` must be an object"],
];

Deno.test("inputProblems says what the ajv-based explainer said", () => {
  for (const [tool, input, message] of MESSAGES) {
    const entry = CATALOG.find((entry) => entry.name === tool);
    assert.ok(entry, `no tool ${tool}`);
    assert.equal(
      inputProblems(entry.inputSchema, input, entry.fieldHints),
      message,
      `${tool} ${shown(input)}`,
    );
  }
});

Deno.test("a maxLength counts code points: 128 astral characters fit a limit of 128", () => {
  const target = { kind: "pane", id: "%3", generation: ASTRAL.repeat(128) };
  assert.equal(isValid(schemas.tmuxRunInput, { target, script: "" }), true);
  const over = { target: { ...target, generation: ASTRAL.repeat(129) }, script: "" };
  assert.equal(isValid(schemas.tmuxRunInput, over), false);
});
