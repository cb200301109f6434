// The one way this server runs tmux: an argv through Deno.Command, never a shell string, with
// the socket passed explicitly and TMUX/TMUX_PANE stripped so that a server started inside
// tmux cannot silently talk to the tmux it happens to live in. Every client runs with `-u`:
// MCP clients start servers without a locale, and a tmux client that does not believe in UTF-8
// prints tabs and non-ASCII in `-F` output as `_`, which no parser can undo.
export type SocketChoice = { kind: "default" } | { kind: "name"; name: string } | {
  kind: "path";
  path: string;
};

export type TmuxClient = { bin: string; socket: SocketChoice };

export type TmuxResult = { code: number; stdout: string; stderr: string };

let cleanEnv: Record<string, string> | undefined;

/** This process's environment without TMUX and TMUX_PANE, for every tmux client it starts. */
export function tmuxEnvironment(): Record<string, string> {
  if (!cleanEnv) {
    const env = Deno.env.toObject();
    delete env.TMUX;
    delete env.TMUX_PANE;
    cleanEnv = env;
  }
  return cleanEnv;
}

/** The global flags of every client: UTF-8 output always, and the socket named explicitly. */
export function clientArgs(socket: SocketChoice): string[] {
  if (socket.kind === "name") return ["-u", "-L", socket.name];
  if (socket.kind === "path") return ["-u", "-S", socket.path];
  return ["-u"];
}

export type RawTmuxResult = { code: number; stdout: Uint8Array; stderr: string };

/** Like runTmux, with stdout as the exact bytes tmux wrote (captures must not lose any). */
async function runTmuxRaw(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<RawTmuxResult> {
  const output = await new Deno.Command(client.bin, {
    args: [...clientArgs(client.socket), ...args],
    env: tmuxEnvironment(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal,
  }).output();
  return {
    code: output.code,
    stdout: output.stdout,
    stderr: new TextDecoder().decode(output.stderr),
  };
}

export async function runTmux(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxResult> {
  const raw = await runTmuxRaw(client, args, signal);
  return { code: raw.code, stdout: new TextDecoder().decode(raw.stdout), stderr: raw.stderr };
}

/** Where tmux puts the socket for this choice, as tmux itself computes it. */
export function socketPath(socket: SocketChoice): string {
  if (socket.kind === "path") return socket.path;
  const dir = Deno.env.get("TMUX_TMPDIR") || "/tmp";
  return `${dir}/tmux-${Deno.uid()}/${socket.kind === "name" ? socket.name : "default"}`;
}

export type TmuxVersion = { text: string; atLeast33: boolean };

export async function tmuxVersion(client: TmuxClient): Promise<TmuxVersion | null> {
  let result: TmuxResult;
  try {
    result = await runTmux(client, ["-V"]);
  } catch {
    return null;
  }
  if (result.code !== 0) return null;
  const text = result.stdout.trim();
  const match = /(\d+)\.(\d+)/.exec(text);
  const atLeast33 = match
    ? Number(match[1]) > 3 || (Number(match[1]) === 3 && Number(match[2]) >= 3)
    : /master|next/.test(text);
  return { text, atLeast33 };
}
