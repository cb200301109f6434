// The benchmarks' MCP client transport: the server as a child process on stdio, its answers
// split into lines by looking only at each new piece. The SDK's StdioClientTransport looks for
// the newline from the start of everything buffered on every piece, with Buffer.indexOf, which
// under Deno is about 100 times slower than under Node (16 scans of 1 MiB: 40 ms against 0.35 ms
// here, `deno run` and `node` on the same script): a Node client (Claude Code, Claude Desktop,
// the MCP Inspector) does not pay what a Deno client using that transport pays on a 1 MiB answer,
// so the benchmarks measure the server through this one. bench/big_output.ts shows both.
import type { JSONRPCMessage, Transport } from "../lib/dev_deps.ts";
import { concatBytes } from "../lib/util/bytes.ts";

/** MCP over the server's stdio, splitting lines by looking only at each new piece. */
export class LineClientTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;

  /** With `env`, the child gets exactly that environment; without, this process's. */
  constructor(command: string, args: string[], env?: Record<string, string>) {
    this.#child = new Deno.Command(command, {
      args,
      stdin: "piped",
      stdout: "piped",
      ...(env ? { env, clearEnv: true } : {}),
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
  }

  get pid(): number {
    return this.#child.pid;
  }

  start(): Promise<void> {
    this.#read().catch((error) => this.onerror?.(error)).finally(() => this.onclose?.());
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    let parts: Uint8Array[] = [];
    for await (const chunk of this.#child.stdout) {
      let start = 0;
      let end: number;
      while ((end = chunk.indexOf(10, start)) >= 0) {
        parts.push(chunk.subarray(start, end));
        const line = concatBytes(parts);
        parts = [];
        this.onmessage?.(JSON.parse(new TextDecoder().decode(line)));
        start = end + 1;
      }
      if (start < chunk.length) parts.push(chunk.slice(start));
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
  }
}
