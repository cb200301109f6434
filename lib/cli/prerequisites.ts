// What tmux_run needs from the machine, checked before the demo or the smoke check builds
// anything, so a missing or old tmux or zsh is one clear line instead of a hung enrollment.
import { tmuxVersion } from "../tmux/tmux.ts";

export async function missingPrerequisite(tmuxBin = "tmux"): Promise<string | null> {
  const tmux = await tmuxVersion({ bin: tmuxBin, socket: { kind: "default" } });
  if (!tmux) return "tmux is not installed (tmux 3.3 or newer is required)";
  if (!tmux.atLeast33) return `tmux 3.3 or newer is required (found ${tmux.text})`;
  let zsh: string;
  try {
    const output = await new Deno.Command("zsh", {
      args: ["-fc", "print -r -- $ZSH_VERSION"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    zsh = new TextDecoder().decode(output.stdout).trim();
  } catch {
    return "zsh is not installed (zsh 5.9 is required)";
  }
  if (!/^5\.9(\.\d+)?$/.test(zsh)) return `zsh 5.9 is required (found ${zsh || "unknown"})`;
  return null;
}
