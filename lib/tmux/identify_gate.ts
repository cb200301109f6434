// Why no command of ours reaches a tmux server while one of our control clients is starting:
// tmux marks a client as a control client when it reads the client's first identify message and
// gives it the state control mode writes to only at the last one; a notification for control
// clients in between (a paste buffer changed or deleted, a session created, renamed or closed, a
// window or pane selected, a client detached) is written through that missing state and the
// whole server dies with SIGSEGV. Seen with tmux 3.3a and 3.5a (tests/identify_gate_test.ts
// crashes both within a few hundred connections without this gate; upstream: tmux/tmux PR
// #4980). So, per tmux server, our commands — spawned clients, control-mode lines, detaching a
// control client — share a lock, and starting a control client holds it alone until tmux has
// attached it (or TMUX_ANSWER_SECONDS pass). Commands from other programs, a person's included,
// can still meet the moment: it lasts a few milliseconds per connection, and connections are
// opened rarely and kept (control_servers.ts).
import { SharedLock } from "../util/shared_lock.ts";

/** One lock per tmux server, like the control connections (control_servers.ts) it guards. */
const gates = new Map<string, SharedLock>();

/** The lock of the tmux server at `socket` (its socket path). */
export function identifyGate(socket: string): SharedLock {
  let gate = gates.get(socket);
  if (!gate) {
    gate = new SharedLock();
    gates.set(socket, gate);
  }
  return gate;
}
