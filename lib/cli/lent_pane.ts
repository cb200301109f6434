// One pane lent to a freshly started server, end to end: a private tmux server with a zsh
// pane, this program started as a separate MCP server with tmux_run enabled, and the pane
// enrolled the way a person does it — by typing `source FILE` in it. Used by the demo and the
// CI smoke check; everything is removed when the callback ends.
import { openLab, type PrivateLab, sourceInPane, waitFor } from "./private_lab.ts";
import { type SelfClient, startSelfServer } from "./self_client.ts";

export type LentPane = { lab: PrivateLab; mcp: SelfClient; generation: string };

export type LentPaneSteps = {
  /** Called with what a person would type, just before it is typed for them. */
  willType?: (pane: string, line: string) => void;
};

export async function withLentPane<T>(
  fn: (lent: LentPane) => Promise<T>,
  steps: LentPaneSteps = {},
): Promise<T> {
  const lab = await openLab({ prefix: "tmux-mcp-demo" });
  let mcp: SelfClient | null = null;
  try {
    const setupFile = `${lab.dir}/enroll-${lab.pane.slice(1)}`;
    mcp = await startSelfServer([
      "--socket-name",
      lab.socketName,
      "--enable-tool",
      "tmux_run",
      "--enroll-pane",
      `${lab.pane}=${setupFile}`,
    ]);
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
