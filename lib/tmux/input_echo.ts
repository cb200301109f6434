// Typed input is echoed: a shell or a REPL draws the line it reads where the cursor was. A wait
// for a command's output that tested that echo would end before the command ran (the typed
// `print(6*7)` contains `6*7`; `echo DONE` contains `DONE`). So a wait whose cursor was taken
// just before some text was typed (keys, a paste, a command to run) first takes the echo of
// that text off what arrived, and tests the rest. The echo begins at the cursor's column and may
// wrap over rows; each further typed line is echoed on its own row, after a continuation prompt
// (`... `, `> `). Only text that matches what was typed is taken off, so output is never lost;
// an echo the program changed (syntax colouring does not, completion may) is tested like output.

/** `arrived` (the first row from the cursor's column on) without the echo of `typed`. */
export function withoutEcho(arrived: string[], typed: string): string[] {
  const typedLines = typed.replace(/(\r\n|\r|\n)$/, "").split(/\r\n|\r|\n/);
  const rows = [...arrived];
  let row = 0;
  for (const [n, line] of typedLines.entries()) {
    if (row >= rows.length) break;
    if (n === 0) {
      // The first line starts at the cursor and wraps at the pane's edge.
      let rest = line.trimEnd();
      while (row < rows.length) {
        // A prompt's trailing space is not captured, so the first row may begin with it.
        const shown = row === 0 ? rows[row].trim() : rows[row].trimEnd();
        if (shown !== "" && shown.length < rest.length && rest.startsWith(shown)) {
          rest = rest.slice(shown.length).trimStart();
          rows[row] = "";
          row++;
          continue;
        }
        if (!shown.startsWith(rest)) return dropEmptied(rows, row);
        rows[row] = rows[row].slice(rows[row].indexOf(rest) + rest.length);
        row++;
        break;
      }
      continue;
    }
    // A further line sits after a continuation prompt on its own row.
    const shown = rows[row].trimEnd();
    const text = line.trimEnd();
    if (text === "" ? shown.length > 12 : !shown.endsWith(text)) break;
    rows[row] = "";
    row++;
  }
  return dropEmptied(rows, row);
}

/** The rows with those before `upTo` that the echo emptied taken out. */
function dropEmptied(rows: string[], upTo: number): string[] {
  return rows.filter((text, index) => index >= upTo || text.trim() !== "");
}
