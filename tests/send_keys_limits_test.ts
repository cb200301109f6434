// send_keys within tmux's limits, and the strings tmux would cut (issue 31, item 5). One tmux
// command holds at most 16,364 bytes of arguments and 1,000 of them, so 16,384 newlines or
// quotes (valid in the schema) were refused as "tmux refused the command": they now go as
// several send-keys commands and arrive exactly, in order. A client's argument that ends in `;`
// ends a command in tmux, so `echo a;` was typed as `echo a`, and a key name `;` split the
// command in two. A NUL cuts a string where tmux reads it (set_environment "a\u0000b" stored
// "a"): every tool field that reaches tmux as an argument refuses one, naming the field.
import assert from "node:assert/strict";
import { type Lab, waitFor, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";
import { clientArgs } from "../lib/tmux/tmux.ts";

/**
 * A pane whose terminal is raw, without echo, and whose `cat` writes every byte it is typed to a
 * file: ready once it signals tmux's wait-for channel.
 */
async function receiver(lab: Lab): Promise<{ pane: string; file: string }> {
  const file = `${lab.dir}/typed`;
  const channel = "receiver-ready";
  const pane = await lab.tmuxCmd(
    "split-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    `stty raw -echo; tmux wait-for -S ${channel}; exec cat > ${file}`,
  );
  const ready = await new Deno.Command(lab.tmux.bin, {
    args: [...clientArgs(lab.tmux.socket), "wait-for", channel],
    signal: AbortSignal.timeout(10_000),
  }).output();
  assert.equal(ready.code, 0, "the receiving pane never became ready");
  return { pane, file };
}

/** What the receiver's file holds once it holds `length` bytes. */
async function received(file: string, length: number): Promise<string> {
  await waitFor(`${length} bytes typed into the pane`, async () => {
    const info = await Deno.stat(file).catch(() => null);
    return (info?.size ?? 0) >= length;
  });
  return await Deno.readTextFile(file);
}

function lab(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((l) => withGeneral(l, {}, (s) => fn(l, s)));
}

for (const [what, char] of [["newlines", "\n"], ["single quotes", "'"], ["double quotes", '"']]) {
  Deno.test(
    `send_keys types 16,384 ${what} exactly`,
    lab(async (lab, s) => {
      const { pane, file } = await receiver(lab);
      const text = `${char.repeat(16384 - 4)}end;`;
      const sent = await s.call("send_keys", { pane_id: pane, keys: text });
      assert.equal(sent.ok, true, JSON.stringify(sent));
      assert.equal(await received(file, text.length), text);
    }),
  );
}

Deno.test(
  "send_keys keeps a closing ';' and types a key name ';', among thousands of key names",
  lab(async (lab, s) => {
    const { pane, file } = await receiver(lab);
    const literal = await s.call("send_keys", { pane_id: pane, keys: "echo a;" });
    assert.equal(literal.ok, true, JSON.stringify(literal));
    assert.equal(await received(file, 7), "echo a;");
    const names = `; ${"b ".repeat(2000)}c`;
    const keys = await s.call("send_keys", { pane_id: pane, keys: names, literal: false });
    assert.equal(keys.ok, true, JSON.stringify(keys));
    const expected = `echo a;;${"b".repeat(2000)}c`;
    assert.equal(await received(file, expected.length), expected);
  }),
);

Deno.test(
  "set_environment stores a value ending in ';' as given",
  lab(async (lab, s) => {
    const set = await s.call("set_environment", { name: "PROBE", value: "x;", global: true });
    assert.equal(set.ok, true, JSON.stringify(set));
    assert.equal(await lab.tmuxCmd("show-environment", "-g", "PROBE"), "PROBE=x;");
  }),
);

Deno.test(
  "a NUL in a field tmux would cut is refused naming the field, and nothing is changed",
  lab(async (lab, s) => {
    const refusals: [string, Record<string, unknown>, string][] = [
      ["set_environment", { name: "PROBE", value: "a\u0000b", global: true }, "value"],
      ["send_keys", { pane_id: lab.pane, keys: "a\u0000b" }, "keys"],
      ["respawn_pane", { pane_id: lab.pane, command: "true\u0000x" }, "command"],
      ["get_pane_info", { pane_id: lab.pane, format: "#{pane_id}\u0000x" }, "format"],
      ["create_window", { session_id: "$0", start_directory: "/tmp\u0000x" }, "start_directory"],
    ];
    for (const [tool, args, field] of refusals) {
      const out = await s.call(tool, args);
      assert.equal(out.ok, false, `${tool} took a NUL`);
      assert.equal(out.error.code, "invalid_input", tool);
      assert.match(out.error.message, new RegExp(`\`${field}\` must not contain a NUL`), tool);
    }
    const environment = await lab.tmuxCmd("show-environment", "-g");
    assert.ok(!/^PROBE=/m.test(environment), "set_environment stored a cut value");
    assert.equal(await lab.tmuxCmd("list-windows", "-F", "#{window_id}"), "@0");
  }),
);
