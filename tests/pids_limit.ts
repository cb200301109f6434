// A real "cannot fork" for a test. Tests run as root, and RLIMIT_NPROC (`ulimit -u`) does not
// apply to root: the kernel lets root fork past it. A pids cgroup does: a process moved into a
// cgroup whose pids.max is what it already holds gets EAGAIN from its next fork, as a user over
// `ulimit -u` would. This finds a writable pids controller (cgroup v1's own hierarchy, or v2's
// unified one), and puts a process back where it was before the cgroup is removed.
import { childrenOf } from "../lib/host/processes.ts";

/** A pids cgroup made for one test, that a helper is moved into before the door is closed. */
export type PidsLimit = {
  /**
   * Moves a helper and its children in, each closing the door behind it: on Linux the launcher,
   * which starts each script's `sh` (lib/run/helper.pl), so its next process is refused too.
   */
  holdHelper(helperPid: number): Promise<void>;
  /** Puts every held process back into its own cgroup and removes this one. */
  close(): Promise<void>;
};

type Hierarchy = { mount: string; version: 1 | 2 };

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function pidsHierarchy(): Promise<Hierarchy | null> {
  if (await exists("/sys/fs/cgroup/pids/cgroup.procs")) {
    return { mount: "/sys/fs/cgroup/pids", version: 1 };
  }
  for (const mount of ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]) {
    const controllers = await Deno.readTextFile(`${mount}/cgroup.controllers`).catch(() => "");
    if (controllers.split(/\s+/).includes("pids")) return { mount, version: 2 };
  }
  return null;
}

/** The cgroup `pid` is in within `hierarchy`, as a path under its mount. */
async function cgroupOf(pid: number, hierarchy: Hierarchy): Promise<string> {
  // Lines of "ID:CONTROLLERS:PATH"; v2's has ID 0 and no controllers.
  for (const line of (await Deno.readTextFile(`/proc/${pid}/cgroup`)).split("\n")) {
    const [id, controllers, ...path] = line.split(":");
    const ours = hierarchy.version === 1 ? controllers?.split(",").includes("pids") : id === "0";
    if (ours) return `${hierarchy.mount}${path.join(":")}`;
  }
  return hierarchy.mount;
}

/** A fresh pids cgroup, or null where none can be made (not root, no writable controller). */
export async function openPidsLimit(name: string): Promise<PidsLimit | null> {
  const hierarchy = await pidsHierarchy();
  if (!hierarchy) return null;
  try {
    if (hierarchy.version === 2) {
      await Deno.writeTextFile(`${hierarchy.mount}/cgroup.subtree_control`, "+pids");
    }
    const path = `${hierarchy.mount}/${name}`;
    await Deno.mkdir(path);
    if (!await exists(`${path}/pids.max`)) {
      await Deno.remove(path);
      return null;
    }
    const homes = new Map<number, string>();
    const hold = async (pid: number) => {
      homes.set(pid, await cgroupOf(pid, hierarchy));
      await Deno.writeTextFile(`${path}/cgroup.procs`, String(pid));
      const current = (await Deno.readTextFile(`${path}/pids.current`)).trim();
      await Deno.writeTextFile(`${path}/pids.max`, current);
    };
    return {
      async holdHelper(helperPid) {
        for (const pid of [helperPid, ...await childrenOf(helperPid)]) await hold(pid);
      },
      async close() {
        await Deno.writeTextFile(`${path}/pids.max`, "max");
        for (const [pid, home] of homes) {
          await Deno.writeTextFile(`${home}/cgroup.procs`, String(pid)).catch(() => {});
        }
        await Deno.remove(path);
      },
    };
  } catch {
    return null;
  }
}

/** Whether this machine lets a test make a pids cgroup; decided once, with nothing left behind. */
export async function pidsLimitAvailable(): Promise<boolean> {
  const probe = await openPidsLimit(`tmux-mcp-probe-${crypto.randomUUID()}`);
  if (!probe) return false;
  await probe.close();
  return true;
}
