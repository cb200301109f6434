// One pane lent to a freshly started server, end to end: a private tmux server with a zsh
// pane, this program started as a separate MCP server with tmux_run enabled, and the pane
// enrolled the way a person does it — by typing `source FILE` in it. Used by the demo and the
// CI smoke check, with the tmux and the run deadline their command line or LIBTMUX_TMUX_BIN gave;
// everything is removed when the callback ends.
import { labTmuxBinary, openLab, type PrivateLab, sourceInPane, waitFor } from "./private_lab.ts";
import { type SelfClient, startSelfServer } from "./self_client.ts";

/** How long past its run deadline a tmux_run call may take to answer (stopping, reporting). */
const RUN_ANSWER_MARGIN_SECONDS = 30;

export type LentPane = { lab: PrivateLab; mcp: SelfClient; generation: string };

export type LentPaneSteps = {
  /** Called with what a person would type, just before it is typed for them. */
  willType?: (pane: string, line: string) => void;
};

/** What the person running the demo or the smoke check configured (`--tmux`, `--run-timeout`). */
export type LentPaneConfig = { tmuxBin: string; runTimeoutSeconds: number };

export async function withLentPane<T>(
  config: LentPaneConfig,
  fn: (lent: LentPane) => Promise<T>,
  steps: LentPaneSteps = {},
): Promise<T> {
  const lab = await openLab({
    prefix: "tmux-mcp-demo",
    tmuxBin: await labTmuxBinary(config.tmuxBin),
  });
  let mcp: SelfClient | null = null;
  try {
    const setupFile = `${lab.dir}/enroll-${lab.pane.slice(1)}`;
    mcp = await startSelfServer([
      "--tmux",
      lab.tmux.bin,
      "--run-timeout",
      String(config.runTimeoutSeconds),
      "--socket-name",
      lab.socketName,
      "--enable-tool",
      "tmux_run",
      "--enroll-pane",
      `${lab.pane}=${setupFile}`,
    ], config.runTimeoutSeconds + RUN_ANSWER_MARGIN_SECONDS);
    const client = mcp;
    steps.willType?.(lab.pane, `source ${setupFile}`);
    await sourceInPane(lab, setupFile);
    const capabilities = await waitFor("the pane to be enrolled", async () => {
      const answer = await client.call("tmux_capabilities");
      const panes = answer.data?.enrolled_panes ?? [];
      return panes.some((p: { pane_id: string }) => p.pane_id === lab.pane) ? answer : null;
    });
    await lab.waitForPrompt();
    return await fn({ lab, mcp, generation: capabilities.data.generation });
  } finally {
    await mcp?.close();
    await lab.close();
  }
}

/**
 * What stopped the demo or the smoke check, in one line for a person: our own steps throw plain
 * errors that say what they waited for; a system error (a subclass) is named by its kind only,
 * since its message may hold a path.
 */
export function failureLine(error: unknown): string {
  if (!(error instanceof Error)) return "an unexpected failure";
  if (Object.getPrototypeOf(error) === Error.prototype) return error.message;
  return `${error.name} while preparing the private tmux server or the MCP server`;
}
