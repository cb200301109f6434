// The notice a person sees after a tmux_run in their pane: one line in zle's message area under
// the prompt, shown only at an idle, empty prompt and otherwise dropped, never written into the
// command line, the history or the cursor's line; `--quiet` at enrollment turns it off. The
// line and the history are read by a widget of the person's own (^X d), before and after, and
// compared byte for byte, with powerlevel9k's hooks and widgets and zsh-autosuggestions' widget
// wrappers loaded when the system has them (.ci/run installs both; the theme's prompt is put back
// to the lab's afterwards, for the harness to find).
import assert from "node:assert/strict";
import { ENROLL, type Lab, typeInto, waitFor, withLab, withServer } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
import { NOTICE_START } from "../lib/cli/private_lab.ts";

/** A widget that writes the line, the cursor and every history entry to $ZDOTDIR/dump. */
const DUMP_WIDGET = `
HISTSIZE=100
typeset -gi _dumps=0
_dump() {
  local k
  {
    print -r -- "dump $(( ++_dumps ))"
    print -r -- "BUFFER=$BUFFER"
    print -r -- "CURSOR=$CURSOR"
    print -r -- "powerlevel9k=\${+functions[powerlevel9k_prepare_prompts]}"
    print -r -- "autosuggestions=\${+functions[_zsh_autosuggest_start]}"
    for k in \${(on)\${(k)history}}; do print -r -- "$k $history[$k]"; done
  } > $ZDOTDIR/dump.new && command mv $ZDOTDIR/dump.new $ZDOTDIR/dump
}
zle -N _dump
bindkey '^Xd' _dump
`;

const POWERLEVEL9K = "/usr/share/powerlevel9k/powerlevel9k.zsh-theme";

/** powerlevel9k when installed: its precmd, preexec and keymap widget run, its prompt does not. */
const THEME = await Deno.stat(POWERLEVEL9K).then(
  () =>
    `source ${POWERLEVEL9K}\n_lab_prompt() { PROMPT='lab# '; RPROMPT=''; }\n` +
    "add-zsh-hook precmd _lab_prompt\n",
  () => "",
);

const AUTOSUGGESTIONS = "/usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh";

/** zsh-autosuggestions when installed: it wraps every widget and draws suggestions after the line. */
const SUGGESTIONS = await Deno.stat(AUTOSUGGESTIONS).then(
  () => `source ${AUTOSUGGESTIONS}\n`,
  () => "",
);

let dumps = 0;

/** The line, cursor and history as the shell holds them now, read by the person's widget. */
async function dump(lab: Lab): Promise<string> {
  const n = ++dumps;
  await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-x", "d");
  const file = `${lab.dir}/zdotdir/dump`;
  let text = "";
  await waitFor(`dump ${n}`, async () => {
    text = await Deno.readTextFile(file).catch(() => "");
    return text.startsWith(`dump ${n}\n`);
  });
  return text.slice(text.indexOf("\n") + 1);
}

async function screen(lab: Lab): Promise<string[]> {
  return (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).split("\n").filter((l) =>
    l !== ""
  );
}

Deno.test(
  "after a run the person sees one notice under the prompt; the line and history are untouched",
  () =>
    withLab(async (lab) => {
      dumps = 0;
      await withServer(lab, ENROLL, async (s) => {
        await s.enroll();
        await typeInto(lab, "echo before", true);
        await waitFor("the command's output", async () => (await screen(lab)).includes("before"));
        const before = await dump(lab);
        assert.match(before, /echo before/);
        assert.match(before, THEME ? /powerlevel9k=1/ : /powerlevel9k=0/);
        assert.match(before, SUGGESTIONS ? /autosuggestions=1/ : /autosuggestions=0/);
        const result = await s.run("echo hi\nexit 3");
        assert.equal(result.ok, true, JSON.stringify(result));
        const runId = result.data.authorization.run_id.slice(0, 8);
        let lines: string[] = [];
        await waitFor("the notice", async () => {
          lines = await screen(lab);
          return lines.some((line) => line.startsWith(NOTICE_START));
        });
        const notice = lines.find((line) => line.startsWith(NOTICE_START))!;
        assert.match(
          notice,
          new RegExp(
            `^tmux-mcp: run ${runId} "echo hi" and 1 more line ` +
              `exited 3 after \\d+\\.\\d s$`,
          ),
        );
        assert.equal(lines.filter((line) => line.startsWith(NOTICE_START)).length, 1);
        assert.equal(await dump(lab), before);
      });
    }, DUMP_WIDGET + THEME + SUGGESTIONS),
);

Deno.test(
  "a notice waits for nobody: with text on the line it is dropped and the line stays as typed",
  () =>
    withLab(async (lab) => {
      dumps = 0;
      await withServer(lab, ENROLL, async (s) => {
        await s.enroll();
        const fifo = `${lab.dir}/go`;
        await new Deno.Command("mkfifo", { args: [fifo] }).output();
        const running = s.run(`read line < ${fifo}; echo "$line"`);
        await waitFor("the script to run", () =>
          s.server.context.enrollments?.shells.get(lab.pane)?.run !== null);
        await typeInto(lab, "echo half");
        await waitFor("the half-typed line", async () =>
          (await screen(lab)).some((line) =>
            line.endsWith("echo half")
          ));
        const before = await dump(lab);
        assert.match(before, /^BUFFER=echo half\nCURSOR=9\n/);
        await Deno.writeTextFile(fifo, "go\n");
        assert.equal((await running).ok, true);
        // The shell reads its channel in order: the notice came before this request, so the
        // answer "busy" means the notice was handled (and dropped) first.
        const refused = await s.run("true");
        assert.equal(refused.error.code, "unsupported");
        assert.equal(await dump(lab), before);
        assert.equal(
          (await screen(lab)).some((line) =>
            line.startsWith(NOTICE_START)
          ),
          false,
        );
      });
    }, DUMP_WIDGET + SUGGESTIONS),
);

Deno.test(
  "a shell enrolled quiet (enroll --quiet sets _tmux_mcp_quiet for the source) shows no notice",
  () =>
    withLab((lab) =>
      withServer(lab, ENROLL, async (s) => {
        await s.enroll();
        assert.equal((await s.run("true")).ok, true);
        // The second run is answered only after the shell read the first one's notice.
        assert.equal((await s.run("true")).ok, true);
        assert.equal((await screen(lab)).some((line) => line.startsWith(NOTICE_START)), false);
      }), "_tmux_mcp_quiet=1"),
);

Deno.test('eval "$(tmux-mcp enroll --quiet)" lends the pane without notices and leaves no variable', () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      const enroll = `DENO_DIR='${DENO_DIR}' '${Deno.execPath()}' run -A --no-config '${MAIN}' ` +
        "enroll --quiet";
      await typeInto(lab, `eval "$(${enroll})"`, true);
      await waitFor("the pane to be enrolled", () =>
        s.server.context.enrollments?.shells.has(lab.pane));
      assert.equal((await s.run("true")).ok, true);
      assert.equal((await s.run("true")).ok, true);
      assert.equal(
        (await screen(lab)).some((line) =>
          line.startsWith(NOTICE_START)
        ),
        false,
      );
      await typeInto(lab, 'echo "quiet=${+_tmux_mcp_quiet}"', true);
      await waitFor("the variable's answer", async () => (await screen(lab)).includes("quiet=0"));
    })
  ));
