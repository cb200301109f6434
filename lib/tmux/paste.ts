// How text reaches a pane without send-keys quoting: it is written to a file lent from the
// server's private directory (lib/host/temp_files.ts), loaded into a uniquely named tmux buffer and
// pasted (bracketed when asked) in one tmux command, optionally followed by Enter in the same
// queue turn. The paste carries the bytes as they are on every tmux (from 3.7 that takes -S,
// versions.ts); only each newline becomes a carriage return, as a terminal pastes it. The
// buffer is deleted by the paste, and the file emptied when given back.
import { randomHex } from "../util/ids.ts";
import { TempDirectoryError } from "../host/directory_problems.ts";
import type { TempFiles } from "../host/temp_files.ts";
import { failed, tmuxCall, type TmuxOutcome } from "./targets.ts";
import { behavioursOf, type TmuxClient } from "./tmux.ts";

export async function pasteIntoPane(
  client: TmuxClient,
  files: TempFiles,
  paneId: string,
  text: string,
  options: { bracketed: boolean; enter: boolean },
  signal?: AbortSignal,
): Promise<TmuxOutcome<string>> {
  const buffer = `tmux-mcp-${randomHex(8)}`;
  const { pasteVerbatimFlags } = await behavioursOf(client);
  try {
    return await files.lend(async (file) => {
      await files.write(file, text);
      return await tmuxCall(client, [
        "load-buffer",
        "-b",
        buffer,
        file,
        ";",
        "paste-buffer",
        "-d",
        ...pasteVerbatimFlags,
        ...(options.bracketed ? ["-p"] : []),
        "-b",
        buffer,
        "-t",
        paneId,
        ...(options.enter ? [";", "send-keys", "-t", paneId, "Enter"] : []),
      ], signal);
    });
  } catch (error) {
    if (error instanceof TempDirectoryError) {
      return failed({ kind: "directory", purpose: "paste", error });
    }
    throw error;
  }
}
