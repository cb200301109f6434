// Reads a tmux control-mode client's stdout (`tmux -C`) as events, apart from any process: fed
// byte chunks split anywhere, it emits each command's answer block, each `%output` line and each
// `%session-changed`. A block ends only at the `%end`/`%error` line whose guard (time, command
// number, flags) matches its `%begin`, so a line inside a block that merely looks like a block
// end stays content. A pane whose text guessed the guard could still end a capture's block early;
// the real end then arrives where tmux never writes one (outside a block, or inside a block
// that began after it), and the reader says the stream is desynchronized and reads no more, so
// the connection is dropped and no forged answer is taken for tmux's. tmux also writes some
// notifications a command causes inside that command's block (refresh-client -A's `%pause` and
// `%continue` on 3.3a to 3.7c; every one on master from d29aa1211 until 6db5175e4, GitHub issue
// 5458), so a line there with the exact shape of a notification is read as one; a pane's
// captured text could hold such a line too, so its block is marked inexact and a caller that
// needs the exact text takes it another way. `%output` payloads are handed on undecoded: they
// are only counted and scanned for a known text, and decoding a flood would cost more than
// reading it.
import { concatBytes } from "../util/bytes.ts";
import { decodeUtf8 } from "../util/utf8.ts";

/**
 * One command's answer: the lines between `%begin` and `%end` (ok) or `%error` (not ok).
 * `exact` is false when a line held bytes that are not UTF-8, which became U+FFFD in `lines`, or
 * when a line was read as a notification and left out of `lines` (it may have been the pane's).
 */
export type ControlBlock = { ok: boolean; lines: string[]; fromUs: boolean; exact: boolean };

export type ControlEvents = {
  block(block: ControlBlock): void;
  /**
   * A pane wrote. `payload` is tmux's escaped text as it arrived, a view valid only during the
   * call (the chunk it points into may be reused).
   */
  output(paneId: string, payload: Uint8Array): void;
  sessionChanged(sessionId: string): void;
  /**
   * Something a pane's output does not show changed: a pane's subscribed format (`paneId`), or
   * the panes of a window (null: any pane).
   */
  changed(paneId: string | null): void;
  /**
   * The stream held what tmux never writes: a line outside a block that is not a notification,
   * a block end outside a block or again after its block, or a block number that did not
   * increase. A pane's text forged a block end; nothing more is read.
   */
  desync(): void;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OUTPUT = encoder.encode("%output %");
const PERCENT = 37;
const NEWLINE = 10;
const SPACE = 32;

const PANE = String.raw`%\d+`;
const WINDOW = String.raw`@\d+`;
const SESSION = String.raw`\$\d+`;
/** A pane's bytes as tmux escapes them for a control client: below 32 and `\` in octal. */
const ESCAPED = String.raw`(?:[^\x00-\x1f\\]|\\[0-7]{3})*`;
/**
 * Every notification tmux up to 3.7c writes (control-notify.c, control.c, cfg.c) as a whole
 * line, with a name (free text: `.*`) where tmux prints one.
 */
const NOTIFICATION = new RegExp(
  "^%(?:" + [
    String.raw`output ${PANE} ${ESCAPED}`,
    String.raw`extended-output ${PANE} \d+ : ${ESCAPED}`,
    String.raw`(?:pause|continue|pane-mode-changed) ${PANE}`,
    String.raw`window-pane-changed ${WINDOW} ${PANE}`,
    String.raw`(?:unlinked-)?window-(?:add|close) ${WINDOW}`,
    String.raw`(?:unlinked-)?window-renamed ${WINDOW} .*`,
    String.raw`layout-change ${WINDOW} \S+ \S+ \S*`,
    String.raw`session-(?:changed|renamed) ${SESSION} .*`,
    String.raw`client-session-changed \S+ ${SESSION} .*`,
    String.raw`client-detached \S+`,
    String.raw`sessions-changed`,
    String.raw`session-window-changed ${SESSION} ${WINDOW}`,
    String.raw`paste-buffer-(?:changed|deleted) .*`,
    String.raw`subscription-changed \S+ ${SESSION} (?:${WINDOW} \d+ (?:${PANE}|-)|- - -) : .*`,
    String.raw`config-error .*`,
  ].join("|") + ")$",
  "s",
);

/** A block between its `%begin` and its `%end`. */
type OpenBlock = { guard: string; fromUs: boolean; lines: string[]; exact: boolean };

export class ControlLines {
  private carry: Uint8Array | null = null;
  private block: OpenBlock | null = null;
  /** The last block's guard and the command number it carried. */
  private lastGuard = "";
  private lastNumber = -1;
  private broken = false;

  constructor(private readonly events: ControlEvents) {}

  /** Reads every whole line of `chunk` (with what an earlier chunk left unfinished). */
  feed(chunk: Uint8Array): void {
    if (this.broken) return;
    const bytes: Uint8Array = this.carry ? concatBytes([this.carry, chunk]) : chunk;
    this.carry = null;
    let start = 0;
    while (true) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end < 0) break;
      this.line(bytes.subarray(start, end));
      if (this.broken) return;
      start = end + 1;
    }
    if (start < bytes.length) this.carry = bytes.slice(start);
  }

  private line(line: Uint8Array): void {
    const block = this.block;
    if (block) {
      this.blockLine(block, line);
    } else if (startsWith(line, OUTPUT)) {
      this.output(line);
    } else if (line[0] === PERCENT) {
      const text = decoder.decode(line);
      if (/^%(end|error) /.test(text)) return this.breaks();
      const begin = /^%begin (\d+ (\d+) (\d+))$/.exec(text);
      if (begin) {
        const number = Number(begin[2]);
        if (number <= this.lastNumber) return this.breaks();
        this.lastNumber = number;
        this.block = { guard: begin[1], fromUs: begin[3] === "1", lines: [], exact: true };
      } else {
        this.notification(text);
      }
    } else {
      this.breaks();
    }
  }

  /** A line between `%begin` and `%end`: its end, a notification tmux wrote there, or content. */
  private blockLine(block: OpenBlock, line: Uint8Array): void {
    if (line[0] === PERCENT) {
      const text = decoder.decode(line);
      const close = /^%(end|error) (.*)$/.exec(text);
      if (close && close[2] === this.lastGuard) return this.breaks();
      if (close && close[2] === block.guard) {
        this.block = null;
        this.lastGuard = block.guard;
        const { lines, fromUs, exact } = block;
        this.events.block({ ok: close[1] === "end", lines, fromUs, exact });
        return;
      }
      if (NOTIFICATION.test(text)) {
        block.exact = false;
        if (startsWith(line, OUTPUT)) this.output(line);
        else this.notification(text, block.fromUs);
        return;
      }
    }
    const text = decodeUtf8(line);
    if (text === null) block.exact = false;
    block.lines.push(text ?? decoder.decode(line));
  }

  /** An `%output` line: the pane and its payload, undecoded. */
  private output(line: Uint8Array): void {
    let end = OUTPUT.length;
    while (end < line.length && line[end] !== SPACE) end++;
    const paneId = decoder.decode(line.subarray(OUTPUT.length - 1, end));
    this.events.output(paneId, line.subarray(Math.min(end + 1, line.length)));
  }

  /**
   * The events of a notification other than `%output`; the rest are only read past. One inside
   * an answer to our command may be a pane's text: it may wake a wait, which then looks for
   * itself, but it never says which session the client is attached to (tmux writes that one
   * inside a block only at attach, whose block is not ours).
   */
  private notification(text: string, mayBePanes = false): void {
    const session = /^%session-changed (\$\d+) /.exec(text);
    if (session && !mayBePanes) this.events.sessionChanged(session[1]);
    const pane = /^%(?:subscription-changed \S+ \S+ \S+ \S+|pane-mode-changed) (%\d+)/.exec(text);
    if (pane) this.events.changed(pane[1]);
    if (/^%(layout-change|window-close|unlinked-window-close|window-pane-changed) /.test(text)) {
      this.events.changed(null);
    }
  }

  private breaks(): void {
    this.broken = true;
    this.carry = null;
    this.events.desync();
  }
}

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}
