// A tool result is written from the pieces it was made in, through the real SDK (2.4.0) in both
// eras: the message the SDK hands our transport for a tools/call answer is recognised as the one
// lib/mcp/tool_result.ts made (the SDK copies a result per era), so lib/mcp/wire/line_writer.ts
// writes its outputs from their pieces, and the line is byte for byte what JSON.stringify would
// write. Without that path a full-size tmux_run cost the server 24-31 ms of CPU instead of
// 14-18, and 771-840 page faults instead of 194-256 (docs/design/full_size_output.md). An SDK
// that copies results another way falls back silently; this test is what notices.
import assert from "node:assert/strict";
import { Client, InMemoryTransport } from "./test_deps.ts";
import type { JSONRPCMessage } from "../lib/deps.ts";
import { serveStdio } from "../lib/deps.ts";
import { messageLine } from "../lib/mcp/wire/line_writer.ts";
import { type Session, withLab, withServer } from "./harness.ts";

const ENROLL = ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP"];
const MODES = [
  { negotiation: "legacy" as const, era: "legacy" },
  { negotiation: { pin: "2026-07-28" }, era: "modern" },
];

/** The server's answers to tools/call, as the SDK hands them to the transport. */
async function toolAnswers(
  s: Session,
  negotiation: "legacy" | { pin: string },
  calls: (client: Client) => Promise<void>,
): Promise<{ era: string; answers: JSONRPCMessage[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const connection = serveStdio(s.server.mcpServer, { transport: serverSide });
  const client = new Client({ name: "result-lines", version: "1" }, {
    versionNegotiation: { mode: negotiation },
  });
  try {
    await client.connect(clientSide);
    await calls(client);
    const era = client.getProtocolEra() ?? "none";
    const answers = sent.filter((message) =>
      "result" in message && typeof message.result === "object" && message.result !== null &&
      "structuredContent" in message.result
    );
    return { era, answers };
  } finally {
    await client.close();
    await connection.close();
  }
}

for (const { negotiation, era } of MODES) {
  Deno.test(`${era} era: tool results are written from their pieces, as JSON.stringify writes them`, () =>
    withLab((lab) =>
      withServer(lab, ENROLL.map((flag) => flag.replace("%0", lab.pane)), async (s) => {
        await s.enroll();
        const seen = await toolAnswers(s, negotiation, async (client) => {
          const target = { kind: "pane", id: lab.pane, generation: s.generation };
          const script = "head -c 40000 /dev/zero | tr '\\0' a; echo 'ü\"\\' >&2; exit 3";
          await client.callTool({ name: "tmux_run", arguments: { target, script } });
          await client.callTool({ name: "capture_pane", arguments: { pane_id: lab.pane } });
          await client.callTool({ name: "capture_pane", arguments: { pane_id: "%99999" } });
        });
        assert.equal(seen.era, era);
        assert.equal(seen.answers.length, 3, "three tool results");
        for (const answer of seen.answers) {
          const pieces = messageLine(answer);
          assert.ok(pieces.length > 1, `a result written as one JSON.stringify (${era})`);
          assert.equal(pieces.join(""), `${JSON.stringify(answer)}\n`);
        }
      })
    ));
}
