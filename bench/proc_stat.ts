// A process's counters from /proc/PID/stat, for the benchmarks: CPU time in ms (clock ticks are
// 10 ms here) and minor page faults, its own and those of the children it has waited for (a
// helper's: each script's `sh`, and the forked child that becomes it where the helper forks). On
// these VMs a fault that must bring in a page costs about 17.5 µs (docs/design/perl_launcher.md), so faults
// are a cost of their own.

export type ProcCounters = {
  cpuMs: number;
  childCpuMs: number;
  faults: number;
  childFaults: number;
};

export async function procCounters(pid: number): Promise<ProcCounters> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // The fields after the command name, which is parenthesised and may hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  return {
    cpuMs: (fields[11] + fields[12]) * 10,
    childCpuMs: (fields[13] + fields[14]) * 10,
    faults: fields[7],
    childFaults: fields[8],
  };
}

/**
 * How long the process has waited, runnable, for a CPU (ms, from /proc/PID/schedstat's second
 * field); null where the kernel does not keep it.
 */
export async function runQueueWaitMs(pid: number): Promise<number | null> {
  const schedstat = await Deno.readTextFile(`/proc/${pid}/schedstat`).catch(() => null);
  const waited = Number(schedstat?.split(" ")[1]);
  return Number.isFinite(waited) ? waited / 1e6 : null;
}
