// JSON-RPC batches, which MCP allowed in one revision only: 2025-03-26 says a server MUST accept
// them (2025-06-18 removed them, and the SDK takes one message at a time). A batch that arrives
// on a connection that negotiated 2025-03-26 is taken apart: each message goes to the SDK as if
// it came alone, the answers to its requests are held, and once the last of them is in they go
// out together as one array, as JSON-RPC asks. Any other connection is told batches are not
// part of its revision.
import type { JSONRPCMessage } from "../../deps.ts";
import type { ErrorAnswer, JsonRpcId } from "./json_rpc.ts";

/** The one revision whose clients may send batches. */
export const BATCH_REVISION = "2025-03-26";

/** A message that answers a request: the SDK's, or an error this side wrote itself. */
export type Answer = JSONRPCMessage | ErrorAnswer;

type Pending = { ids: Set<JsonRpcId>; answers: Answer[] };

export class Batches {
  #negotiated: string | null = null;
  #pending = new Map<JsonRpcId, Pending>();

  /** Notes the revision from the server's answer to `initialize`, as it goes out. */
  observe(message: JSONRPCMessage): void {
    if (!("result" in message)) return;
    const version = message.result.protocolVersion;
    if (typeof version === "string" && "serverInfo" in message.result) {
      this.#negotiated = version;
    }
  }

  /** Whether this connection's revision takes batches. */
  get accepted(): boolean {
    return this.#negotiated === BATCH_REVISION;
  }

  /**
   * Starts a batch whose requests have these ids, and the errors already known for its members
   * that were not messages; returns what to write now (the errors alone, when no request waits).
   */
  open(ids: JsonRpcId[], errors: Answer[]): Answer[] | null {
    const fresh = ids.filter((id) => !this.#pending.has(id));
    if (fresh.length === 0) return errors.length ? errors : null;
    const pending: Pending = { ids: new Set(fresh), answers: [...errors] };
    for (const id of fresh) this.#pending.set(id, pending);
    return null;
  }

  /**
   * Takes an answer that belongs to a batch. Undefined when it belongs to none (write it
   * alone); null while its batch still waits; the batch's answers once it is complete.
   */
  hold(message: JSONRPCMessage): Answer[] | null | undefined {
    if (!("id" in message) || "method" in message || message.id === undefined) return undefined;
    const id = message.id;
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    pending.ids.delete(id);
    pending.answers.push(message);
    return pending.ids.size === 0 ? pending.answers : null;
  }
}
