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

// A second validator that collects every error with its schema, used only once an input has
// already failed, to say which field broke which rule. Messages name fields, rules and limits
// from the schema; they never quote the value, which may be a secret or a long script.
const explainer = new Ajv2020({ allErrors: true, strict: false, verbose: true });
const explainers = new WeakMap<JsonSchema, ReturnType<typeof explainer.compile>>();

/** What a field means, for the fields of tmux_run, whose contract schema has no descriptions. */
const FIELD_HINTS: Record<string, string> = {
  "target": 'like {"kind": "pane", "id": "%N", "generation": "…"}',
  "target.generation": "get it from tmux_capabilities: its top-level generation field",
  "target.id": "the enrolled pane's id, e.g. %3; tmux_capabilities lists enrolled_panes",
  "target.kind": 'always "pane"',
  "script": "the POSIX sh script to run, at most 65536 UTF-8 bytes",
};

/** Patterns our schemas use, said the way a person would. */
const PATTERN_FORMS: Record<string, string> = {
  "^%[0-9]+$": "must look like %N (a pane id, e.g. %3; list_panes gives them)",
  "^@[0-9]+$": "must look like @N (a window id, e.g. @2; list_windows gives them)",
  "^\\$[0-9]+$":
    "must look like $N (a session id, e.g. $1); to name a session by its name use session_name",
  "^[A-Za-z0-9._-]+$": "may hold only letters, digits, '.', '_' and '-'",
  "^[^:.\\u0000-\\u001f]+$": "must not contain ':', '.' or control characters",
  "^[^\\u0000-\\u001f]+$": "must not contain control characters",
  "^[^\\u0000-\\u001f]*$": "must not contain control characters",
  "^[^\\u0000]*$": "must not contain a NUL character",
  "^[A-Za-z_][A-Za-z0-9_]*$":
    "must be a variable name (letters, digits and '_', not first a digit)",
};

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  null: "null",
};

type SchemaError = {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  parentSchema?: JsonSchema;
};

/** `/target/generation` → `target.generation`; `/patterns/0` → `patterns[0]`. */
function fieldName(pointer: string): string {
  let name = "";
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    name += /^\d+$/.test(part) ? `[${part}]` : name === "" ? part : `.${part}`;
  }
  return name;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function describeError(error: SchemaError): string | null {
  const field = fieldName(error.instancePath);
  const p = error.params;
  const parent = error.parentSchema ?? {};
  const hintFor = (name: string, schema: JsonSchema | undefined) => {
    const hint = FIELD_HINTS[name] ??
      (typeof schema?.description === "string" ? schema.description : undefined);
    return hint ? ` (${hint})` : "";
  };
  switch (error.keyword) {
    case "required": {
      const name = join(field, String(p.missingProperty));
      const properties = (parent.properties ?? {}) as Record<string, JsonSchema>;
      return `\`${name}\` is required${hintFor(name, properties[String(p.missingProperty)])}`;
    }
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      const named = /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? `\`${join(field, key)}\`` : "a parameter";
      const known = Object.keys((parent.properties ?? {}) as Record<string, unknown>);
      return `${named} is not a parameter ${field === "" ? "of this tool" : `of \`${field}\``}` +
        ` (allowed: ${known.join(", ") || "none"})`;
    }
    case "type": {
      const types = Array.isArray(p.type) ? p.type : String(p.type).split(",");
      const wanted = types.map((t) => TYPE_NAMES[String(t)] ?? String(t)).join(" or ");
      return `\`${field}\` must be ${wanted}${hintFor(field, parent)}`;
    }
    case "pattern": {
      const form = PATTERN_FORMS[String(p.pattern)] ?? `must match the pattern ${p.pattern}`;
      return `\`${field}\` ${form}`;
    }
    case "maxLength":
      return `\`${field}\` is over its limit of ${p.limit} characters`;
    case "minLength":
      return p.limit === 1
        ? `\`${field}\` must not be empty`
        : `\`${field}\` must be at least ${p.limit} characters long`;
    case "maximum":
      return `\`${field}\` must be at most ${p.limit}`;
    case "minimum":
      return `\`${field}\` must be at least ${p.limit}`;
    case "exclusiveMaximum":
      return `\`${field}\` must be less than ${p.limit}`;
    case "exclusiveMinimum":
      return `\`${field}\` must be greater than ${p.limit}`;
    case "maxItems":
      return `\`${field}\` may have at most ${p.limit} items`;
    case "minItems":
      return `\`${field}\` must have at least ${p.limit} item${p.limit === 1 ? "" : "s"}`;
    case "enum":
      return `\`${field}\` must be one of: ${(p.allowedValues as unknown[]).join(", ")}`;
    case "const":
      return `\`${field}\` must be ${JSON.stringify(p.allowedValue)}`;
    case "oneOf":
    case "anyOf":
      return null;
    default:
      return `\`${field || "the arguments"}\` breaks the schema's ${error.keyword} rule`;
  }
}

/**
 * Why `value` fails `schema`, as fields and rules ("`pane_id` must look like %N"), or null
 * when it does not fail. Never contains the value itself.
 */
export function inputProblems(schema: JsonSchema, value: unknown): string | null {
  let validate = explainers.get(schema);
  if (!validate) {
    validate = explainer.compile(schema);
    explainers.set(schema, validate);
  }
  if (validate(value)) return null;
  const errors = (validate.errors ?? []) as SchemaError[];
  const messages = [...new Set(errors.map(describeError).filter((m) => m !== null))];
  if (messages.length === 0) {
    const fields = [...new Set(errors.map((e) => fieldName(e.instancePath) || "the arguments"))];
    messages.push(...fields.map((f) => `\`${f}\` does not have an allowed form`));
  }
  const shown = messages.slice(0, 4);
  const more = messages.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** The validator's explanation of why `value` fails `schema`, for tests only. */
export function validationErrors(schema: JsonSchema, value: unknown): string {
  const validate = ajv.compile(schema);
  validate(value);
  return ajv.errorsText(validate.errors);
}
