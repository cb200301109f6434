// Typing into a pane with send-keys, however long the input. A tmux client hands its command to
// the server as one message of at most 16,384 bytes (MAX_IMSGSIZE, compat/imsg.h), which leaves
// 16,364 bytes for the arguments with their NULs (client.c answers a longer one "failed to send
// command" or "command too long"), and the server unpacks at most 1,000 arguments
// (cmd_unpack_argv, cmd.c). So 16,384 newlines, or quotes (which never go through a control
// client's quoted line), or a thousand key names, did not fit one command: the input goes as
// several send-keys commands, each within those limits, run one after another, in order. Text
// is cut only between characters, and stays literal (-l) in every piece; a key name `;` goes by
// its code, 0x3b, since a lone `;` separates commands in tmux's argv.
import { failed, tmuxCall, type TmuxOutcome } from "./targets.ts";
import type { TmuxClient } from "./tmux.ts";

/** tmux's 16,364 bytes of arguments in one command, less room for a `\` added before a `;`. */
export const COMMAND_BYTES = 16_000;
/** tmux's 1,000 arguments in one command, with room to spare. */
export const COMMAND_ARGUMENTS = 900;

const encoder = new TextEncoder();

/** What tmux's packed argv holds for `args`: each one's bytes and its NUL. */
function packedBytes(args: string[]): number {
  return args.reduce((sum, arg) => sum + encoder.encode(arg).length + 1, 0);
}

/** `text` in pieces of at most `bytes` UTF-8 bytes each, cut only between code points. */
export function textPieces(text: string, bytes: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  let size = 0;
  for (const char of text) {
    const length = encoder.encode(char).length;
    if (size + length > bytes && piece !== "") {
      pieces.push(piece);
      piece = "";
      size = 0;
    }
    piece += char;
    size += length;
  }
  if (piece !== "") pieces.push(piece);
  return pieces;
}

export type Keys = { literal: string } | { names: string[] };

/**
 * The tmux command lines (argv, `;` between commands) that type `keys` into `paneId` and then,
 * with `enter`, press Enter: every line within COMMAND_BYTES and COMMAND_ARGUMENTS.
 */
export function sendKeysLines(paneId: string, keys: Keys, enter: boolean): string[][] {
  const head = ["send-keys", "-t", paneId];
  const commands: string[][] = [];
  if ("literal" in keys) {
    // The piece's own NUL counts too.
    const room = COMMAND_BYTES - packedBytes([...head, "-l", "--"]) - 1;
    for (const piece of textPieces(keys.literal, room)) {
      commands.push([...head, "-l", "--", piece]);
    }
  } else {
    const start = [...head, "--"];
    let command = [...start];
    let size = packedBytes(start);
    for (const word of keys.names) {
      // A lone `;` separates commands in tmux's argv: the same key by its code.
      const name = word === ";" ? "0x3b" : word;
      const bytes = packedBytes([name]);
      if (command.length >= COMMAND_ARGUMENTS || size + bytes > COMMAND_BYTES) {
        commands.push(command);
        command = [...start];
        size = packedBytes(start);
      }
      command.push(name);
      size += bytes;
    }
    if (command.length > start.length) commands.push(command);
  }
  if (enter) commands.push([...head, "Enter"]);
  // Commands that fit one line together go as one, as before: most input is one tmux call.
  const lines: string[][] = [];
  for (const command of commands) {
    const last = lines.at(-1);
    const joined = last ? [...last, ";", ...command] : null;
    if (joined && joined.length <= COMMAND_ARGUMENTS && packedBytes(joined) <= COMMAND_BYTES) {
      lines[lines.length - 1] = joined;
    } else {
      lines.push(command);
    }
  }
  return lines;
}

/**
 * Runs the lines of sendKeysLines in order from `from` (the lines before it already ran, as
 * snapshotThen runs the first), stopping at the first tmux refuses. When that is not the first
 * line, what came before it was typed: the failure says so (partly_typed).
 */
export async function sendKeys(
  client: TmuxClient,
  lines: string[][],
  from = 0,
  signal?: AbortSignal,
): Promise<TmuxOutcome<void>> {
  for (const [index, line] of lines.entries()) {
    if (index < from) continue;
    const out = await tmuxCall(client, line, signal);
    if (out.ok) continue;
    if (index === 0) return out;
    return failed({
      kind: "partly_typed",
      failure: out.failure,
      typed: index,
      commands: lines.length,
      commandBytes: COMMAND_BYTES,
    });
  }
  return { ok: true, value: undefined };
}
