// Everything this server does differently by tmux version, in one place. Each behaviour names
// the tmux change it rests on (a commit of github.com/tmux/tmux, or its CHANGES line) and the
// releases it applies to; callers ask `behaviours(version)` and never compare version numbers
// themselves. docs/tmux_versions.md tells the story behind each row, with how it was measured.

/** A tmux release as `tmux -V` names it. */
export type TmuxVersion = {
  /** What `tmux -V` printed, e.g. "tmux 3.5a" or "tmux next-3.8". */
  text: string;
  /**
   * major × 100 + minor (3.5a → 305); a development build ("next-3.8", "master") counts as the
   * release it leads to. Null when the text names no release this module can place.
   */
  release: number | null;
};

/** Reads `tmux -V`'s answer. */
export function parseTmuxVersion(text: string): TmuxVersion {
  const trimmed = text.trim();
  const numbered = /(\d+)\.(\d+)/.exec(trimmed);
  if (numbered) return { text: trimmed, release: Number(numbered[1]) * 100 + Number(numbered[2]) };
  // A build from master that names no next release is newer than every release.
  if (/\bmaster\b/.test(trimmed)) return { text: trimmed, release: Number.MAX_SAFE_INTEGER };
  return { text: trimmed, release: null };
}

/** Whether the person asked for control mode on a tmux where it is not used by default. */
export type ControlModeChoice = "auto" | "always" | "never";

/** What this server does on one tmux version. */
export type TmuxBehaviours = {
  /** The runs' guard (lib/run/guard.ts) needs 3.3's formats and command-queue behaviour. */
  tmuxRun: boolean;
  /**
   * A control-mode client is safe for the person's tmux server from 3.7 on. Before it, tmux
   * writes a notification to a control client whose control state is not yet allocated and the
   * whole server dies with SIGSEGV (e5a2a25, GitHub PR 4980: anyone's `select-pane` or
   * `set-buffer` during one of our attaches); a control client's session destroyed while the
   * client lags dereferences the freed session in a one-second timer (881bec958, GitHub issue
   * 4916); a control client killed while it identifies crashes it too (GitHub PR 5004). So
   * before 3.7 every tool spawns a client per command and polls, unless the person chose
   * control mode (`--control-mode always`).
   */
  controlMode: boolean;
  /**
   * The flags a control client attaches with. `read-only` keeps a client's keys out of panes,
   * and a control client types none; from 3.7 send-keys refuses a read-only *target client*
   * (49bb43047), and a command with no client of its own targets the session's most recently
   * active client, which may be ours: so from 3.7 the client attaches without it, or the
   * person's own `tmux send-keys` fails with "client is read-only".
   */
  attachFlags: string[];
  /**
   * `capture-pane -p` answered to a control client leaks the whole capture in the tmux server
   * before 3.6 (94bafa5, GitHub issue 4590): there a capture goes through a named buffer.
   */
  capturePrintsToControl: boolean;
  /**
   * From 3.7 paste-buffer passes the buffer through vis(3) unless given -S (5b3c64219,
   * d2fa20a39); 3.6 and older refuse -S and paste the bytes as they are.
   */
  pasteVerbatimFlags: string[];
  /**
   * From 3.4 capture-pane expands formats in -S and -E, so a start line can be computed from
   * `#{history_size}` in the same command (args_strtonum_and_expand).
   */
  captureRangeExpands: boolean;
  /**
   * From 3.7 tmux refuses C0 and other invisible characters in session and window names and
   * pane titles, and sanitizes a program's name in `pane_current_command` (d339ab51e, GitHub
   * issue 4999); before, it kept them in its own escaped form.
   */
  sanitizesNames: boolean;
};

const CONTROL_MODE_SAFE_FROM = 307;

/** What this server does on `version`, given the person's control-mode choice. */
export function behaviours(
  version: TmuxVersion | null,
  choice: ControlModeChoice = "auto",
): TmuxBehaviours {
  const release = version?.release ?? null;
  const atLeast = (wanted: number) => release !== null && release >= wanted;
  const safe = atLeast(CONTROL_MODE_SAFE_FROM);
  return {
    tmuxRun: atLeast(303),
    controlMode: choice === "always" || (choice === "auto" && safe),
    attachFlags: atLeast(307) ? ["ignore-size"] : ["ignore-size", "read-only"],
    capturePrintsToControl: atLeast(306),
    pasteVerbatimFlags: atLeast(307) ? ["-S"] : [],
    captureRangeExpands: atLeast(304),
    sanitizesNames: atLeast(307),
  };
}
