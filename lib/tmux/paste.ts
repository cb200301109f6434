// How text reaches a pane without send-keys quoting: it is written to a private temp file,
// loaded into a uniquely named tmux buffer and pasted (bracketed when asked) in one tmux
// command, optionally followed by Enter in the same queue turn. The buffer is deleted by the
// paste and the file right after, whatever happened.
import { randomHex } from "../ids.ts";
import { withTempFile } from "../temp_file.ts";
import { tmuxCall, type TmuxOutcome } from "./targets.ts";
import type { TmuxClient } from "./tmux.ts";

export async function pasteIntoPane(
  client: TmuxClient,
  paneId: string,
  text: string,
  options: { bracketed: boolean; enter: boolean },
  signal?: AbortSignal,
): Promise<TmuxOutcome<string>> {
  const buffer = `tmux-mcp-${randomHex(8)}`;
  return await withTempFile("tmux-mcp-paste-", (file) => {
    Deno.writeTextFileSync(file, text);
    return tmuxCall(client, [
      "load-buffer",
      "-b",
      buffer,
      file,
      ";",
      "paste-buffer",
      "-d",
      ...(options.bracketed ? ["-p"] : []),
      "-b",
      buffer,
      "-t",
      paneId,
      ...(options.enter ? [";", "send-keys", "-t", paneId, "Enter"] : []),
    ], signal);
  });
}
