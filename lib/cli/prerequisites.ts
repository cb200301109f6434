// What tmux_run needs from the machine, checked before the demo or the smoke check builds
// anything, so a missing or old tmux or zsh, or a missing perl (the helper is a perl program,
// lib/run/helper.pl), is one clear line instead of a hung enrollment.
import { tmuxVersion } from "../tmux/tmux.ts";
import { HELPER_PERL } from "../run/helper_program.ts";

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
  const perl = await Deno.stat(HELPER_PERL).catch(() => null);
  if (!perl?.isFile) return `${HELPER_PERL} is not installed (tmux_run's helper is a perl program)`;
  return null;
}
