// How text reaches a pane without send-keys quoting: it is written to a file lent from the
// server's private directory (lib/host/temp_files.ts), loaded into a uniquely named tmux buffer and
// pasted (bracketed when asked) in one tmux command, optionally followed by Enter in the same
// queue turn. The paste carries the bytes as they are on every tmux (from 3.7 that takes -S,
// versions.ts); only each newline becomes a carriage return, as a terminal pastes it. The
// buffer is deleted by the paste, and the file emptied when given back.
import { randomHex } from "../util/ids.ts";
import { TempDirectoryError } from "../host/directory_problems.ts";
import type { TempFiles } from "../host/temp_files.ts";
import { failed, tmuxCall, tmuxCallSpawned, type TmuxOutcome } from "./targets.ts";
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
      const line = [
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
      ];
      const out = await tmuxCall(client, line, signal);
      // Through a control connection the tmux server reads FILE itself, and one that sees
      // another /tmp (another mount namespace: a sandboxed client's server) finds no such file,
      // so nothing was pasted; a spawned client reads FILE in this server's view. A pane that is
      // gone, or a server that did not answer, would say the same again.
      if (out.ok || out.failure.kind === "not_found" || out.failure.kind === "not_answering") {
        return out;
      }
      return await tmuxCallSpawned(client, line, signal);
    });
  } catch (error) {
    if (error instanceof TempDirectoryError) {
      return failed({ kind: "directory", purpose: "paste", error });
    }
    throw error;
  }
}
