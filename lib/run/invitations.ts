// An invitation is the server's half of a person's consent: a setup file the person sources in
// one pane, and a proof file that only a process which sourced it holds open (lib/run/consent.ts
// asks the kernel). It lives for the enrollment lifetime and is withdrawn — both files removed —
// when it expires, is used, or is refused, so a setup file never enrolls twice.
import { randomHex } from "../util/ids.ts";
import {
  removeIfSame,
  removeIfSameNow,
  writeExclusive,
  type WrittenFile,
} from "../host/rendezvous.ts";

export type Invitation = {
  token: string;
  paneId: string;
  setupFile: WrittenFile;
  proofPath: string;
  timer: ReturnType<typeof setTimeout>;
};

export type InvitationOptions = {
  directory: string;
  lifetimeSeconds: number;
  /** The one line the setup file holds, for this token and proof file. */
  setupLine: (token: string, proofPath: string) => string;
  /** Told when an invitation is withdrawn, so what waited on its token can go too. */
  onWithdraw: (token: string) => void;
};

export class Invitations {
  #byToken = new Map<string, Invitation>();
  #options: InvitationOptions;

  constructor(options: InvitationOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#byToken.size;
  }

  get(token: string): Invitation | undefined {
    return this.#byToken.get(token);
  }

  /** The panes invited and not yet enrolled. */
  panes(): string[] {
    return [...this.#byToken.values()].map((invitation) => invitation.paneId);
  }

  /** Writes the one-line setup file a person sources in pane `paneId`. */
  async invite(paneId: string, setupPath: string): Promise<void> {
    const token = randomHex();
    const proofPath = `${this.#options.directory}/proof-${randomHex(8)}`;
    await Deno.writeTextFile(proofPath, "", { mode: 0o600, createNew: true });
    let setupFile: WrittenFile;
    try {
      setupFile = await writeExclusive(setupPath, this.#options.setupLine(token, proofPath));
    } catch (error) {
      await Deno.remove(proofPath).catch(() => {});
      throw error;
    }
    const timer = setTimeout(
      () => this.withdraw(token),
      this.#options.lifetimeSeconds * 1000,
    );
    this.#byToken.set(token, { token, paneId, setupFile, proofPath, timer });
  }

  async withdraw(token: string): Promise<void> {
    const invitation = this.#byToken.get(token);
    if (!invitation) return;
    this.#byToken.delete(token);
    clearTimeout(invitation.timer);
    this.#options.onWithdraw(token);
    await removeIfSame(invitation.setupFile);
    await Deno.remove(invitation.proofPath).catch(() => {});
  }

  async close(): Promise<void> {
    for (const token of [...this.#byToken.keys()]) await this.withdraw(token);
  }

  /** Removes every setup file at once, before anything else of a shutdown (close still runs). */
  removeFilesNow(): void {
    for (const invitation of this.#byToken.values()) removeIfSameNow(invitation.setupFile);
  }
}
