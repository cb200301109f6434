// The benchmarks' summaries: percentiles of durations in ms, rounded to hundredths.

export type Summary = { p50: number; p95: number };

/** The `q` quantile of `durations` (nearest rank), unrounded. */
export function percentile(durations: number[], q: number): number {
  const sorted = durations.toSorted((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

export function summarize(durations: number[]): Summary {
  return { p50: round(percentile(durations, 0.5)), p95: round(percentile(durations, 0.95)) };
}
