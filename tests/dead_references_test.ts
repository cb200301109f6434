// A document or comment that names a file which does not exist sends a reader nowhere, and names
// drift when files move (three comments named a line writer, a task wire module and a SHA-256
// test by paths they had long left). So every file path a comment or a
// document names must exist, and every file opens with the comment that says why it exists, which
// is its line in the inventory (ARCHITECTURE.md keeps none of its own). Pure file reads: no tmux.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules", "dist"]);

/** Every file under the checkout, as a path relative to it. */
function walk(directory = ""): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(new URL(directory || ".", ROOT))) {
    const path = directory ? `${directory}/${entry.name}` : entry.name;
    if (entry.isDirectory) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) files.push(...walk(path));
    } else files.push(path);
  }
  return files;
}

const FILES = walk();
const EXISTING = new Set(FILES);
const DIRECTORIES = new Set(
  FILES.flatMap((file) =>
    file.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"))
  ),
);
const CODE = /\.(ts|pl|sh|py|yml|yaml)$/;
const DOCUMENTS = FILES.filter((file) => file.endsWith(".md"));

/** A path from the checkout's root: lib/…, tests/…, docs/…, with an extension. */
const ROOTED =
  /(?<![\w./-])((?:lib|tests|bench|docs|schemas|\.ci|\.github)\/[\w./-]*\.(?:ts|pl|sh|md|json|yml|py))\b/g;
/** A backticked name of a file, maybe with folders: `wire/line_writer.ts`, `_define.ts`. */
const NAMED = /`([\w./-]+\.(?:ts|pl|sh|py))`/g;

/** Whether `name` is the path, or the end of the path, of a file in the checkout. */
function exists(name: string): boolean {
  const path = name.replace(/^\.\//, "");
  return EXISTING.has(path) || DIRECTORIES.has(path) ||
    FILES.some((file) => file.endsWith(`/${path}`));
}

/** The comments of a source file: what follows `//` or `#` on a line, and block comments. */
function commentsOf(file: string, text: string): string {
  if (file.endsWith(".ts")) {
    const blocks = [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((match) => match[0]);
    const lines = text.split("\n").flatMap((line) => {
      const at = line.search(/(^|\s)\/\/\s/);
      return at < 0 ? [] : [line.slice(at)];
    });
    return [...blocks, ...lines].join("\n");
  }
  return text.split("\n").flatMap((line) => {
    const at = line.search(/(^|\s)#/);
    return at < 0 ? [] : [line.slice(at)];
  }).join("\n");
}

/** The names in `text` that name no file: rooted paths and backticked file names. */
function deadNames(text: string): string[] {
  const names = [...text.matchAll(ROOTED)].map((match) => match[1].replace(/[.]+$/, ""));
  names.push(...[...text.matchAll(NAMED)].map((match) => match[1]));
  // Placeholders (bench/NAME.ts, a FILE) stand for any file.
  return names.filter((name) => !/[A-Z]{3,}|…|\*/.test(name) && !exists(name));
}

Deno.test("no comment names a file that does not exist", () => {
  const dead: string[] = [];
  for (const file of FILES.filter((file) => CODE.test(file) || file === "helper.sh")) {
    const text = Deno.readTextFileSync(new URL(file, ROOT));
    for (const name of deadNames(commentsOf(file, text))) dead.push(`${file}: ${name}`);
  }
  assert.deepEqual(dead, []);
});

Deno.test("no document names a file that does not exist, in its text or its links", () => {
  const dead: string[] = [];
  for (const file of DOCUMENTS) {
    const text = Deno.readTextFileSync(new URL(file, ROOT));
    for (const name of deadNames(text)) dead.push(`${file}: ${name}`);
    const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target) || target.startsWith("#")) continue;
      const path = new URL(target.split("#")[0], new URL(folder || ".", ROOT));
      const relative = decodeURIComponent(path.pathname.slice(ROOT.pathname.length)).replace(
        /\/$/,
        "",
      );
      if (!EXISTING.has(relative) && !DIRECTORIES.has(relative)) dead.push(`${file}: (${target})`);
    }
  }
  assert.deepEqual(dead, []);
});

Deno.test("every source file opens with a comment that says why it exists", () => {
  const bare: string[] = [];
  const sources = FILES.filter((file) =>
    /^(lib|tests|bench)\/.*\.ts$/.test(file) || file === "main.ts"
  );
  for (const file of sources) {
    const first = Deno.readTextFileSync(new URL(file, ROOT)).split("\n")[0];
    if (!/^(\/\/|\/\*|#!)/.test(first)) bare.push(file);
  }
  assert.deepEqual(bare, []);
});
