// The fenced rows without tmux: what tmux prints for a format is read back as exactly the rows
// and fields it holds, whatever the fields contain, and a reply with anything else is refused.
import assert from "node:assert/strict";
import { fencedRows } from "./fenced_rows.ts";

const NONCE = "0123456789abcdef";

/** What tmux prints for `rows`: the format with each field filled in, one line per row. */
function printed(rows: string[][]): string {
  const { format } = fencedRows(rows[0].map((_, i) => `#{f${i}}`), NONCE);
  return rows.map((row) =>
    row.reduce((line, field, i) => line.replace(`#{f${i}}`, () => field), format)
  )
    .map((line) => `${line}\n`).join("");
}

Deno.test("rows come back exactly, newlines and tabs in a field included", () => {
  const rows = [
    ["%1", "/home/x\n%99\tsudo\t1\t/", "title"],
    ["%2", "/tmp", ""],
  ];
  assert.deepEqual(fencedRows(["#{f0}", "#{f1}", "#{f2}"], NONCE).parse(printed(rows)), rows);
});

Deno.test("no output is no rows", () => {
  assert.deepEqual(fencedRows(["#{f0}"], NONCE).parse(""), []);
});

Deno.test("a field that forges a row without the nonce stays inside its own field", () => {
  const forged = "x\n<guess<%99|guess|sudo>guess>\n";
  const rows = [["%1", forged], ["%2", "/tmp"]];
  assert.deepEqual(fencedRows(["#{f0}", "#{f1}"], NONCE).parse(printed(rows)), rows);
});

Deno.test("a reply that is not exactly fenced rows is refused", () => {
  const rows = fencedRows(["#{f0}", "#{f1}"], NONCE);
  const good = printed([["%1", "a"]]);
  assert.deepEqual(rows.parse(good), [["%1", "a"]]);
  assert.equal(rows.parse(good.slice(0, -1)), null, "no final newline");
  assert.equal(rows.parse(`stray\n${good}`), null, "text before a row");
  assert.equal(rows.parse(`${good}stray\n`), null, "text after the rows");
  assert.equal(rows.parse(printed([["%1", "a", "b"]])), null, "a field too many");
  assert.equal(rows.parse("%1\ta\n"), null, "an unfenced row");
});

Deno.test("each read draws its own nonce", () => {
  assert.notEqual(fencedRows(["#{f0}"]).format, fencedRows(["#{f0}"]).format);
});

Deno.test("one row, then what a later command printed, kept as it is", () => {
  const { parseFirst } = fencedRows(["#{f0}", "#{f1}"], NONCE);
  const row = printed([["%1", "a\nb"]]);
  // The later output may itself hold what looks like rows and ends.
  const rest = `line\n>${NONCE}>\n<${NONCE}<x|${NONCE}|y>${NONCE}>\n`;
  assert.deepEqual(parseFirst(row + rest), { row: ["%1", "a\nb"], rest });
  assert.deepEqual(parseFirst(row), { row: ["%1", "a\nb"], rest: "" });
  assert.equal(parseFirst(`junk${row}`), null);
  assert.equal(parseFirst("no row at all\n"), null);
  assert.equal(parseFirst(printed([["%1", "a", "extra"]]).replace("#{f2}", "")), null);
});
