// paste_text against a real tmux delivers a text's bytes unchanged: every code point a JSON
// string can carry up to U+00FF, and multi-byte characters, read back by a raw reader in the
// pane. tmux 3.7 escapes a paste through vis(3) unless told not to (lib/tmux/versions.ts), so
// the test is run against each tmux build by PATH. tmux pastes each newline as a carriage
// return, as a terminal does; that is the one byte expected to change.
import assert from "node:assert/strict";
import { type Lab, typeInto, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

/** U+0001 to U+00FF, then characters of two, three and four UTF-8 bytes. */
const EVERY_CHARACTER =
  Array.from({ length: 255 }, (_, i) => String.fromCodePoint(i + 1)).join("") +
  "\u0100\u20ac\u6f22\u2028\u{1f600}";

async function sizeOf(path: string): Promise<number> {
  return (await Deno.stat(path).catch(() => null))?.size ?? 0;
}

/**
 * Starts a reader in the lab's pane that takes exactly `length` bytes from its terminal into
 * `file`, with the terminal raw (no echo, signals, flow control, line editing, CR→NL or literal
 * next), and waits until it says it is ready.
 */
async function startRawReader(lab: Lab, file: string, length: number): Promise<void> {
  await typeInto(
    lab,
    `stty raw -echo -iexten && printf '%s%s\\n' RE ADY && head -c ${length} > ${file}`,
    true,
  );
  await waitFor(
    "the raw reader to be ready",
    async () => /^READY$/m.test(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)),
  );
}

Deno.test("paste_text: every code point up to U+00FF and multi-byte text arrive byte for byte", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const expected = new TextEncoder().encode(EVERY_CHARACTER.replaceAll("\n", "\r"));
      const file = `${lab.dir}/pasted`;
      await startRawReader(lab, file, expected.length);
      // Not bracketed: the reader asked for no bracketed paste, and false keeps tmux from adding
      // the markers whatever mode the pane was left in.
      const pasted = await s.call("paste_text", {
        pane_id: lab.pane,
        text: EVERY_CHARACTER,
        bracketed: false,
      });
      assert.equal(pasted.ok, true, JSON.stringify(pasted));
      await waitFor(
        `the reader to take ${expected.length} bytes`,
        async () => await sizeOf(file) === expected.length,
      );
      assert.deepEqual(await Deno.readFile(file), expected);
    })
  ));
