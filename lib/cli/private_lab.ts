// A private tmux server with one clean zsh pane, for the demo, the CI smoke check, the tests and
// the benchmark. It never touches the person's own tmux: a unique -L socket, -f /dev/null, a
// ZDOTDIR in a temp dir and a minimal environment. Its tmux comes from configuration (--tmux,
// LIBTMUX_TMUX_BIN, else PATH), so the same tests run against any tmux; close() kills that
// server and removes the socket file tmux leaves behind and the temp dir.
import { randomHex } from "../util/ids.ts";
import { pollUntil } from "../util/delay.ts";
import { runTmux, socketPath, type TmuxClient } from "../tmux/tmux.ts";

export const LAB_PROMPT = "lab# ";
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The tmux the lab runs: the configured one (`--tmux`, else LIBTMUX_TMUX_BIN), else the first
 * `tmux` on PATH, as an absolute path so that every client and the pane's shell (whose PATH leads
 * with its directory) use the same one.
 */
export async function labTmuxBinary(
  configured = Deno.env.get("LIBTMUX_TMUX_BIN"),
): Promise<string> {
  if (configured && configured !== "tmux") {
    return configured.includes("/") ? await Deno.realPath(configured) : configured;
  }
  for (const dir of (Deno.env.get("PATH") ?? SYSTEM_PATH).split(":")) {
    const candidate = `${dir || "."}/tmux`;
    const info = await Deno.stat(candidate).catch(() => null);
    if (info?.isFile && ((info.mode ?? 0) & 0o111) !== 0) return candidate;
  }
  return "tmux";
}

/** The lab's PATH: the system's, led by the directory of the lab's tmux. */
function labPath(tmuxBin: string): string {
  const slash = tmuxBin.lastIndexOf("/");
  return slash > 0 ? `${tmuxBin.slice(0, slash)}:${SYSTEM_PATH}` : SYSTEM_PATH;
}

export type PrivateLab = {
  dir: string;
  socketName: string;
  tmux: TmuxClient;
  pane: string;
  tmuxCmd: (...args: string[]) => Promise<string>;
  waitForPrompt: (pane?: string) => Promise<boolean>;
  close: () => Promise<void>;
};

/** Polls `condition` every 20 ms until it holds; throws naming `what` after `ms`. */
export async function waitFor<T>(
  what: string,
  condition: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  ms = 10_000,
): Promise<T> {
  const value = await pollUntil(condition, ms, 20);
  if (value === null) throw new Error(`timed out waiting for ${what}`);
  return value;
}

/**
 * The lab's zsh: interactive, ZDOTDIR in the lab, and nothing from our environment but what
 * tmux itself gives a pane (TMUX, TMUX_PANE), as a person's shell would have.
 */
export function labZshCommand(dir: string, tmuxBin = "tmux"): string[] {
  const keep = [
    `PATH=${labPath(tmuxBin)}`,
    `HOME=${dir}/home`,
    `ZDOTDIR=${dir}/zdotdir`,
    "TERM=xterm-256color",
    "LANG=C.UTF-8",
    `DENO_DIR=${denoCacheDirectory()}`,
    ...Object.entries(denoTrustEnvironment()).map(([name, value]) => `${name}=${value}`),
  ].map((assignment) => `'${assignment}'`).join(" ");
  return ["/bin/sh", "-c", `exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${keep} zsh -i`];
}

/**
 * Our Deno cache, handed to the lab's shell so the helper it starts finds its modules there
 * instead of filling (and outliving) a fresh cache in the lab's temporary HOME.
 */
function denoCacheDirectory(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache`;
  return Deno.env.get("DENO_DIR") ?? `${cache}/deno`;
}

/**
 * The variables that tell Deno which certificate authorities to trust. A Deno started with a
 * scrubbed environment and a cold cache must still reach the npm registry through a proxy that
 * only these make trusted, so every clean environment we build keeps them.
 */
export function denoTrustEnvironment(): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ["SSL_CERT_FILE", "SSL_CERT_DIR", "DENO_CERT", "DENO_TLS_CA_STORE"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/**
 * Waits until the pane's last line is the empty prompt; a tmux_run's notice shown under it
 * (helper.sh, `zle -M`) is not a line of the pane's own.
 */
export function waitForPromptIn(
  tmuxCmd: (...args: string[]) => Promise<string>,
  pane: string,
): Promise<boolean> {
  return waitFor("the zsh prompt", async () => {
    const screen = await tmuxCmd("capture-pane", "-p", "-t", pane);
    const lines = screen.split("\n").filter((l) => l !== "");
    if (lines.at(-1)?.startsWith(NOTICE_START)) lines.pop();
    return lines.at(-1) === LAB_PROMPT.trimEnd();
  });
}

/** How a tmux_run notice under the prompt begins (lib/run/run_notice.ts). */
export const NOTICE_START = "tmux-mcp: run ";

export async function openLab(
  options: { prefix?: string; zshrc?: string; tmuxBin?: string } = {},
): Promise<PrivateLab> {
  const prefix = options.prefix ?? "tmux-mcp-lab";
  const dir = await Deno.makeTempDir({ prefix: `${prefix}-` });
  const socketName = `${prefix}-${randomHex(6)}`;
  const tmux: TmuxClient = {
    bin: options.tmuxBin ?? await labTmuxBinary(),
    socket: { kind: "name", name: socketName },
  };
  const tmuxCmd = async (...args: string[]) => {
    const result = await runTmux(tmux, args);
    if (result.code !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr.trim()}`);
    return result.stdout.trim();
  };
  const waitForPrompt = (pane = lab.pane) => waitForPromptIn(tmuxCmd, pane);
  const close = async () => {
    await stopTmuxServer(tmux);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const lab: PrivateLab = {
    dir,
    socketName,
    tmux,
    pane: "",
    tmuxCmd,
    waitForPrompt,
    close,
  };
  try {
    await Deno.mkdir(`${dir}/zdotdir`);
    await Deno.mkdir(`${dir}/home`);
    await Deno.writeTextFile(
      `${dir}/zdotdir/.zshrc`,
      `PROMPT='${LAB_PROMPT}'\n${options.zshrc ?? ""}\n`,
    );
    const started = await new Deno.Command(tmux.bin, {
      args: [
        "-u",
        "-L",
        socketName,
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "40",
        "--",
        ...labZshCommand(dir, tmux.bin),
      ],
      clearEnv: true,
      env: {
        PATH: labPath(tmux.bin),
        HOME: `${dir}/home`,
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
      },
    }).output();
    if (started.code !== 0) throw new Error("tmux new-session failed");
    lab.pane = await tmuxCmd("display-message", "-p", "-t", "$0", "#{pane_id}");
    await waitForPrompt();
    return lab;
  } catch (error) {
    await close();
    throw error;
  }
}

/** Kills a private tmux server and removes the socket file kill-server leaves behind. */
export async function stopTmuxServer(tmux: TmuxClient): Promise<void> {
  await runTmux(tmux, ["kill-server"]).catch(() => {});
  // The server is gone once nothing answers on its socket.
  await waitFor("the private tmux server to exit", async () => {
    const probe = await runTmux(tmux, ["list-sessions"]);
    return probe.code !== 0;
  });
  await Deno.remove(socketPath(tmux.socket)).catch(() => {});
}

/** Types `source FILE` into the pane, as the person lending it would. */
export async function sourceInPane(lab: PrivateLab, setupFile: string, pane = lab.pane) {
  await lab.tmuxCmd("send-keys", "-t", pane, "-l", `source ${setupFile}`);
  await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
}
