// The patterns wait_for_text and search_panes test against pane text, one line at a time, so
// `^` and `$` anchor lines. A caller's regex must not be able to stall the server: V8's RegExp
// backtracks, and `^(a|aa)+$` over a line of 44 `a`s and a `b` held the whole server (every
// other call, pings too) for 15-23 s. Regexes therefore run on RE2JS, which matches in time
// linear in the line; it has no lookahead and no backreferences, and a pattern that needs them
// is refused rather than matched with another meaning. Literal text stays on RegExp: an escaped
// literal cannot backtrack. Matching many lines hands the event loop back every SLICE_MS.
import { loadRe2js } from "../deps.ts";

/** Where a line matched: the UTF-16 index of the match and its text. */
export type LineMatch = { index: number; text: string };
export type LineFinder = (line: string) => LineMatch | null;

export type PatternOptions = { regex: boolean; ignoreCase: boolean };

/** Why a pattern was refused: not a JavaScript regex at all, or one RE2JS cannot run. */
export type PatternProblem = "invalid" | "unsupported";

/** The longest stretch of matching before other calls get a turn. */
const SLICE_MS = 10;

/** A literal pattern as a regular expression that matches exactly its characters. */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/**
 * True when a pattern that is valid with RegExp's `u` flag has a backreference. In that mode an
 * escaped `k` or a nonzero digit is nothing else; RE2JS's translation would turn `\k<name>` into
 * the letters `k<name>`, a silent change of meaning.
 */
function hasBackreference(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "\\") continue;
    i++;
    if (pattern[i] === "k" || (pattern[i] >= "1" && pattern[i] <= "9")) return true;
  }
  return false;
}

/** Finds the first match in one line; a PatternProblem when the pattern cannot be used. */
export async function lineFinder(
  pattern: string,
  options: PatternOptions,
): Promise<LineFinder | PatternProblem> {
  const flags = options.ignoreCase ? "iu" : "u";
  if (!options.regex) {
    const literal = new RegExp(escapeRegExp(pattern), flags);
    return (line) => {
      const match = literal.exec(line);
      return match ? { index: match.index, text: match[0] } : null;
    };
  }
  try {
    new RegExp(pattern, flags);
  } catch {
    return "invalid";
  }
  if (hasBackreference(pattern)) return "unsupported";
  const { RE2JS } = await loadRe2js();
  let compiled;
  try {
    compiled = RE2JS.compile(
      RE2JS.translateRegExp(pattern),
      (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.LOOKBEHINDS,
    );
  } catch {
    return "unsupported";
  }
  return (line) => {
    const matcher = compiled.matcher(line);
    return matcher.find() ? { index: matcher.start(), text: matcher.group() ?? "" } : null;
  };
}

/**
 * Resolves at once while matching has taken less than SLICE_MS since the last turn; otherwise
 * after one turn of the event loop, so a request that arrives meanwhile (a ping) is answered.
 */
export function pacer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    since = performance.now();
  };
}
