// What a JSON-RPC error says, as one line an agent can act on. The SDK refuses malformed params
// with its schema library's report appended as pretty-printed JSON (`Invalid tools/call request:
// [ { "path": ["params", "name"], "message": "…" } ]`); this turns that report into
// `params.name: …` phrases, and bounds every message to one line of LONGEST characters. For
// spec methods other than tools/call the SDK (2.4.0) sends such a report as -32603 (internal
// error); a report on the request's params is -32602 (invalid params), so it is sent as that.
// This reads the SDK's prose, so an SDK upgrade could change it silently: tests/conformance_test.ts
// sends each malformed request whose answer is rewritten here through the real SDK and fails
// when a rewrite is not taken (a message of more than one line, no field named, or -32603).
import { INVALID_PARAMS } from "./json_rpc.ts";

const LONGEST = 300;

type Issue = { path: (string | number)[]; message: string };

function isIssue(value: unknown): value is Issue {
  return typeof value === "object" && value !== null && "path" in value &&
    Array.isArray(value.path) &&
    value.path.every((part: unknown) => typeof part === "string" || typeof part === "number") &&
    "message" in value && typeof value.message === "string";
}

/** `["params", "arguments", 0]` → `params.arguments[0]`. */
function fieldOf(path: (string | number)[]): string {
  return path.map((part, i) => typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)
    .join("");
}

/** The schema report's issues; null if `report` is not one. */
function issuesOf(report: string): Issue[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(report);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(isIssue)) return null;
  return parsed;
}

/**
 * An error's code and message as sent: one line of at most LONGEST characters, a schema report
 * said as fields, and a report on the params as invalid params.
 */
export function errorLine(error: { code: number; message: string }): {
  code: number;
  message: string;
} {
  const report = /^([^\n[]*?):?\s*(\[[\s\S]*\])\s*$/.exec(error.message);
  const issues = report ? issuesOf(report[2]) : null;
  let { code, message } = error;
  if (report && issues) {
    const phrases = issues.map((issue) => `${fieldOf(issue.path) || "params"}: ${issue.message}`);
    message = [report[1], phrases.join("; ")].filter((part) => part !== "").join(": ");
    if (issues.every((issue) => issue.path[0] === "params")) code = INVALID_PARAMS;
  }
  const flat = message.replace(/\s*\n\s*/g, " ").trim();
  return { code, message: flat.length > LONGEST ? `${flat.slice(0, LONGEST - 1)}…` : flat };
}
