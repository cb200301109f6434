// The tools that supply input to programs or start them: keystrokes, pasted text, a respawned
// pane, environment for future processes. They act on exact ids only; respawning with kill is
// refused for the pane this MCP server runs in, since it would end the server's own process.
import { pasteIntoPane } from "../tmux/paste.ts";
import { sendKeys, sendKeysLines } from "../tmux/keystrokes.ts";
import { containsCaller } from "../tmux/caller.ts";
import { boolean, object, string, toolInput } from "../mcp/json_schema.ts";
import { LOOK_HISTORY_LINES, snapshot, snapshotThen } from "../tmux/capture.ts";
import { clientFor, describe, resolveSession, tmuxCall } from "../tmux/targets.ts";
import { refusal, success } from "../mcp/tool_payload.ts";
import { defineTool, PROGRAM_INPUT, toolOutput } from "./_define.ts";
import {
  DONE_OUTPUT,
  PANE_ID,
  RESULT_IDS,
  SESSION_ID,
  SESSION_NAME,
  SOCKET_NAME,
  START_DIRECTORY,
} from "./_blocks.ts";
import { keepCursor, RESULT_CURSOR } from "./_cursors.ts";
import { containsCallerRefusal, failedStep } from "./_refusals.ts";
import { refusalOf } from "./_tmux_refusals.ts";

/** What typing tools return: the pane, and a cursor taken just before they typed. */
const TYPED_OUTPUT = toolOutput(
  object(["target", "cursor"], { target: RESULT_IDS.pane_id, cursor: RESULT_CURSOR }),
);

/** tmux's key names (key-string.c in tmux 3.3), matched without regard to case as tmux does. */
const KEY_NAMES = new Set(
  [
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
    ...Array.from({ length: 10 }, (_, i) => `KP${i}`),
    ..."IC Insert DC Delete Home End NPage PageDown PgDn PPage PageUp PgUp BTab Space BSpace"
      .split(" "),
    ..."Enter Escape Tab Up Down Left Right KP/ KP* KP- KP+ KPEnter KP.".split(" "),
  ].map((name) => name.toLowerCase()),
);

/**
 * Whether tmux reads `word` as one key. Anything else it would type as text, so "Ctrl-C"
 * would arrive as six characters: such words are refused instead.
 */
export function isKeyName(word: string): boolean {
  if ([...word].length === 2 && word.startsWith("^")) return true;
  let rest = word;
  while (/^[CMS]-./iu.test(rest)) rest = rest.slice(2);
  return [...rest].length === 1 || KEY_NAMES.has(rest.toLowerCase()) ||
    /^0x[0-9a-f]{1,8}$/i.test(rest);
}

function unknownKey(position: number, count: number) {
  return refusal(
    "invalid_input",
    `\`keys\` word ${position} of ${count} is not a tmux key name; nothing was sent. With ` +
      "literal: false every space-separated word must be one key: a single character or a " +
      "name (Enter Escape Tab BTab Space BSpace Up Down Left Right Home End PageUp PageDown " +
      "Insert Delete F1 to F12 KP0 to KP9 KPEnter), optionally after C- (Ctrl), M- (Alt) or " +
      "S- (Shift), e.g. C-c or M-Left (^c also means C-c). To type text as is use literal: true",
  );
}

const SEND_KEYS_INPUT = toolInput(["pane_id", "keys"], {
  pane_id: PANE_ID,
  keys: string({
    minLength: 1,
    maxLength: 16384,
    pattern: "^[^\\u0000]*$",
    description: "the text to type; with literal false, space-separated key names or single " +
      "characters",
  }),
  literal: boolean({
    description: "false: keys are tmux key names (default true: text)",
  }),
  enter: boolean({ description: "press Enter afterwards (default false)" }),
  socket_name: SOCKET_NAME,
});

export const sendKeysTool = defineTool({
  name: "send_keys",
  title: "Send keys to a pane",
  toolset: "execute",
  description:
    "Type into a pane: text as is, or with literal: false tmux key names such as C-c Enter " +
    "Up M-Left F5 (a word that is none, e.g. Ctrl-C, is refused); enter: true presses Enter " +
    "after. For TUIs, REPLs and prompts; for a command's exit status use run_command, for a " +
    "block of text paste_text. Returns a cursor for wait_for_text, which reads up to " +
    `${LOOK_HISTORY_LINES} history lines back. A failure with delivery possibly_sent may ` +
    "have typed some keys: look before retrying.",
  inputSchema: SEND_KEYS_INPUT,
  outputSchema: TYPED_OUTPUT,
  annotations: PROGRAM_INPUT,
  handle: async (context, a, extra) => {
    const words = a.keys.split(/\s+/).filter((key) => key !== "");
    const unknown = a.literal === false ? words.findIndex((word) => !isKeyName(word)) : -1;
    if (unknown >= 0) return unknownKey(unknown + 1, words.length);
    const client = clientFor(context, a.socket_name);
    const keys = a.literal === false ? { names: words } : { literal: a.keys };
    const lines = sendKeysLines(a.pane_id, keys, a.enter ?? false);
    // The look that finds the pane is the cursor's moment: it goes with the first keys, before
    // them, in one tmux call where tmux calls are spawned clients.
    const before = await snapshotThen(client, a.pane_id, lines[0], extra.signal)
      .catch((error: unknown) => failedStep(error, extra, client, "possibly_sent"));
    if (!before.ok) return refusalOf(before);
    const typed = a.literal === false ? null : a.keys;
    const cursor = keepCursor(context, client, before.value, typed);
    const out = await sendKeys(client, lines, 1);
    return out.ok ? success({ target: a.pane_id, cursor }) : refusalOf(out);
  },
});

const PASTE_TEXT_INPUT = toolInput(["pane_id", "text"], {
  pane_id: PANE_ID,
  text: string({
    minLength: 1,
    maxLength: 1048576,
    description: "the text, as is",
  }),
  bracketed: boolean({
    description: "bracketed paste if the program asked for it (default true)",
  }),
  socket_name: SOCKET_NAME,
});

export const pasteTextTool = defineTool({
  name: "paste_text",
  title: "Paste text into a pane",
  toolset: "execute",
  description:
    "Paste a block of text into a pane through a tmux buffer, bracketed when the program " +
    "asked for it, so it is taken as one paste; nothing presses Enter. Returns a cursor for " +
    `wait_for_text, which reads up to ${LOOK_HISTORY_LINES} history lines back. For ` +
    "keystrokes use send_keys. A failure with delivery possibly_sent may have pasted: look " +
    "before retrying.",
  inputSchema: PASTE_TEXT_INPUT,
  outputSchema: TYPED_OUTPUT,
  annotations: PROGRAM_INPUT,
  handle: async (context, a, extra) => {
    const client = clientFor(context, a.socket_name);
    const before = await snapshot(client, a.pane_id, extra.signal)
      .catch((error: unknown) => failedStep(error, extra, client, "not_sent"));
    if (!before.ok) return refusalOf(before);
    const cursor = keepCursor(context, client, before.value, a.text);
    const out = await pasteIntoPane(client, context.tempFiles, a.pane_id, a.text, {
      bracketed: a.bracketed !== false,
      enter: false,
    });
    return out.ok ? success({ target: a.pane_id, cursor }) : refusalOf(out);
  },
});

const RESPAWN_PANE_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  kill: boolean({
    description: "end a program still running first (default false)",
  }),
  command: string({
    minLength: 1,
    maxLength: 16384,
    pattern: "^[^\\u0000]*$",
    description: "shell command to start; default: the original one",
  }),
  start_directory: START_DIRECTORY,
  socket_name: SOCKET_NAME,
});

export const respawnPaneTool = defineTool({
  name: "respawn_pane",
  title: "Restart a pane's program",
  toolset: "execute",
  description:
    "Restart a pane's exited program, or a new command; kill: true first ends one still " +
    "running (refused for this MCP server's own pane). To remove the pane use kill_pane.",
  inputSchema: RESPAWN_PANE_INPUT,
  outputSchema: DONE_OUTPUT,
  annotations: PROGRAM_INPUT,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.pane_id, "#{pane_id}", "");
    if (!found.ok) return refusalOf(found);
    const containment = a.kill
      ? await containsCaller(context, client, "pane", a.pane_id)
      : "not_ours";
    if (containment !== "not_ours") return containsCallerRefusal("pane", a.pane_id, containment);
    const out = await tmuxCall(client, [
      "respawn-pane",
      "-t",
      a.pane_id,
      ...(a.kill ? ["-k"] : []),
      ...(a.start_directory ? ["-c", a.start_directory] : []),
      ...(a.command ? [a.command] : []),
    ]);
    return out.ok ? success({ target: a.pane_id }) : refusalOf(out);
  },
});

const SET_ENVIRONMENT_INPUT = toolInput(["name"], {
  name: string({
    pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
    maxLength: 256,
    description: "the variable's name",
  }),
  value: string({
    maxLength: 65536,
    pattern: "^[^\\u0000]*$",
    description: "default: empty; ignored with unset",
  }),
  unset: boolean({ description: "remove the variable (default false)" }),
  global: boolean({
    description: "the global environment (default false: give session_id or session_name)",
  }),
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  socket_name: SOCKET_NAME,
});

export const setEnvironmentTool = defineTool({
  name: "set_environment",
  title: "Set tmux environment variable",
  toolset: "execute",
  description:
    "Set or unset a variable in a session's tmux environment or the global one: processes " +
    "started later inherit it, running shells do not. For a running shell use run_command.",
  inputSchema: SET_ENVIRONMENT_INPUT,
  outputSchema: DONE_OUTPUT,
  annotations: { ...PROGRAM_INPUT, idempotentHint: true, destructiveHint: false },
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    let scope = ["-g"];
    let target = "global";
    if (!a.global) {
      const session = await resolveSession(client, a);
      if (!session.ok) return refusalOf(session);
      scope = ["-t", session.value];
      target = session.value;
    }
    const change = a.unset ? ["-u", a.name] : [a.name, a.value ?? ""];
    const out = await tmuxCall(client, ["set-environment", ...scope, ...change]);
    return out.ok ? success({ target }) : refusalOf(out);
  },
});

export const EXECUTE_TOOLS = [sendKeysTool, pasteTextTool, respawnPaneTool, setEnvironmentTool];
