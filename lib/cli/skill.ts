// The skill for agents (skills/tmux-mcp/SKILL.md): when to use which tool, how a person lends a
// pane, act-then-wait, long runs and the refusals. One file serves three kinds of client: those
// that load skills from a folder read it in the repository, `tmux-mcp skill` prints it for the
// rest, and the server serves it through MCP's Skills extension (lib/server/skills.ts). It is
// imported as text, so it travels with the code from a checkout, a URL and a bundle.
import skillMarkdown from "../../skills/tmux-mcp/SKILL.md" with { type: "text" };

/** The skill's name: its folder in skills/, the `name` of its frontmatter, its URI's last part. */
export const SKILL_NAME = "tmux-mcp";

/** SKILL.md, byte for byte as in the repository. */
export const SKILL_MARKDOWN: string = skillMarkdown;

/** `tmux-mcp skill`: SKILL.md on stdout, every byte (a pipe may take a write in parts). */
export async function printSkill(): Promise<number> {
  const bytes = new TextEncoder().encode(SKILL_MARKDOWN);
  for (let written = 0; written < bytes.length;) {
    written += await Deno.stdout.write(bytes.subarray(written));
  }
  return 0;
}
