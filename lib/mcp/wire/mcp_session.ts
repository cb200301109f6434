// The server side of an MCP session over one transport: initialize and ping answered here,
// every other request routed by method to its handler with typed params, a cancelled request's
// handler aborted (and its late answer dropped), progress and log notifications sent, and every
// error one bounded line. It stands in for the SDK's Server, whose zod schemas and validators
// cost this process about 27 MiB of resident memory for the little of them it used.
import type { JSONRPCMessage, Transport } from "../../deps.ts";
import { INTERNAL_ERROR, INVALID_PARAMS, type JsonRpcId, METHOD_NOT_FOUND } from "./json_rpc.ts";
import { isJsonObject } from "../../json_object.ts";
import {
  initializeParams,
  levelRank,
  type LoggingLevel,
  noParams,
  type ParamsReader,
  type ProgressToken,
  progressTokenOf,
  setLevelParams,
} from "./request_params.ts";

/** The protocol revisions this server speaks, newest first. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const LONGEST_ERROR_MESSAGE = 300;

/** An error a handler throws to answer its request with this JSON-RPC code and message. */
export class ProtocolError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export type RequestContext = {
  /** Aborted when the client cancels the request or the session closes. */
  signal: AbortSignal;
  /** Sends notifications/progress for this request, when the client asked for progress. */
  progress?: (done: number, message: string) => void;
};

type Route = (params: Record<string, unknown>, context: RequestContext) => unknown;

export type SessionOptions = {
  serverInfo: { name: string; version: string };
  capabilities: Record<string, object>;
  instructions: string;
};

/** One error line: no newlines, at most LONGEST_ERROR_MESSAGE characters. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > LONGEST_ERROR_MESSAGE
    ? `${flat.slice(0, LONGEST_ERROR_MESSAGE - 1)}…`
    : flat;
}

export class McpSession {
  onclose?: () => void;
  #routes = new Map<string, Route>();
  #inFlight = new Map<JsonRpcId, AbortController>();
  #transport: Transport | null = null;
  #logLevel: LoggingLevel | null = null;

  constructor(options: SessionOptions) {
    this.handle("initialize", initializeParams, ({ protocolVersion }) => ({
      protocolVersion: PROTOCOL_VERSIONS.includes(protocolVersion)
        ? protocolVersion
        : PROTOCOL_VERSIONS[0],
      capabilities: options.capabilities,
      serverInfo: options.serverInfo,
      instructions: options.instructions,
    }));
    this.handle("ping", noParams, () => ({}));
    this.handle("logging/setLevel", setLevelParams, ({ level }) => {
      this.#logLevel = level;
      return {};
    });
  }

  /** Answers `method` with `answer`, once `read` accepted its params. */
  handle<T>(
    method: string,
    read: ParamsReader<T>,
    answer: (params: T, context: RequestContext) => unknown,
  ): void {
    this.#routes.set(method, (params, context) => {
      const reading = read(params);
      if ("problem" in reading) throw new ProtocolError(INVALID_PARAMS, reading.problem);
      return answer(reading.params, context);
    });
  }

  async connect(transport: Transport): Promise<void> {
    this.#transport = transport;
    transport.onmessage = (message: JSONRPCMessage) => this.#receive(message);
    transport.onclose = () => this.#closed();
    transport.onerror = () => {};
    await transport.start();
  }

  /** A notification to the client; `notifications/message` below the client's level is dropped. */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    if (method === "notifications/message" && this.#belowLogLevel(params.level)) return;
    await this.#send({ jsonrpc: "2.0", method, params });
  }

  #belowLogLevel(level: unknown): boolean {
    if (this.#logLevel === null) return false;
    const reading = setLevelParams({ level });
    return "params" in reading && levelRank(reading.params.level) < levelRank(this.#logLevel);
  }

  #receive(message: JSONRPCMessage): void {
    if (!("method" in message)) return; // a response: this server sends no requests
    const params = message.params ?? {};
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") this.#cancel(params.requestId);
      return;
    }
    const id = message.id;
    const route = this.#routes.get(message.method);
    if (!route) {
      this.#sendError(id, METHOD_NOT_FOUND, `${message.method} is not a method of this server`);
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    const context: RequestContext = {
      signal: controller.signal,
      progress: this.#progressFor(progressTokenOf(params), controller.signal),
    };
    Promise.resolve()
      .then(() => route(params, context))
      .then(
        (result) => {
          if (controller.signal.aborted) return;
          return this.#send({ jsonrpc: "2.0", id, result: isJsonObject(result) ? result : {} });
        },
        (error) => {
          if (controller.signal.aborted) return;
          const code = error instanceof ProtocolError ? error.code : INTERNAL_ERROR;
          const text = error instanceof Error ? error.message : "internal error";
          return this.#sendError(id, code, text);
        },
      )
      .catch(() => {}) // the transport is gone: there is no one left to answer
      .finally(() => {
        if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
      });
  }

  #progressFor(
    token: ProgressToken | undefined,
    signal: AbortSignal,
  ): RequestContext["progress"] {
    if (token === undefined) return undefined;
    return (progress, message) => {
      if (signal.aborted) return;
      this.notify("notifications/progress", { progressToken: token, progress, message })
        .catch(() => {});
    };
  }

  #cancel(requestId: unknown): void {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    this.#inFlight.get(requestId)?.abort("the client cancelled the request");
  }

  #closed(): void {
    for (const controller of this.#inFlight.values()) controller.abort("the session closed");
    this.#inFlight.clear();
    this.#transport = null;
    this.onclose?.();
  }

  #sendError(id: JsonRpcId, code: number, message: string): Promise<void> {
    return this.#send({ jsonrpc: "2.0", id, error: { code, message: oneLine(message) } });
  }

  async #send(message: JSONRPCMessage): Promise<void> {
    await this.#transport?.send(message);
  }
}
