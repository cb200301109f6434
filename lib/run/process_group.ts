// Stopping a script's group when the server has to do it itself: the helper, which stops its
// scripts itself, is gone or did not answer. There is one implementation of the stop,
// lib/run/stop_group.pl, owned by the helper's side, since the helper must stop its scripts even
// when no server is left to ask; the server asks a perl of its own to run that same file alone.
// A perl's start costs the stop some milliseconds on a path that already waits 0.5 s for the
// helper; docs/design/stop_group.md has the measurement. This module also says, in words, what a
// stop confirmed, whoever made it.
import { HELPER_PERL, stopProgram } from "./helper_program.ts";
import { type StopReport, stopReportOf } from "./frames.ts";

/** The terminal's job-control stops; the same numbers on Linux, macOS and the BSDs. */
const SIGTTIN = 21;
const SIGTTOU = 22;

/**
 * Stops the group `pgid` leads with lib/run/stop_group.pl, run by a perl of the server's with an
 * empty environment, and returns what it confirmed; null when that perl could not run or said
 * nothing readable. `adopts`: the helper said `sh` adopts orphaned descendants.
 */
export async function stopGroup(pgid: number, adopts: boolean): Promise<StopReport | null> {
  let output;
  try {
    output = await new Deno.Command("/usr/bin/env", {
      args: ["-i", HELPER_PERL, "-e", stopProgram, "--", String(pgid), adopts ? "1" : "0"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
  } catch {
    return null;
  }
  if (!output.success) return null;
  try {
    return stopReportOf(JSON.parse(new TextDecoder().decode(output.stdout)));
  } catch {
    return null;
  }
}

/** The honest sentence for a stop: what was seen, and what could not be seen. */
export function describeStop(report: StopReport | null): string {
  if (!report) return "whether the script's processes were stopped is unknown";
  const group = report.remaining === null
    ? "signalled with SIGTERM then SIGKILL; the process table could not be read to confirm"
    : report.remaining === 0
    ? "stopped: no process of the script's group remains"
    : `not stopped: ${report.remaining} process(es) of the script's group remain after SIGKILL`;
  const left = report.escapees === 0
    ? ""
    : report.escapees_left === null
    ? `; ${report.escapees} process(es) that had left the group (setsid or double fork) were ` +
      "signalled too, unconfirmed"
    : report.escapees_left === 0
    ? `; ${report.escapees} process(es) that had left the group (setsid or double fork) were ` +
      "stopped too"
    : `; ${report.escapees_left} of ${report.escapees} process(es) that had left the group ` +
      "(setsid or double fork) remain after SIGKILL";
  const unseen = report.orphans_traced
    ? ""
    : "; a process that left the group and lost its parent (a double fork) cannot be found " +
      "here, so any such process was not counted and may still run";
  return group + left + unseen;
}

/**
 * What had stopped the script before the stop, when something had: the terminal stops the whole
 * group of a background process that reads from it (SIGTTIN) or changes its settings (SIGTTOU),
 * and a script always runs in the pane's background. Null when nothing was stopped.
 */
export function describeHalt(report: StopReport | null): string | null {
  if (!report) return null;
  if (report.halt_signal === SIGTTIN) {
    return "waiting on the terminal: its group was stopped by SIGTTIN, which the terminal sends " +
      "when a process of it reads from the terminal";
  }
  if (report.halt_signal === SIGTTOU) {
    return "waiting on the terminal: its group was stopped by SIGTTOU, which the terminal " +
      "sends when a process of it writes to the terminal or changes its settings";
  }
  if (report.halt_signal !== null) {
    return `stopped, not running: sh was stopped by signal ${report.halt_signal}`;
  }
  if (report.halted > 0) {
    return `stopped, not running: ${report.halted} process(es) of its group were stopped ` +
      "(state T; the terminal stops a script that reads from it, SIGTTIN, or changes its " +
      "settings, SIGTTOU)";
  }
  return null;
}
