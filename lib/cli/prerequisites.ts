// What tmux_run needs from the machine, checked before the demo or the smoke check builds
// anything, so a missing or old tmux or zsh, or a missing perl (the helper is a perl program,
// lib/run/helper.pl), is one clear line instead of a hung enrollment. The perl check alone is
// also what `enroll` asks first and what the server warns about at startup.
import { tmuxVersion } from "../tmux/tmux.ts";
import { behaviours } from "../tmux/versions.ts";
import { HELPER_PERL } from "../run/helper_program.ts";

export async function missingPrerequisite(tmuxBin = "tmux"): Promise<string | null> {
  const tmux = await tmuxVersion({ bin: tmuxBin, socket: { kind: "default" } });
  if (!tmux && tmuxBin !== "tmux") {
    return "the tmux that --tmux or LIBTMUX_TMUX_BIN names cannot be run (tmux 3.3 or newer " +
      "is required)";
  }
  if (!tmux) return "tmux is not installed (tmux 3.3 or newer is required)";
  if (!behaviours(tmux).tmuxRun) return `tmux 3.3 or newer is required (found ${tmux.text})`;
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
  return await helperPerlMissing();
}

/**
 * Why tmux_run's helper cannot start here, or null: it is a perl program run as HELPER_PERL, and
 * without an executable file there an enrollment would wait for a helper that never comes.
 */
export async function helperPerlMissing(): Promise<string | null> {
  const perl = await Deno.stat(HELPER_PERL).catch(() => null);
  if (perl?.isFile && ((perl.mode ?? 0) & 0o111) !== 0) return null;
  return `tmux_run's helper is a perl program and there is no executable ${HELPER_PERL} here; ` +
    "install perl";
}
