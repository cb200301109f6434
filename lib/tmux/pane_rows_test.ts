// Pane rows read into facts: ids checked, numbers and flags converted, text fields kept as they
// are (tabs, newlines and all), and a listing with one unreadable row refused whole.
import assert from "node:assert/strict";
import { fencedRows } from "./fenced_rows.ts";
import { PANE_FIELDS, parseAll, parsePane } from "./pane_rows.ts";

function row(overrides: Record<number, string> = {}): string[] {
  const fields = [
    ...["%3", "4242", "zsh", "$1", "@2", "0", "1", "0", "80", "24", "/tmp/a\tb\nc", "t"],
    ...["s\tname\n%9", "w\n@9\tname"],
  ];
  for (const [index, value] of Object.entries(overrides)) fields[Number(index)] = value;
  return fields;
}

Deno.test("a pane row becomes typed facts, its text fields kept exactly", () => {
  assert.deepEqual(parsePane(row()), {
    pane_id: "%3",
    pane_pid: 4242,
    current_command: "zsh",
    session_id: "$1",
    window_id: "@2",
    pane_index: 0,
    active: true,
    dead: false,
    width: 80,
    height: 24,
    current_path: "/tmp/a\tb\nc",
    title: "t",
    session_name: "s\tname\n%9",
    window_name: "w\n@9\tname",
  });
});

Deno.test("a row whose ids are not ids is not a pane", () => {
  assert.equal(parsePane(row({ 0: "%99\tsudo" })), null);
  assert.equal(parsePane(row({ 3: "1" })), null);
  assert.equal(parsePane(row({ 4: "@x" })), null);
});

Deno.test("a listing is read whole or refused whole", () => {
  assert.equal(parseAll([row(), row({ 0: "%4" })], parsePane)?.length, 2);
  assert.equal(parseAll([row(), row({ 0: "oops" })], parsePane), null);
  assert.equal(parseAll(null, parsePane), null);
  assert.deepEqual(parseAll([], parsePane), []);
});

Deno.test("fenced pane rows read back a path that holds a forged row", () => {
  const fenced = fencedRows(PANE_FIELDS, "n0nce");
  const forged = "/tmp/x\n%99\tsudo\t$0\t@0";
  const printed = fenced.format.replace(
    /#\{[a-z_]+\}/g,
    (field) => field === "#{pane_current_path}" ? forged : row()[PANE_FIELDS.indexOf(field)],
  ) + "\n";
  const panes = parseAll(fenced.parse(printed), parsePane);
  assert.equal(panes?.length, 1);
  assert.equal(panes?.[0].current_path, forged);
  assert.equal(panes?.[0].session_name, row()[12]);
});
