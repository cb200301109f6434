// Enrollment: the consent of a person, checked by the kernel. The server invites a pane with
// a setup file; the shell that sources it connects to a private channel, and is accepted only
// if /proc shows that the pane's root process holds the invitation's proof file open and that
// the helper it started is its own child. This module is the sequence that decides, and the
// registry of the shells it accepted; the channel, the invitations, the checks and each
// accepted shell's session have their own modules.
import { randomHex } from "../util/ids.ts";
import { isSameProcess, readIdentity } from "../host/processes.ts";
import { removeIfSame, writeExclusive, type WrittenFile } from "../host/rendezvous.ts";
import { shellQuote } from "../util/shell_quote.ts";
import { runTmux, type TmuxClient } from "../tmux/tmux.ts";
import { type EnrolledShell, RunSlots } from "./run_slots.ts";
import { closeQuietly, openChannel } from "./channel.ts";
import { Invitations } from "./invitations.ts";
import { HelperArrivals, paneRootHolding } from "./consent.ts";
import { deliverRunEvents, openShellSession } from "./shell_session.ts";
import { helperCommand } from "./helper_program.ts";

export const MAX_ENROLLMENTS = 8;

/**
 * One presentation of an invitation's token on the channel, from its "E" line for as long as its
 * attempt runs or its enrollment lasts. A second connection presenting the same token is a race
 * (a same-user process that read the setup file, docs/security.md): the server cannot tell which one is the
 * shell, so both go at once (`contest`) instead of one waiting out the helper's arrival.
 */
type Presentation = { contest: AbortController; shell: EnrolledShell | null };

/**
 * What the setup file's line does first, in words bash, dash and zsh all parse: a shell that is
 * not zsh prints one line and the file returns 1, before helper.sh (zsh only) is read at all.
 */
const NOT_ZSH_REFUSAL = `[ -n "\${ZSH_VERSION-}" ] || { echo "tmux-mcp: not enrolled: this ` +
  `shell is not zsh (tmux_run needs zsh 5.9: start zsh in this pane and enroll there)" >&2; ` +
  `return 1 2>/dev/null || exit 1; }`;

export type EnrollmentOptions = {
  directory: string;
  tmux: TmuxClient;
  tmuxSupported: boolean;
  /** What a person's shell sources (helper.sh). */
  helperScript: string;
  /** The helper's perl program (lib/run/helper_program.ts). */
  helperProgram: string;
  lifetimeSeconds: number;
};

export class Enrollments {
  readonly shells = new Map<string, EnrolledShell>();
  readonly channelPath: string;
  /** The runs in flight on these shells, and the only writer of each shell's `run`. */
  readonly runs = new RunSlots();
  #invitations: Invitations;
  #helpers: HelperArrivals;
  #presented = new Map<string, Presentation>();
  #listener: Deno.UnixListener | null = null;
  #helperScriptFile: WrittenFile | null = null;
  #helperProgramFile: WrittenFile | null = null;
  #options: EnrollmentOptions;

  constructor(options: EnrollmentOptions) {
    this.#options = options;
    this.channelPath = `${options.directory}/channel`;
    this.#invitations = new Invitations({
      directory: options.directory,
      lifetimeSeconds: options.lifetimeSeconds,
      setupLine: (token, proofPath) => {
        const words = [
          this.#helperScriptFile!.path,
          this.channelPath,
          token,
          proofPath,
          ...helperCommand(this.#helperProgramFile!.path),
        ];
        return `${NOT_ZSH_REFUSAL}; source ${words.map(shellQuote).join(" ")}\n`;
      },
      onWithdraw: (token) => this.#helpers.drop(token),
    });
    this.#helpers = new HelperArrivals(
      options.directory,
      (token) => this.#invitations.get(token) !== undefined,
    );
  }

  async open(): Promise<void> {
    this.#helperScriptFile = await writeExclusive(
      `${this.#options.directory}/helper.sh`,
      this.#options.helperScript,
    );
    this.#helperProgramFile = await writeExclusive(
      `${this.#options.directory}/helper.pl`,
      this.#options.helperProgram,
    );
    this.#listener = await openChannel(this.channelPath, {
      shell: (conn, lines) => this.#enrollShell(conn, lines),
      paneRequest: (conn, lines) => this.#inviteFromPane(conn, lines),
      helper: (conn, frames) => this.#helpers.greet(conn, frames),
    });
  }

  /** Writes the one-line setup file a person sources in pane `paneId`. */
  invite(paneId: string, setupPath: string): Promise<void> {
    return this.#invitations.invite(paneId, setupPath);
  }

  /**
   * The enrolled shells that still exist. Commands started from an enrolled shell inherit its
   * channel, so a background job can keep the channel open after the shell exited; /proc says
   * whether the shell itself is still there.
   */
  async liveShells(): Promise<EnrolledShell[]> {
    for (const shell of [...this.shells.values()]) {
      if (!await isSameProcess(shell.identity)) shell.discard();
    }
    return [...this.shells.values()];
  }

  pendingInvitations(): string[] {
    return this.#invitations.panes();
  }

  /**
   * Removes at once the files outside the private directory, the setup files people were given:
   * a shutdown's first step, as a client may SIGKILL the server while close still stops runs.
   */
  removeFilesNow(): void {
    this.#invitations.removeFilesNow();
  }

  async close(): Promise<void> {
    for (const presentation of this.#presented.values()) presentation.contest.abort();
    await this.runs.close();
    await this.#invitations.close();
    for (const shell of [...this.shells.values()]) {
      shell.discard();
      shell.release(true);
    }
    this.#helpers.close();
    this.#listener?.close();
    this.#listener = null;
    if (this.#helperScriptFile) await removeIfSame(this.#helperScriptFile);
    if (this.#helperProgramFile) await removeIfSame(this.#helperProgramFile);
    await Deno.remove(this.channelPath).catch(() => {});
  }

  /**
   * `tmux-mcp enroll`, typed in a pane, asks for an invitation for that pane ("I %N"). The
   * answer is only a setup file: the pane is enrolled when its own root shell sources it, with
   * every check of a setup file written at startup.
   */
  async #inviteFromPane(conn: Deno.UnixConn, lines: AsyncGenerator<string>): Promise<void> {
    const writer = conn.writable.getWriter();
    const reply = async (line: string) => {
      await writer.write(new TextEncoder().encode(line + "\n")).catch(() => {});
      closeQuietly(conn);
    };
    const first = await lines.next();
    const paneId = first.done ? null : /^I (%\d+)$/.exec(first.value)?.[1];
    if (!paneId) return reply("NO bad-request");
    if (!this.#options.tmuxSupported) return reply("NO tmux-too-old");
    if (this.shells.has(paneId)) return reply("NO already-enrolled");
    if (this.#invitations.size >= MAX_ENROLLMENTS) return reply("NO busy");
    const pane = await runTmux(this.#options.tmux, [
      "display-message",
      "-p",
      "-t",
      paneId,
      "#{pane_id}",
    ]);
    if (pane.code !== 0 || pane.stdout.trim() !== paneId) return reply("NO no-pane");
    const setupPath = `${this.#options.directory}/invite-${randomHex(8)}`;
    await this.invite(paneId, setupPath);
    await reply(`OK ${setupPath}`);
  }

  /** A shell that sourced a setup file ("E <token>"): accepted, or refused with the reason. */
  async #enrollShell(conn: Deno.UnixConn, lines: AsyncGenerator<string>): Promise<void> {
    const writer = conn.writable.getWriter();
    const sendLine = (line: string) =>
      writer.write(new TextEncoder().encode(line + "\n")).catch(() => {});
    const first = await lines.next();
    const token = first.done || !first.value.startsWith("E ") ? "" : first.value.slice(2);
    const rival = this.#presented.get(token);
    if (rival) {
      await this.#contest(token, rival);
      await sendLine("NO contested");
      return closeQuietly(conn);
    }
    const invitation = this.#invitations.get(token);
    if (!invitation) {
      await sendLine("NO expired");
      return closeQuietly(conn);
    }
    const presentation: Presentation = { contest: new AbortController(), shell: null };
    this.#presented.set(token, presentation);
    const refuse = async (reason: string) => {
      if (this.#presented.get(token) === presentation) this.#presented.delete(token);
      await sendLine(`NO ${presentation.contest.signal.aborted ? "contested" : reason}`);
      closeQuietly(conn);
    };
    if (!this.#options.tmuxSupported) return refuse("tmux-too-old");
    if (this.shells.has(invitation.paneId)) return refuse("already-enrolled");
    if (this.shells.size >= MAX_ENROLLMENTS) {
      await this.#invitations.withdraw(token);
      return refuse("full");
    }
    const pane = await paneRootHolding(
      this.#options.tmux,
      invitation.paneId,
      invitation.proofPath,
    );
    if (!pane) return refuse("not-root");
    const helper = await this.#helpers.claim(token, pane.root.pid, presentation.contest.signal);
    if (!helper) return refuse("no-helper");
    await this.#invitations.withdraw(token);
    if (presentation.contest.signal.aborted) {
      closeQuietly(helper.conn);
      return refuse("contested");
    }
    const shell = openShellSession({
      paneId: invitation.paneId,
      identity: pane.root,
      tmuxServer: await readIdentity(pane.tmuxPid),
      conn,
      sendLine,
      helper,
      forget: (gone) => {
        if (this.shells.get(gone.paneId) === gone) this.shells.delete(gone.paneId);
        if (this.#presented.get(token) === presentation) this.#presented.delete(token);
      },
    });
    presentation.shell = shell;
    this.shells.set(shell.paneId, shell);
    await sendLine(`OK ${shell.enrollmentGeneration}`);
    deliverRunEvents(shell, lines, helper.frames);
  }

  /** Ends both sides of a contested invitation: the attempt or enrollment, and the invitation. */
  async #contest(token: string, rival: Presentation): Promise<void> {
    this.#presented.delete(token);
    rival.contest.abort();
    rival.shell?.discard("contested");
    await this.#invitations.withdraw(token);
  }
}
