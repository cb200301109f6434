// A directory that goes when this process goes, however it goes. The server removes its private
// directory at close, and at once when a signal comes; but a client may SIGKILL the server 20 ms
// after its SIGTERM (GitHub Copilot CLI does, issue 27), and a server busy for those 20 ms (while
// it starts, or writes a large answer) never runs its handler. So a small `sh` child, which
// ignores the signals that end a session, waits on a pipe that only this process holds open: the
// pipe ends when this process ends, for any reason, and the shell then removes the directory.
// A kill of the whole process group ends the shell too; the next server's start removes such a
// directory once its owner is provably gone (lib/host/server_record.ts).

/** Ignore the signals, wait for the pipe to end, remove the directory named by `$1`. */
const GUARD = 'trap "" HUP INT TERM; cat >/dev/null 2>&1; rm -rf -- "$1"';

export type DirectoryGuard = {
  /** Ends the guard (the directory is already removed, or is to be kept): it removes what is left. */
  release: () => void;
};

/** Starts the guard of `path`; without a /bin/sh to run it, a guard that does nothing. */
export function guardDirectory(path: string): DirectoryGuard {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("/bin/sh", {
      args: ["-c", GUARD, "tmux-mcp-directory-guard", path],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch {
    return { release: () => {} };
  }
  // The guard must never keep this process alive, nor its exit be reported to anyone.
  child.unref();
  child.status.catch(() => {});
  const writer = child.stdin.getWriter();
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      writer.close().catch(() => {});
    },
  };
}
