// tmux_run's contract as the spec gives it: its input and output JSON Schemas, the files as they
// are (loaded as JSON modules, so they travel with the code from a checkout, a URL or a bundle),
// and what each input field means, for refusals, since the contract's schema carries no
// descriptions of its own; and its limits, stated once: tmux_run enforces them and words its
// messages with them, and tmux_capabilities reports them.
import tmuxRunInput from "../../schemas/tmux_run.input.schema.json" with { type: "json" };
import tmuxRunOutput from "../../schemas/tmux_run.output.schema.json" with { type: "json" };
import type { FieldHints, JsonSchema } from "../mcp/schemas.ts";

export const schemas: { tmuxRunInput: JsonSchema; tmuxRunOutput: JsonSchema } = {
  tmuxRunInput,
  tmuxRunOutput,
};

/** The longest script, in UTF-8 bytes (the input schema's `script.maxLength`). */
export const MAX_SCRIPT_BYTES = 65536;
/** The bytes kept per output stream when the call names no limit. */
export const DEFAULT_OUTPUT_LIMIT = 65536;
/** The most a call may ask to keep per output stream (the schema's `stdout_limit.maximum`). */
export const MAX_OUTPUT_LIMIT = 262144;
/** The most runs in flight on one server. */
export const MAX_CONCURRENT_RUNS = 8;

export const TMUX_RUN_FIELD_HINTS: FieldHints = {
  "target": 'like {"kind": "pane", "id": "%N", "generation": "…"}',
  "target.generation": "get it from tmux_capabilities: its top-level generation field",
  "target.id": "the enrolled pane's id, e.g. %3; tmux_capabilities lists enrolled_panes",
  "target.kind": 'always "pane"',
  "script": `the POSIX sh script to run, at most ${MAX_SCRIPT_BYTES} UTF-8 bytes`,
};
