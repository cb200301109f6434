// What the full-size output scripts cost by themselves, with no MCP, tmux or helper: each run as
// `/bin/sh -c SCRIPT` from this process, its two outputs read to the end, beside `true` the same
// way, interleaved. The difference is what the script adds to a bare `true` wherever it runs, so
// `1 + (script alone - true alone) / tmux_run true` is the least a tmux_run of it can be as a
// multiple of a tmux_run of `true`, for a server that added nothing at all for the output: a
// target below that floor cannot be met by the server, and the faster `true` gets, the higher the
// floor (docs/design/full_size_output.md).
import { round, summarize, type Summary } from "./stats.ts";

export type ScriptsAlone = Record<string, Summary>;

async function runAlone(script: string): Promise<number> {
  const start = performance.now();
  const { code } = await new Deno.Command("/bin/sh", {
    args: ["-c", script],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - start;
  if (code !== 0) throw new Error(`a script run alone exited ${code}`);
  return elapsed;
}

/** `runs` rounds, each running every script once (true first), after two rounds of warm-up. */
export async function benchScriptsAlone(
  scripts: Record<string, string>,
  runs: number,
): Promise<ScriptsAlone> {
  const all = { "true": "true", ...scripts };
  const times: Record<string, number[]> = Object.fromEntries(
    Object.keys(all).map((name) => [name, []]),
  );
  for (let pass = -2; pass < runs; pass++) {
    for (const [name, script] of Object.entries(all)) {
      const elapsed = await runAlone(script);
      if (pass >= 0) times[name].push(elapsed);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, ms]) => [name, summarize(ms)]));
}

/** The floor above for each script, given tmux_run `true`'s p50 in the same run. */
export function ratioFloors(alone: ScriptsAlone, runTrueP50: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(alone)
      .filter(([name]) => name !== "true")
      .map(([name, summary]) => [
        name,
        round(1 + (summary.p50 - alone["true"].p50) / runTrueP50),
      ]),
  );
}

/**
 * Whether one run's `tmux_run true` could meet two of issue 18's targets at once: at most
 * `toBaseline` × the send-keys + wait-for baseline (item 5: 0.4), and, so that `script` can stay
 * within `bigToTrue` × `true` (item 6: 3) when it adds (script alone - true alone) wherever it
 * runs, at least that extra / (bigToTrue - 1). `open` is false when no `true` can meet both.
 */
export function trueWindow(
  alone: ScriptsAlone,
  script: string,
  baselineP50: number,
  { toBaseline, bigToTrue }: { toBaseline: number; bigToTrue: number },
): { at_least_ms: number; at_most_ms: number; open: boolean } {
  const atLeast = round((alone[script].p50 - alone["true"].p50) / (bigToTrue - 1));
  const atMost = round(toBaseline * baselineP50);
  return { at_least_ms: atLeast, at_most_ms: atMost, open: atLeast <= atMost };
}
