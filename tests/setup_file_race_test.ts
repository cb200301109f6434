// An --enroll-pane setup file is what a person sources, so another local user who can swap it
// runs code as that person. A real second user races the server here: a perl loop (no inotify
// tool is needed) that, as tmuxmcp-racer, moves away every entry it did not make in the
// directory and puts a symlink to its own decoy in its place. A directory that user can change
// is refused, naming it; in a sticky one the setup file is ours, in place, never a symlink, the
// decoy is never chmodded, and nothing of ours is left after close. Needs root (the second
// user: tests/second_user.ts).
import assert from "node:assert/strict";
import { withLab } from "./harness.ts";
import { parseCommandLine } from "../lib/server/config.ts";
import { type RunningServer, startServer, StartupError } from "../lib/server/server.ts";
import { AS_ROOT, asUser, runAs, type SecondUser, secondUser } from "./second_user.ts";

const DECOY_MODE = 0o644;

const RACER_LOOP = `
my ($dir, $decoy) = @ARGV;
while (1) {
  opendir(my $d, $dir) or next;
  for my $name (readdir $d) {
    next if $name eq "." || $name eq ".." || $name =~ /^moved-/;
    my @st = lstat("$dir/$name") or next;
    next if $st[4] == $<;
    symlink($decoy, "$dir/$name") if rename("$dir/$name", "$dir/moved-$name");
  }
  closedir $d;
}`;

type Race = {
  dir: string;
  decoy: string;
  racer: SecondUser;
};

/**
 * A directory (made as `mode`, the racer's when `ownedByRacer`) raced by the second user for the whole of `fn`,
 * with the user's decoy script beside it in a directory of theirs.
 */
async function withRacedDirectory(
  mode: number,
  ownedByRacer: boolean,
  fn: (race: Race) => Promise<void>,
): Promise<void> {
  const racer = await secondUser();
  const base = await Deno.makeTempDir({ prefix: "tmux-mcp-race-" });
  let loop: Deno.ChildProcess | null = null;
  try {
    await Deno.chmod(base, 0o755);
    const home = `${base}/racer`;
    await Deno.mkdir(home);
    const decoy = `${home}/decoy.sh`;
    await Deno.writeTextFile(decoy, "echo not yours\n");
    await Deno.chmod(decoy, DECOY_MODE);
    await Deno.chown(home, racer.uid, racer.gid);
    await Deno.chown(decoy, racer.uid, racer.gid);
    const dir = `${base}/shared`;
    await Deno.mkdir(dir);
    await Deno.chmod(dir, mode);
    if (ownedByRacer) await Deno.chown(dir, racer.uid, racer.gid);
    loop = new Deno.Command("setpriv", {
      args: asUser(racer, ["perl", "-e", RACER_LOOP, dir, decoy]),
      stdout: "null",
      stderr: "null",
    }).spawn();
    await fn({ dir, decoy, racer });
  } finally {
    if (loop) {
      loop.kill("SIGKILL");
      await loop.status;
    }
    await Deno.remove(base, { recursive: true });
  }
}

/** Starts a server that invites pane %0 through `setup`: the server, or its startup refusal. */
async function start(socketName: string, setup: string): Promise<RunningServer | StartupError> {
  const parsed = parseCommandLine([
    "--socket-name",
    socketName,
    "--enable-tool",
    "tmux_run",
    "--enroll-pane",
    `%0=${setup}`,
  ], {});
  assert.ok("config" in parsed);
  try {
    return await startServer(parsed.config);
  } catch (error) {
    if (error instanceof StartupError) return error;
    throw error;
  }
}

/** What must hold after each start, refused or not: the decoy untouched, nothing of ours left. */
async function assertNothingOfOursLeft(race: Race): Promise<void> {
  const decoy = await Deno.lstat(race.decoy);
  assert.equal((decoy.mode ?? 0) & 0o7777, DECOY_MODE, "the racer's decoy was chmodded");
  for await (const entry of Deno.readDir(race.dir)) {
    const info = await Deno.lstat(`${race.dir}/${entry.name}`);
    assert.notEqual(info.uid, Deno.uid(), `${entry.name} of ours is left in the raced directory`);
  }
}

const asRoot = { ignore: !AS_ROOT, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "a setup file in a directory other users may write without the sticky bit is refused",
  ...asRoot,
  fn: () =>
    withLab((lab) =>
      withRacedDirectory(0o777, false, async (race) => {
        for (let round = 0; round < 10; round++) {
          const setup = `${race.dir}/setup-${round}`;
          const started = await start(lab.socketName, setup);
          if (!(started instanceof StartupError)) await started.close();
          await assertNothingOfOursLeft(race);
          assert.ok(started instanceof StartupError, "the server started");
          assert.ok(started.message.includes(setup), started.message);
          assert.match(started.message, /other users may write the directory .*no sticky bit/);
          assert.ok(started.message.includes(race.dir), started.message);
        }
      })
    ),
});

Deno.test({
  name: "a setup file in a directory of another user is refused, naming it",
  ...asRoot,
  fn: () =>
    withLab((lab) =>
      withRacedDirectory(0o755, true, async (race) => {
        for (let round = 0; round < 5; round++) {
          const started = await start(lab.socketName, `${race.dir}/setup`);
          if (!(started instanceof StartupError)) await started.close();
          await assertNothingOfOursLeft(race);
          assert.ok(started instanceof StartupError, "the server started");
          assert.ok(
            started.message.includes(`the directory ${race.dir} belongs to another user`),
            started.message,
          );
        }
      })
    ),
});

Deno.test({
  name: "in a sticky directory raced by another user the setup file is ours and goes at close",
  ...asRoot,
  fn: () =>
    withLab((lab) =>
      withRacedDirectory(0o1777, false, async (race) => {
        for (let round = 0; round < 50; round++) {
          const setup = `${race.dir}/setup`;
          if (round % 10 === 9) {
            // The racer there first: a symlink to the decoy is never followed or replaced.
            await runAs(race.racer, "ln", "-s", race.decoy, setup);
            const refused = await start(lab.socketName, setup);
            if (!(refused instanceof StartupError)) await refused.close();
            assert.ok(refused instanceof StartupError, "the server started over a symlink");
            assert.match(refused.message, /is already there, and it is never overwritten/);
            assert.equal(await Deno.readLink(setup), race.decoy);
            await Deno.remove(setup);
            await assertNothingOfOursLeft(race);
            continue;
          }
          const started = await start(lab.socketName, setup);
          if (started instanceof StartupError) assert.fail(started.message);
          try {
            const info = await Deno.lstat(setup);
            assert.ok(info.isFile, "the setup path is not a regular file");
            assert.equal(info.uid, Deno.uid());
            assert.equal((info.mode ?? 0) & 0o777, 0o600);
            assert.match(await Deno.readTextFile(setup), /^\[ -n "\$\{ZSH_VERSION-\}" \]/);
          } finally {
            await started.close();
          }
          await assertNothingOfOursLeft(race);
        }
      })
    ),
});
