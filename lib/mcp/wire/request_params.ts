// The params of each MCP request this server answers, read into typed values or refused with
// one line naming the field at fault (`params.name: must be a string`), never quoting the value.
// A request whose params have the wrong shape is answered -32602 with that line.
import { isJsonObject } from "../../json_object.ts";

export type ProgressToken = string | number;

/** What every request's params may carry: `_meta.progressToken` asks for progress. */
export type RequestMeta = { progressToken?: ProgressToken };

/** Either the typed params or the one-line reason they are not. */
export type ParamsReading<T> = { params: T } | { problem: string };

export type ParamsReader<T> = (params: Record<string, unknown>) => ParamsReading<T>;

const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

export type LoggingLevel = typeof LOGGING_LEVELS[number];

function problem(field: string, rule: string): { problem: string } {
  return { problem: `params.${field}: ${rule}` };
}

/** `_meta.progressToken`, when the request asks for progress and names a usable token. */
export function progressTokenOf(params: Record<string, unknown>): ProgressToken | undefined {
  const meta = params._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

export const noParams: ParamsReader<Record<string, never>> = () => ({ params: {} });

export const listParams: ParamsReader<{ cursor?: string }> = ({ cursor }) => {
  if (cursor !== undefined && typeof cursor !== "string") {
    return problem("cursor", "must be a string");
  }
  return { params: cursor === undefined ? {} : { cursor } };
};

export const initializeParams: ParamsReader<{ protocolVersion: string }> = (params) => {
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== "string") return problem("protocolVersion", "must be a string");
  if (!isJsonObject(capabilities)) return problem("capabilities", "must be an object");
  if (!isJsonObject(clientInfo)) return problem("clientInfo", "must be an object");
  if (typeof clientInfo.name !== "string") return problem("clientInfo.name", "must be a string");
  if (typeof clientInfo.version !== "string") {
    return problem("clientInfo.version", "must be a string");
  }
  return { params: { protocolVersion } };
};

export const setLevelParams: ParamsReader<{ level: LoggingLevel }> = ({ level }) => {
  const known = LOGGING_LEVELS.find((name) => name === level);
  if (!known) return problem("level", `must be one of ${LOGGING_LEVELS.join(", ")}`);
  return { params: { level: known } };
};

/** A `name` and an `arguments` object, as tools/call and prompts/get both take them. */
export const callToolParams: ParamsReader<{ name: string; arguments: Record<string, unknown> }> = (
  params,
) => {
  const { name } = params;
  const args = params.arguments ?? {};
  if (typeof name !== "string") return problem("name", "must be a string");
  if (!isJsonObject(args)) return problem("arguments", "must be an object");
  return { params: { name, arguments: args } };
};

export const readResourceParams: ParamsReader<{ uri: string }> = ({ uri }) => {
  if (typeof uri !== "string") return problem("uri", "must be a string");
  return { params: { uri } };
};

export const getPromptParams: ParamsReader<{ name: string; arguments: Record<string, string> }> = (
  params,
) => {
  const reading = callToolParams(params);
  if ("problem" in reading) return reading;
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(reading.params.arguments)) {
    if (typeof value !== "string") return problem("arguments", "must map names to strings");
    strings[key] = value;
  }
  return { params: { name: reading.params.name, arguments: strings } };
};

/** The severity order of `notifications/message` levels, for logging/setLevel's filter. */
export function levelRank(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}
