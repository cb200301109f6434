// A foreground command is reported within its bounds (32 arguments, 1024 characters), the start
// kept, with `truncated` saying whether anything was cut; a backend that cannot tell the
// arguments apart reports only the command line.
import assert from "node:assert/strict";
import { boundForeground, FOREGROUND_MAX_ARGS, FOREGROUND_MAX_CHARS } from "./processes.ts";

const process = (argv: string[], cut = false) => ({
  pid: 7,
  argv,
  commandLine: argv.join(" "),
  cut,
});

Deno.test("a short command line comes back whole, its arguments exact", () => {
  assert.deepEqual(boundForeground(process(["python3", "-m", "http.server", "a b\tc"])), {
    pid: 7,
    argv: ["python3", "-m", "http.server", "a b\tc"],
    command_line: "python3 -m http.server a b\tc",
    truncated: false,
  });
});

Deno.test("more than 32 arguments keep the first 32 and say so", () => {
  const argv = Array.from({ length: 40 }, (_, i) => `a${i}`);
  const bounded = boundForeground(process(argv));
  assert.deepEqual(bounded.argv, argv.slice(0, FOREGROUND_MAX_ARGS));
  assert.equal(bounded.command_line, argv.slice(0, FOREGROUND_MAX_ARGS).join(" "));
  assert.equal(bounded.truncated, true);
});

Deno.test("a command line over 1024 characters is cut there, the last argument shortened", () => {
  const argv = ["cmd", "x".repeat(600), "y".repeat(600)];
  const bounded = boundForeground(process(argv));
  assert.equal(bounded.command_line.length, FOREGROUND_MAX_CHARS);
  assert.deepEqual(bounded.argv?.slice(0, 2), argv.slice(0, 2));
  assert.equal(
    bounded.argv?.[2],
    "y".repeat(FOREGROUND_MAX_CHARS - "cmd ".length - 600 - " ".length),
  );
  assert.equal(bounded.argv?.join(" "), bounded.command_line);
  assert.equal(bounded.truncated, true);
  // Exactly at the bound nothing is cut.
  const exact = ["z".repeat(FOREGROUND_MAX_CHARS - 2), "w"];
  assert.equal(boundForeground(process(exact)).truncated, false);
});

Deno.test("a cut never splits a surrogate pair", () => {
  const bounded = boundForeground(process(["a".repeat(FOREGROUND_MAX_CHARS - 1) + "😀"]));
  assert.equal(bounded.command_line, "a".repeat(FOREGROUND_MAX_CHARS - 1));
  assert.equal(bounded.truncated, true);
});

Deno.test("arguments the backend read only in part are truncated", () => {
  assert.equal(boundForeground(process(["sh", "-c"], true)).truncated, true);
});

Deno.test("without argument boundaries only the command line is reported, bounded", () => {
  const line = "ps-joined ".repeat(200);
  const bounded = boundForeground({ pid: 9, argv: null, commandLine: line, cut: false });
  assert.equal(bounded.argv, null);
  assert.equal(bounded.command_line, line.slice(0, FOREGROUND_MAX_CHARS));
  assert.equal(bounded.truncated, true);
});
