// A screen's description read into facts: numbers checked, flags converted, no mode as null,
// the command's name kept exactly; anything else is not a description.
import assert from "node:assert/strict";
import { parseScreen } from "./pane_screen.ts";

const ROW = ["%4", "321", "0", "7", "2", "1", "copy-mode", "80", "24", "less\tx"];

Deno.test("a screen description becomes typed facts", () => {
  assert.deepEqual(parseScreen(ROW), {
    pane_id: "%4",
    pane_pid: 321,
    dead: false,
    cursor_x: 7,
    cursor_y: 2,
    alternate_screen: true,
    pane_mode: "copy-mode",
    width: 80,
    height: 24,
    current_command: "less\tx",
  });
  const plain = parseScreen(ROW.map((f, i) => i === 5 ? "0" : i === 6 ? "" : f));
  assert.equal(plain?.alternate_screen, false);
  assert.equal(plain?.pane_mode, null);
});

Deno.test("a description whose id or numbers are not is refused", () => {
  assert.equal(parseScreen(ROW.map((f, i) => i === 0 ? "4" : f)), null);
  assert.equal(parseScreen(ROW.map((f, i) => i === 3 ? "" : f)), null);
  assert.equal(parseScreen(ROW.map((f, i) => i === 8 ? "24x" : f)), null);
});
