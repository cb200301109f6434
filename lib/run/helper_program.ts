// The helper's program and how an enrolled shell starts it. The helper is perl
// (lib/run/helper.pl says why); the server writes the program into its private directory next
// to helper.sh, the SHA-256 it needs first (lib/run/sha256.pl), and the shell runs it with an
// empty environment, so nothing of the person's perl settings reaches it.
import sha256Source from "./sha256.pl" with { type: "text" };
import helperSource from "./helper.pl" with { type: "text" };
import stopGroupSource from "./stop_group.pl" with { type: "text" };

/** The perl the helper runs on: in /usr/bin on Linux and macOS alike. */
export const HELPER_PERL = "/usr/bin/perl";

/**
 * The file the server writes: the SHA-256 subroutines, the helper, then the stop of a script's
 * group (lib/run/stop_group.pl), which perl compiles with the rest but the helper only calls.
 */
export const helperProgram = `${sha256Source}\n${helperSource}\n${stopGroupSource}`;

/** The stop of a script's group run alone, for the server: `perl -e` it with PGID and ADOPTS. */
export const stopProgram = `${stopGroupSource}\nstop_alone();\n`;

/** The helper's command line, for the program written at `programPath`. */
export function helperCommand(programPath: string): string[] {
  return ["/usr/bin/env", "-i", HELPER_PERL, programPath];
}
