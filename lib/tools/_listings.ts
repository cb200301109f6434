// How listings stay bounded: each keeps its last MAX_LISTED rows and counts the ones it cut;
// and a tmux client's output as its rows.

/** The most rows a listing returns; past it the oldest are cut and counted. */
export const MAX_LISTED = 1000;

/** The last MAX_LISTED items and how many were cut before them. */
export function tail<T>(items: T[]): { items: T[]; truncated: number } {
  const truncated = Math.max(0, items.length - MAX_LISTED);
  return { items: items.slice(truncated), truncated };
}

/** A client's output as its lines, without the empty ones. */
export function rows(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line !== "");
}
