// A CI smoke check that needs nothing but tmux, zsh and this program: lend a fresh zsh pane to
// a real server, run one script through MCP, and print one JSON line. The exit code is the
// script's verdict: 0 only when it exited 0.
import { failureLine, type LentPaneConfig, withLentPane } from "./lent_pane.ts";
import { missingPrerequisite } from "./prerequisites.ts";

export const DEFAULT_SMOKE_SCRIPT = `set -e
test -d "$PWD"
command -v tmux >/dev/null
printf 'shell environment ok: %s\\n' "$(uname -s)"`;

export async function runSmoke(
  config: LentPaneConfig,
  script = DEFAULT_SMOKE_SCRIPT,
): Promise<number> {
  const missing = await missingPrerequisite(config.tmuxBin);
  if (missing) {
    console.log(JSON.stringify({ ok: false, error: missing }));
    return 1;
  }
  try {
    return await smoke(config, script);
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: failureLine(error) }));
    return 1;
  }
}

function smoke(config: LentPaneConfig, script: string): Promise<number> {
  const started = performance.now();
  return withLentPane(config, async ({ lab, mcp, generation }) => {
    const enrolled = performance.now();
    const answer = await mcp.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation },
      script,
    });
    const ran = performance.now();
    const report = answer.ok
      ? {
        ok: answer.data.completion.state === "exited" && answer.data.completion.exit_status === 0,
        receipt: answer.data.authorization,
        completion: answer.data.completion,
        stdout: answer.data.stdout,
        stderr: answer.data.stderr,
      }
      : { ok: false, error: answer.error };
    console.log(JSON.stringify({
      ...report,
      timings_ms: {
        setup_and_enroll: Math.round(enrolled - started),
        run: Math.round((ran - enrolled) * 10) / 10,
      },
    }));
    return report.ok ? 0 : 1;
  });
}
