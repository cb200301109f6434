// tmux_run's contract as the spec gives it: its input and output JSON Schemas, the files as they
// are (loaded as JSON modules, so they travel with the code from a checkout, a URL or a bundle),
// and what each input field means, for refusals, since the contract's schema carries no
// descriptions of its own.
import tmuxRunInput from "../../schemas/tmux_run.input.schema.json" with { type: "json" };
import tmuxRunOutput from "../../schemas/tmux_run.output.schema.json" with { type: "json" };
import type { FieldHints, JsonSchema } from "../mcp/schemas.ts";

export const schemas: { tmuxRunInput: JsonSchema; tmuxRunOutput: JsonSchema } = {
  tmuxRunInput,
  tmuxRunOutput,
};

export const TMUX_RUN_FIELD_HINTS: FieldHints = {
  "target": 'like {"kind": "pane", "id": "%N", "generation": "…"}',
  "target.generation": "get it from tmux_capabilities: its top-level generation field",
  "target.id": "the enrolled pane's id, e.g. %3; tmux_capabilities lists enrolled_panes",
  "target.kind": 'always "pane"',
  "script": "the POSIX sh script to run, at most 65536 UTF-8 bytes",
};
