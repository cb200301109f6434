// How a script's `sh` starts as the leader of its own process group. Deno cannot set a child's
// process group, so `sh` is started through a few lines of perl (in /usr/bin on Linux and macOS
// alike, started with an empty environment so no PERL5OPT or locale reaches it). Starting perl
// costs about 2 ms, so the helper starts the next launcher as soon as it takes one, and a run
// only hands over its directory, umask, script and environment: the launcher makes itself the
// leader of a new group in the same session (so `/dev/tty` still works), closes every descriptor
// above 2, says so with one byte on stderr, waits on stdin for the run, and execs
// `/bin/sh -c script`. Only a launcher that has said it is ready is used, so a stop never aims
// at a group that does not exist yet; one whose stdin closes without a run exits unrun.
const PERL = "/usr/bin/perl";
const LAUNCH = [
  "setpgrp(0, 0) or exit 126;",
  'opendir(my $fds, "/dev/fd") or exit 126;',
  "my @open = grep { /^[0-9]+$/ && $_ > 2 } readdir $fds;",
  "closedir $fds;",
  'for (@open) { open(my $h, "<&=", $_) and close $h }',
  'syswrite STDERR, "R" or exit 126;',
  "local $/; my $run = <STDIN>;",
  "exit 0 unless defined $run && length $run;",
  "my @fields = split /\\0/, $run, -1; pop @fields;",
  "my ($cwd, $mask, $script) = splice @fields, 0, 3;",
  'chdir $cwd or do { print STDERR "tmux-mcp: the shell\'s directory could not be entered\\n"; exit 126 };',
  "umask oct $mask if length $mask;",
  "%ENV = ();",
  "for (@fields) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }",
  'exec { "/bin/sh" } "/bin/sh", "-c", $script;',
  'print STDERR "tmux-mcp: /bin/sh could not be started\\n";',
  "exit 127;",
].join(" ");

/** What a run hands its launcher. No field can hold a NUL (the helper refuses such a script). */
export type LaunchRequest = {
  cwd: string;
  umask: number | null;
  environment: Record<string, string>;
  script: string;
};

type Launcher = { child: Deno.ChildProcess; ready: Promise<boolean> };

function startLauncher(): Launcher {
  const child = new Deno.Command(PERL, {
    args: ["-e", LAUNCH],
    env: {},
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const ready = (async () => {
    const reader = child.stderr.getReader();
    try {
      const first = await reader.read();
      return !first.done && first.value.length === 1 && first.value[0] === 0x52;
    } finally {
      reader.releaseLock();
    }
  })().catch(() => false);
  return { child, ready };
}

/** One launcher kept ready ahead of the next run. */
export class Launchers {
  #spare: Launcher | null = null;

  /** Starts the first launcher ahead of the first run. */
  warm(): void {
    this.#spare ??= startLauncher();
  }

  /**
   * A launched `sh` (a group leader whose pid is its group id), or null when no launcher could
   * be started or the run could not be handed over.
   */
  async launch(request: LaunchRequest): Promise<Deno.ChildProcess | null> {
    let launcher: Launcher;
    try {
      launcher = this.#spare ?? startLauncher();
      this.#spare = startLauncher();
    } catch {
      this.#spare = null;
      return null;
    }
    if (!await launcher.ready) return null;
    const fields = [
      request.cwd,
      request.umask === null ? "" : request.umask.toString(8),
      request.script,
      ...Object.entries(request.environment).map(([name, value]) => `${name}=${value}`),
    ];
    const writer = launcher.child.stdin.getWriter();
    try {
      await writer.write(new TextEncoder().encode(fields.map((field) => `${field}\0`).join("")));
      await writer.close();
    } catch {
      return null;
    }
    return launcher.child;
  }
}
