// Turns the command line and the LIBTMUX_* environment into one validated configuration,
// read once at startup. A bad value is a usage error (exit 2) whose message names the flag or
// variable, never the value: values can be paths or secrets pasted in by mistake. The Python
// peer's LIBTMUX_SAFETY is read too (as toolsets), so a config copied from it means the same.
import { parseArgs } from "node:util";
import type { SocketChoice } from "../tmux/tmux.ts";
import type { ControlModeChoice } from "../tmux/versions.ts";
import { journalDirectory } from "../journal/journal.ts";

export const DEFAULT_RUN_TIMEOUT_SECONDS = 30;
export const MAX_RUN_TIMEOUT_SECONDS = 3600;
/** A call with a progress token, or a task, can wait: a 10-minute build runs by default. */
export const DEFAULT_RUN_TIMEOUT_WITH_PROGRESS_SECONDS = 600;
export const DEFAULT_ENROLLMENT_SECONDS = 60;
export const MAX_ENROLLMENT_SECONDS = 300;
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
export const MAX_ENROLL_FLAGS = 8;
export const DEFAULT_WAIT_MAX_SECONDS = 30;

export type Config = {
  socket: SocketChoice;
  tmuxBin: string;
  enableTools: string[];
  toolsets: string[] | null;
  extraTools: string[];
  excludeTools: string[];
  enrollPanes: { paneId: string; file: string }[];
  enrollmentSeconds: number;
  runTimeoutSeconds: number;
  runTimeoutWithProgressSeconds: number;
  maxResponseBytes: number;
  waitMaxSeconds: number;
  /** Control mode: "auto" uses it only on a tmux where it is safe (lib/tmux/versions.ts). */
  controlMode: ControlModeChoice;
  /**
   * The person's journal (lib/journal/): its directory, or null and why it is off
   * (--no-journal, or neither XDG_STATE_HOME nor HOME names a directory); the script text is kept
   * in it only with --journal-scripts.
   */
  journal: { directory: string | null; offReason: string | null; keepScripts: boolean };
};

export class UsageError extends Error {}

export type ParsedCommandLine = {
  command: string;
  config: Config;
  rest: string[];
  script?: string;
  server?: string;
  /** `enroll --directory`: the server's private directory, as its own enroll line names it. */
  directory?: string;
  /** `enroll --quiet`: no notice under the prompt after each run (helper.sh). */
  quiet?: boolean;
  /** `journal`'s filters and form. */
  pane?: string;
  since?: string;
  json?: boolean;
} | {
  command: "help" | "version";
};

const OPTIONS = {
  socket: { type: "string" },
  "socket-name": { type: "string" },
  tmux: { type: "string" },
  "control-mode": { type: "string" },
  "enable-tool": { type: "string", multiple: true },
  "enroll-pane": { type: "string", multiple: true },
  "enrollment-timeout": { type: "string" },
  "run-timeout": { type: "string" },
  "run-timeout-with-progress": { type: "string" },
  "max-response-bytes": { type: "string" },
  script: { type: "string" },
  server: { type: "string" },
  directory: { type: "string" },
  quiet: { type: "boolean" },
  "no-journal": { type: "boolean" },
  "journal-scripts": { type: "boolean" },
  pane: { type: "string" },
  since: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

function isControlModeChoice(value: string): value is ControlModeChoice {
  return value === "auto" || value === "always" || value === "never";
}

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((word) => word.trim()).filter((word) => word !== "");
}

/** The Python peer's LIBTMUX_SAFETY levels, as toolsets; LIBTMUX_TOOLSETS wins when set. */
export const SAFETY_TOOLSETS: Record<string, string[]> = {
  readonly: ["inspect"],
  mutating: ["inspect", "manage", "execute"],
  destructive: ["inspect", "manage", "execute", "teardown"],
};

function toolsetsFrom(env: Record<string, string | undefined>): string[] | null {
  const safety = env.LIBTMUX_SAFETY?.trim().toLowerCase() || undefined;
  if (safety !== undefined && !Object.hasOwn(SAFETY_TOOLSETS, safety)) {
    throw new UsageError("LIBTMUX_SAFETY must be readonly, mutating or destructive");
  }
  if (env.LIBTMUX_TOOLSETS !== undefined) return list(env.LIBTMUX_TOOLSETS);
  return safety === undefined ? null : SAFETY_TOOLSETS[safety];
}

function boundedInteger(text: string | undefined, name: string, min: number, max: number) {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

export function parseCommandLine(
  args: string[],
  env: Record<string, string | undefined> = Deno.env.toObject(),
): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch {
    throw new UsageError("unknown or malformed option (see --help)");
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };
  if (values.socket !== undefined && values["socket-name"] !== undefined) {
    throw new UsageError("--socket and --socket-name cannot be used together");
  }
  let socket: SocketChoice = { kind: "default" };
  if (values.socket !== undefined) {
    if (values.socket === "") throw new UsageError("--socket needs a path");
    socket = { kind: "path", path: values.socket };
  } else if (values["socket-name"] !== undefined || env.LIBTMUX_SOCKET) {
    const name = values["socket-name"] ?? env.LIBTMUX_SOCKET ?? "";
    if (name === "" || name.includes("/")) {
      throw new UsageError("the socket name must be non-empty and contain no '/'");
    }
    socket = { kind: "name", name };
  }
  const enrollPanes = (values["enroll-pane"] ?? []).map((spec) => {
    const match = /^(%\d+)=(.+)$/.exec(spec);
    if (!match) throw new UsageError("--enroll-pane takes %ID=FILE");
    return { paneId: match[1], file: match[2] };
  });
  if (enrollPanes.length > MAX_ENROLL_FLAGS) {
    throw new UsageError(`--enroll-pane may be given at most ${MAX_ENROLL_FLAGS} times`);
  }
  if (new Set(enrollPanes.map((p) => p.paneId)).size !== enrollPanes.length) {
    throw new UsageError("--enroll-pane names the same pane twice");
  }
  if (new Set(enrollPanes.map((p) => p.file)).size !== enrollPanes.length) {
    throw new UsageError("--enroll-pane names the same file twice");
  }
  const waitMax = env.LIBTMUX_MCP_WAIT_MAX_SECONDS;
  // Read where the process facts are chosen (lib/host/processes.ts); a typo must not pass for unset.
  const facts = env.TMUX_MCP_PROCESS_FACTS;
  if (facts !== undefined && facts !== "" && facts !== "proc" && facts !== "portable") {
    throw new UsageError("TMUX_MCP_PROCESS_FACTS must be proc or portable, or unset");
  }
  const controlMode = values["control-mode"] ?? env.TMUX_MCP_CONTROL_MODE ?? "auto";
  if (!isControlModeChoice(controlMode)) {
    throw new UsageError("--control-mode (or TMUX_MCP_CONTROL_MODE) must be auto, always or never");
  }
  if (values["no-journal"] && values["journal-scripts"]) {
    throw new UsageError("--no-journal and --journal-scripts cannot be used together");
  }
  const directory = values["no-journal"] ? null : journalDirectory(env);
  const config: Config = {
    socket,
    tmuxBin: values.tmux ?? env.LIBTMUX_TMUX_BIN ?? "tmux",
    enableTools: values["enable-tool"] ?? [],
    toolsets: toolsetsFrom(env),
    extraTools: list(env.LIBTMUX_TOOLS),
    excludeTools: list(env.LIBTMUX_EXCLUDE_TOOLS),
    enrollPanes,
    enrollmentSeconds: boundedInteger(
      values["enrollment-timeout"],
      "--enrollment-timeout",
      1,
      MAX_ENROLLMENT_SECONDS,
    ) ?? DEFAULT_ENROLLMENT_SECONDS,
    runTimeoutSeconds:
      boundedInteger(values["run-timeout"], "--run-timeout", 1, MAX_RUN_TIMEOUT_SECONDS) ??
        DEFAULT_RUN_TIMEOUT_SECONDS,
    runTimeoutWithProgressSeconds: boundedInteger(
      values["run-timeout-with-progress"],
      "--run-timeout-with-progress",
      1,
      MAX_RUN_TIMEOUT_SECONDS,
    ) ?? DEFAULT_RUN_TIMEOUT_WITH_PROGRESS_SECONDS,
    maxResponseBytes: boundedInteger(
      values["max-response-bytes"],
      "--max-response-bytes",
      4096,
      1024 * 1024 * 1024,
    ) ?? DEFAULT_MAX_RESPONSE_BYTES,
    waitMaxSeconds: boundedInteger(waitMax, "LIBTMUX_MCP_WAIT_MAX_SECONDS", 1, 120) ??
      DEFAULT_WAIT_MAX_SECONDS,
    controlMode,
    journal: {
      directory,
      offReason: directory !== null
        ? null
        : values["no-journal"]
        ? "off by --no-journal"
        : "off: neither XDG_STATE_HOME nor HOME names a directory to keep it in",
      keepScripts: directory !== null && values["journal-scripts"] === true,
    },
  };
  return {
    command: positionals[0] ?? "serve",
    config,
    rest: positionals.slice(1),
    script: values.script,
    server: values.server,
    directory: values.directory,
    quiet: values.quiet,
    pane: values.pane,
    since: values.since,
    json: values.json,
  };
}
