// The tools that supply input to programs or start them: keystrokes, pasted text, a respawned
// pane, environment for future processes. They act on exact ids only; respawning with kill is
// refused for the pane this MCP server runs in, since it would end the server's own process.
import { pasteIntoPane } from "../tmux/paste.ts";
import { containsCaller } from "../tmux/caller.ts";
import { boolean, object, string, toolInput } from "../mcp/json_schema.ts";
import { snapshot } from "../tmux/capture.ts";
import { clientFor, describe, resolveSession, tmuxCall } from "../tmux/targets.ts";
import { refusal, success } from "../mcp/tool_result.ts";
import {
  CANCELLED,
  containsCallerRefusal,
  defineTool,
  DONE_OUTPUT,
  keepCursor,
  PANE_ID,
  PROGRAM_INPUT,
  RESULT_CURSOR,
  RESULT_IDS,
  SESSION_ID,
  SESSION_NAME,
  SOCKET_NAME,
  START_DIRECTORY,
  toolOutput,
} from "./toolkit.ts";

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
    description: "with literal true (the default): the text to type, as is, 1 to 16384 " +
      "characters. With literal false: space-separated tmux key names such as C-c Enter Escape " +
      "Up F1 or single characters; unknown names are refused",
  }),
  literal: boolean({
    description: "true (default): type keys as text; false: keys is space-separated tmux key " +
      "names such as C-c Enter Up",
  }),
  enter: boolean({ description: "press Enter afterwards (default false)" }),
  socket_name: SOCKET_NAME,
});

export const sendKeysTool = defineTool({
  name: "send_keys",
  title: "Send keys to a pane",
  toolset: "execute",
  description:
    "Type into a pane (exact %N): text as is (literal, the default), or tmux key names such " +
    "as C-c Enter Up M-Left F5 with literal: false (a word that is not a key name, such as " +
    "Ctrl-C, is refused rather than typed); enter: true presses Enter after. Use it for " +
    "TUIs, REPLs and prompts. For a shell command you wrote and want the exit status of, use " +
    "run_command; for a large block of text use paste_text. It returns a cursor taken just " +
    "before typing: pass it to wait_for_text (or capture_since) to see the effect without " +
    "missing fast output; the echo of the typed text is not taken for output.",
  inputSchema: SEND_KEYS_INPUT,
  outputSchema: TYPED_OUTPUT,
  annotations: PROGRAM_INPUT,
  handle: async (context, a, extra) => {
    const words = a.keys.split(/\s+/).filter((key) => key !== "");
    const unknown = a.literal === false ? words.findIndex((word) => !isKeyName(word)) : -1;
    if (unknown >= 0) return unknownKey(unknown + 1, words.length);
    const client = clientFor(context, a.socket_name);
    // The look that finds the pane is the cursor's moment: before the first key.
    const before = await snapshot(client, context.tempFiles, a.pane_id, extra.signal)
      .catch(() => null);
    if (before === null) return CANCELLED;
    if (!before.ok) return before.payload;
    const typed = a.literal === false ? null : a.keys;
    const cursor = keepCursor(context, client, before.value, typed);
    const keys = a.literal === false ? ["--", ...words] : ["-l", "--", a.keys];
    const out = await tmuxCall(client, [
      "send-keys",
      "-t",
      a.pane_id,
      ...keys,
      ...(a.enter ? [";", "send-keys", "-t", a.pane_id, "Enter"] : []),
    ]);
    return out.ok ? success({ target: a.pane_id, cursor }) : out.payload;
  },
});

const PASTE_TEXT_INPUT = toolInput(["pane_id", "text"], {
  pane_id: PANE_ID,
  text: string({
    minLength: 1,
    maxLength: 1048576,
    description: "the text to paste, as is (newlines included), 1 to 1048576 characters; " +
      "nothing presses Enter afterwards",
  }),
  bracketed: boolean({
    description: "paste as bracketed paste when the program asked for it, so it is taken as one " +
      "paste (default true)",
  }),
  socket_name: SOCKET_NAME,
});

export const pasteTextTool = defineTool({
  name: "paste_text",
  title: "Paste text into a pane",
  toolset: "execute",
  description:
    "Paste a block of text into a pane (exact %N) through a tmux buffer, as bracketed paste " +
    "when the program asked for it, so editors and shells take it as one paste. Nothing " +
    "presses Enter. It returns a cursor taken just before pasting, for wait_for_text or " +
    "capture_since. For keystrokes use send_keys; for a command with its exit status use " +
    "run_command.",
  inputSchema: PASTE_TEXT_INPUT,
  outputSchema: TYPED_OUTPUT,
  annotations: PROGRAM_INPUT,
  handle: async (context, a, extra) => {
    const client = clientFor(context, a.socket_name);
    const before = await snapshot(client, context.tempFiles, a.pane_id, extra.signal)
      .catch(() => null);
    if (before === null) return CANCELLED;
    if (!before.ok) return before.payload;
    const cursor = keepCursor(context, client, before.value, a.text);
    const out = await pasteIntoPane(client, context.tempFiles, a.pane_id, a.text, {
      bracketed: a.bracketed !== false,
      enter: false,
    });
    return out.ok ? success({ target: a.pane_id, cursor }) : out.payload;
  },
});

const RESPAWN_PANE_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  kill: boolean({
    description: "end the program still running in the pane first (default false; refused for " +
      "the pane this server runs in)",
  }),
  command: string({
    minLength: 1,
    maxLength: 16384,
    description: "shell command to start instead of the pane's original one, at most 16384 " +
      "characters; default: the original command",
  }),
  start_directory: START_DIRECTORY,
  socket_name: SOCKET_NAME,
});

export const respawnPaneTool = defineTool({
  name: "respawn_pane",
  title: "Restart a pane's program",
  toolset: "execute",
  description:
    "Restart a pane (exact %N) whose program exited, with its original command or a new " +
    "one; kill: true first ends a program that is still running (refused for the pane this " +
    "server runs in). Cursors from capture_since then report lines_missed. To remove the pane " +
    "use kill_pane.",
  inputSchema: RESPAWN_PANE_INPUT,
  outputSchema: DONE_OUTPUT,
  annotations: PROGRAM_INPUT,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.pane_id, "#{pane_id}", "");
    if (!found.ok) return found.payload;
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
    return out.ok ? success({ target: a.pane_id }) : out.payload;
  },
});

const SET_ENVIRONMENT_INPUT = toolInput(["name"], {
  name: string({
    pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
    maxLength: 256,
    description: "variable name (letters, digits and '_', not starting with a digit), at most " +
      "256 characters",
  }),
  value: string({
    maxLength: 65536,
    description: "the value, at most 65536 characters; default: empty. Ignored with unset",
  }),
  unset: boolean({ description: "remove the variable instead of setting it (default false)" }),
  global: boolean({
    description: "the global environment instead of one session's (default false: then give " +
      "session_id or session_name)",
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
    "Set or unset a variable in a session's tmux environment (or the global one), which " +
    "processes started later in that session inherit; running shells do not see it. To " +
    "change a running shell's variables use run_command.",
  inputSchema: SET_ENVIRONMENT_INPUT,
  outputSchema: DONE_OUTPUT,
  annotations: { ...PROGRAM_INPUT, idempotentHint: true, destructiveHint: false },
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    let scope = ["-g"];
    let target = "global";
    if (!a.global) {
      const session = await resolveSession(client, a);
      if (!session.ok) return session.payload;
      scope = ["-t", session.value];
      target = session.value;
    }
    const change = a.unset ? ["-u", a.name] : [a.name, a.value ?? ""];
    const out = await tmuxCall(client, ["set-environment", ...scope, ...change]);
    return out.ok ? success({ target }) : out.payload;
  },
});

export const EXECUTE_TOOLS = [sendKeysTool, pasteTextTool, respawnPaneTool, setEnvironmentTool];
