// The JSON Schemas the server advertises, loaded as JSON modules so they travel with the code
// (checkout, URL or bundle), and compiled once with ajv's 2020-12 build: the same validator
// checks tool inputs at the edge and, in tests, every result.
import { Ajv2020 } from "./deps.ts";
import tmuxRunInput from "../schemas/tmux_run.input.schema.json" with { type: "json" };
import tmuxRunOutput from "../schemas/tmux_run.output.schema.json" with { type: "json" };
import capabilitiesOutput from "../schemas/tmux_capabilities.output.schema.json" with {
  type: "json",
};
import emptyInput from "../schemas/empty.input.schema.json" with { type: "json" };
import capturePaneInput from "../schemas/capture_pane.input.schema.json" with { type: "json" };
import capturePaneOutput from "../schemas/capture_pane.output.schema.json" with { type: "json" };
import captureSinceInput from "../schemas/capture_since.input.schema.json" with { type: "json" };
import captureSinceOutput from "../schemas/capture_since.output.schema.json" with { type: "json" };
import createSessionInput from "../schemas/create_session.input.schema.json" with { type: "json" };
import createWindowInput from "../schemas/create_window.input.schema.json" with { type: "json" };
import createdOutput from "../schemas/created.output.schema.json" with { type: "json" };
import doneOutput from "../schemas/done.output.schema.json" with { type: "json" };
import getPaneInfoInput from "../schemas/get_pane_info.input.schema.json" with { type: "json" };
import getPaneInfoOutput from "../schemas/get_pane_info.output.schema.json" with { type: "json" };
import killedOutput from "../schemas/killed.output.schema.json" with { type: "json" };
import listPanesInput from "../schemas/list_panes.input.schema.json" with { type: "json" };
import listPanesOutput from "../schemas/list_panes.output.schema.json" with { type: "json" };
import listSessionsOutput from "../schemas/list_sessions.output.schema.json" with { type: "json" };
import listWindowsInput from "../schemas/list_windows.input.schema.json" with { type: "json" };
import listWindowsOutput from "../schemas/list_windows.output.schema.json" with { type: "json" };
import paneTargetInput from "../schemas/pane_target.input.schema.json" with { type: "json" };
import pasteTextInput from "../schemas/paste_text.input.schema.json" with { type: "json" };
import renameSessionInput from "../schemas/rename_session.input.schema.json" with { type: "json" };
import renameWindowInput from "../schemas/rename_window.input.schema.json" with { type: "json" };
import resizePaneInput from "../schemas/resize_pane.input.schema.json" with { type: "json" };
import respawnPaneInput from "../schemas/respawn_pane.input.schema.json" with { type: "json" };
import runCommandInput from "../schemas/run_command.input.schema.json" with { type: "json" };
import runCommandOutput from "../schemas/run_command.output.schema.json" with { type: "json" };
import searchPanesInput from "../schemas/search_panes.input.schema.json" with { type: "json" };
import searchPanesOutput from "../schemas/search_panes.output.schema.json" with { type: "json" };
import selectLayoutInput from "../schemas/select_layout.input.schema.json" with { type: "json" };
import sendKeysInput from "../schemas/send_keys.input.schema.json" with { type: "json" };
import sessionTargetInput from "../schemas/session_target.input.schema.json" with { type: "json" };
import setEnvironmentInput from "../schemas/set_environment.input.schema.json" with {
  type: "json",
};
import setPaneTitleInput from "../schemas/set_pane_title.input.schema.json" with { type: "json" };
import showOptionsInput from "../schemas/show_options.input.schema.json" with { type: "json" };
import showOptionsOutput from "../schemas/show_options.output.schema.json" with { type: "json" };
import socketOnlyInput from "../schemas/socket_only.input.schema.json" with { type: "json" };
import splitWindowInput from "../schemas/split_window.input.schema.json" with { type: "json" };
import waitForTextInput from "../schemas/wait_for_text.input.schema.json" with { type: "json" };
import waitForTextOutput from "../schemas/wait_for_text.output.schema.json" with { type: "json" };
import windowTargetInput from "../schemas/window_target.input.schema.json" with { type: "json" };

export type JsonSchema = Record<string, unknown>;

export const schemas = {
  tmuxRunInput,
  tmuxRunOutput,
  capabilitiesOutput,
  emptyInput,
  capturePaneInput,
  capturePaneOutput,
  captureSinceInput,
  captureSinceOutput,
  createSessionInput,
  createWindowInput,
  createdOutput,
  doneOutput,
  getPaneInfoInput,
  getPaneInfoOutput,
  killedOutput,
  listPanesInput,
  listPanesOutput,
  listSessionsOutput,
  listWindowsInput,
  listWindowsOutput,
  paneTargetInput,
  pasteTextInput,
  renameSessionInput,
  renameWindowInput,
  resizePaneInput,
  respawnPaneInput,
  runCommandInput,
  runCommandOutput,
  searchPanesInput,
  searchPanesOutput,
  selectLayoutInput,
  sendKeysInput,
  sessionTargetInput,
  setEnvironmentInput,
  setPaneTitleInput,
  showOptionsInput,
  showOptionsOutput,
  socketOnlyInput,
  splitWindowInput,
  waitForTextInput,
  waitForTextOutput,
  windowTargetInput,
} as Record<string, JsonSchema>;

const ajv = new Ajv2020({ allErrors: false, strict: false });
const compiled = new WeakMap<JsonSchema, (value: unknown) => boolean>();

/** True when `value` is valid against `schema`; validators are compiled once per schema. */
export function isValid(schema: JsonSchema, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    const compiledSchema = ajv.compile(schema);
    validate = (v: unknown) => compiledSchema(v) as boolean;
    compiled.set(schema, validate);
  }
  return validate(value);
}

/** The validator's explanation of why `value` fails `schema`, for tests only. */
export function validationErrors(schema: JsonSchema, value: unknown): string {
  const validate = ajv.compile(schema);
  validate(value);
  return ajv.errorsText(validate.errors);
}
