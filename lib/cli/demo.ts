// The main job, for a newcomer's first five minutes: build a private tmux server and zsh pane,
// lend the pane to a real MCP server (showing what a person types), run a script through the
// MCP protocol, print the receipt, completion and outputs, and clean everything up.
import { failureLine, type LentPaneConfig, withLentPane } from "./lent_pane.ts";
import { missingPrerequisite } from "./prerequisites.ts";

const DEMO_SCRIPT = `echo "hello from the enrolled pane, in $PWD"
echo "this line goes to stderr" >&2
exit 3`;

export async function runDemo(config: LentPaneConfig): Promise<number> {
  const missing = await missingPrerequisite(config.tmuxBin);
  if (missing) {
    console.error(`tmux-mcp demo: ${missing}`);
    return 1;
  }
  console.log("1. A private tmux server with one zsh pane, and tmux-mcp started as an MCP server");
  console.log("   with --enable-tool tmux_run --enroll-pane <pane>=<setup file>.");
  try {
    return await demo(config);
  } catch (error) {
    console.error(`tmux-mcp demo: ${failureLine(error)}`);
    return 1;
  }
}

function demo(config: LentPaneConfig): Promise<number> {
  return withLentPane(config, async ({ lab, mcp, generation }) => {
    console.log(`3. The pane is enrolled. tmux_capabilities says generation ${generation}.`);
    console.log("4. tmux_run through MCP, with this script:");
    for (const line of DEMO_SCRIPT.split("\n")) console.log(`     ${line}`);
    const answer = await mcp.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation },
      script: DEMO_SCRIPT,
    });
    if (!answer.ok) {
      console.error(
        `tmux-mcp demo: tmux_run failed: ${answer.error.code}: ${answer.error.message}`,
      );
      return 1;
    }
    const { authorization, completion, stdout, stderr } = answer.data;
    console.log("5. The result:");
    console.log(`   receipt:    run ${authorization.run_id} in ${authorization.pane_id}`);
    console.log(`               script sha256 ${authorization.script_digest}`);
    console.log(`               enrollment ${authorization.enrollment_generation}`);
    console.log(`   completion: ${JSON.stringify(completion)}`);
    console.log(
      `   stdout:     ${JSON.stringify(stdout.data)} (${stdout.bytes} bytes, ${stdout.encoding})`,
    );
    console.log(
      `   stderr:     ${JSON.stringify(stderr.data)} (${stderr.bytes} bytes, ${stderr.encoding})`,
    );
    console.log("6. Everything this demo made is removed now.");
    return completion.state === "exited" && completion.exit_status === 3 ? 0 : 1;
  }, {
    willType: (pane, line) => {
      console.log(`2. A person lends pane ${pane} by typing in it:`);
      console.log(`     ${line}`);
    },
  });
}
