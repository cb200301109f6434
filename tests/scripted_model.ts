// A scripted model on loopback for tests/real_clients_test.ts: one HTTP server that answers a real
// MCP client in its own API format (Anthropic Messages, OpenAI Responses, OpenAI Chat
// Completions, Gemini generateContent, each streamed as server-sent events) and plays a fixed script of tool calls,
// one a turn. It records what the client sent the model: the tools offered, and every tool
// result, so the test can assert on what a model of that client actually sees.

/**
 * A tool as the client offered it to the model: its name there, the namespace it was offered in
 * (Codex groups a server's tools in one, the Responses API's `namespace` tool) and its input
 * schema.
 */
export type OfferedTool = { name: string; namespace?: string; schema: unknown };

/** What the model decides on a turn: call a tool, or answer in text (the end). */
export type Move =
  | { tool: string; namespace?: string; args: Record<string, unknown> }
  | { text: string };

/**
 * One turn of the main conversation: what the model was given (the tools, the results, the whole
 * request as sent), and what it answered.
 */
export type Turn = { tools: OfferedTool[]; results: string[]; request: string; move: Move };

/** Chooses the next move from the tools offered and the tool results received so far. */
export type Script = (tools: OfferedTool[], results: string[]) => Move | Promise<Move>;

/** The parts of a request every API format has: the tools, the tool results, in order. */
type Conversation = { tools: OfferedTool[]; results: string[] };

export type ScriptedModel = {
  url: string;
  /** The turns of the conversation that offered tools (side requests are not turns). */
  turns: Turn[];
  /** Requests that offered no tools (titles, summaries, checks) and paths not served. */
  sideRequests: string[];
  close: () => Promise<void>;
};

/**
 * A tool result as the model reads it: a string as it is, else its strings in order (the text
 * blocks of an Anthropic result, the `output` of a Gemini functionResponse), else its JSON.
 */
function asText(value: unknown): string {
  if (typeof value === "string") return value;
  const strings = stringsIn(value);
  return strings.length > 0 ? strings.join("\n") : JSON.stringify(value);
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? value : []);

// Anthropic Messages: tools [{name, input_schema}], results in user turns' tool_result blocks.
function anthropicConversation(body: Json): Conversation {
  const tools = list(body.tools).filter((tool) => typeof tool.name === "string")
    .map((tool) => ({ name: String(tool.name), schema: tool.input_schema }));
  const results = list(body.messages).flatMap((message) => list(message.content))
    .filter((block) => block.type === "tool_result").map((block) => asText(block.content));
  return { tools, results };
}

// OpenAI Responses: tools [{type: "function", name, parameters}] and namespaces of them
// [{type: "namespace", name, tools}], results as function_call_output items of the input.
function responsesConversation(body: Json): Conversation {
  const tools = list(body.tools).flatMap((tool) =>
    tool.type === "namespace"
      ? list(tool.tools).map((inner) => ({
        name: String(inner.name),
        namespace: String(tool.name),
        schema: inner.parameters,
      }))
      : tool.type === "function"
      ? [{ name: String(tool.name), schema: tool.parameters }]
      : []
  );
  const results = list(body.input).filter((item) => item.type === "function_call_output")
    .map((item) => asText(item.output));
  return { tools, results };
}

// OpenAI Chat Completions: tools [{type: "function", function: {name, parameters}}], results as
// messages of the role "tool" whose content is a string or text parts.
function chatConversation(body: Json): Conversation {
  const tools = list(body.tools).filter((tool) => tool.type === "function")
    .map((tool) => tool.function as Json)
    .map((declared) => ({ name: String(declared.name), schema: declared.parameters }));
  const results = list(body.messages).filter((message) => message.role === "tool")
    .map((message) =>
      Array.isArray(message.content)
        ? list(message.content).map((part) => asText(part.text ?? part)).join("\n")
        : asText(message.content)
    );
  return { tools, results };
}

// Gemini: tools [{functionDeclarations: [{name, parameters | parametersJsonSchema}]}], results as
// functionResponse parts.
function geminiConversation(body: Json): Conversation {
  const tools = list(body.tools).flatMap((tool) => list(tool.functionDeclarations))
    .map((declaration) => ({
      name: String(declaration.name),
      schema: declaration.parametersJsonSchema ?? declaration.parameters,
    }));
  const results = list(body.contents).flatMap((content) => list(content.parts))
    .filter((part) => typeof part.functionResponse === "object")
    .map((part) => asText((part.functionResponse as Json).response));
  return { tools, results };
}

/**
 * The least answer a JSON schema accepts (Gemini CLI's side requests ask for JSON: its router's
 * complexity score): each required property by its type, an enum's first value.
 */
function leastOf(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return null;
  const { type, properties, required, enum: choices } = schema as Json;
  if (Array.isArray(choices) && choices.length > 0) return choices[0];
  switch (String(type).toLowerCase()) {
    case "object": {
      const fields = typeof properties === "object" && properties !== null ? properties : {};
      const names = Array.isArray(required) ? required.map(String) : [];
      return Object.fromEntries(
        names.map((name) => [name, leastOf((fields as Json)[name])]),
      );
    }
    case "array":
      return [];
    case "string":
      return "";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    default:
      return null;
  }
}

const encoder = new TextEncoder();
let counter = 0;
const nextId = (prefix: string) => `${prefix}_${++counter}`;

function sse(events: { event?: string; data: unknown }[]): Response {
  const text = events.map(({ event, data }) =>
    `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`
  ).join("");
  return new Response(encoder.encode(text), {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function anthropicAnswer(body: Json, move: Move): Response {
  const usage = { input_tokens: 10, output_tokens: 10 };
  const block = "tool" in move
    ? { type: "tool_use", id: nextId("toolu"), name: move.tool, input: move.args }
    : { type: "text", text: move.text };
  const stopReason = "tool" in move ? "tool_use" : "end_turn";
  const message = {
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model: body.model,
    content: [block],
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (body.stream !== true) return Response.json(message);
  const delta = "tool" in move
    ? { type: "input_json_delta", partial_json: JSON.stringify(move.args) }
    : { type: "text_delta", text: move.text };
  const opening = "tool" in move ? { ...block, input: {} } : { ...block, text: "" };
  return sse([
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: { ...message, content: [], stop_reason: null },
      },
    },
    {
      event: "content_block_start",
      data: { type: "content_block_start", index: 0, content_block: opening },
    },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 10 },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}

function responsesAnswer(move: Move): Response {
  const id = nextId("resp");
  const item = "tool" in move
    ? {
      type: "function_call",
      id: nextId("fc"),
      call_id: nextId("call"),
      ...(move.namespace !== undefined && { namespace: move.namespace }),
      name: move.tool,
      arguments: JSON.stringify(move.args),
      status: "completed",
    }
    : {
      type: "message",
      id: nextId("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: move.text, annotations: [] }],
    };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 20,
  };
  return sse([
    { event: "response.created", data: { type: "response.created", response: { id } } },
    {
      event: "response.output_item.added",
      data: { type: "response.output_item.added", output_index: 0, item },
    },
    {
      event: "response.output_item.done",
      data: { type: "response.output_item.done", output_index: 0, item },
    },
    {
      event: "response.completed",
      data: {
        type: "response.completed",
        response: { id, status: "completed", output: [item], usage },
      },
    },
  ]);
}

function chatAnswer(body: Json, move: Move): Response {
  const call = "tool" in move
    ? {
      id: nextId("call"),
      type: "function",
      function: { name: move.tool, arguments: JSON.stringify(move.args) },
    }
    : undefined;
  const finishReason = call ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
  const head = { id: nextId("chatcmpl"), created: 0, model: body.model };
  if (body.stream !== true) {
    const message = call
      ? { role: "assistant", content: null, tool_calls: [call] }
      : { role: "assistant", content: "text" in move ? move.text : "" };
    return Response.json({
      ...head,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage,
    });
  }
  const chunk = (delta: Json, finish: string | null, extra: Json = {}) => ({
    ...head,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const delta = call
    ? { role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] }
    : { role: "assistant", content: "text" in move ? move.text : "" };
  const chunks = [chunk(delta, null), chunk({}, finishReason, { usage })];
  const text = chunks.map((data) => `data: ${JSON.stringify(data)}\n\n`).join("") +
    "data: [DONE]\n\n";
  return new Response(encoder.encode(text), {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function geminiAnswer(move: Move, streamed: boolean): Response {
  const part = "tool" in move
    ? { functionCall: { name: move.tool, args: move.args } }
    : { text: move.text };
  const chunk = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
    modelVersion: "scripted",
  };
  return streamed ? sse([{ data: chunk }]) : Response.json(chunk);
}

/**
 * Starts the scripted model on 127.0.0.1. A request that offers tools whose names `isMain`
 * accepts is a turn of the conversation and gets the script's move; any other request (a
 * client's title or summary call, a router's score, a token count) gets "ok", or the least JSON
 * its schema asks for, and is recorded as a side request.
 */
export function startScriptedModel(
  script: Script,
  isMain: (tools: OfferedTool[]) => boolean,
): ScriptedModel {
  const turns: Turn[] = [];
  const sideRequests: string[] = [];
  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const text = request.method === "POST" ? await request.text() : "";
    const body: Json = text === "" ? {} : JSON.parse(text);
    const path = url.pathname;
    const play = async (conversation: Conversation): Promise<Move> => {
      if (!isMain(conversation.tools)) {
        sideRequests.push(path);
        const wanted = (body.generationConfig as Json | undefined)?.responseJsonSchema;
        return { text: wanted === undefined ? "ok" : JSON.stringify(leastOf(wanted)) };
      }
      const move = await script(conversation.tools, conversation.results);
      turns.push({ ...conversation, request: text, move });
      return move;
    };
    if (path.endsWith("/messages/count_tokens")) {
      sideRequests.push(path);
      return Response.json({ input_tokens: 10 });
    }
    if (path.endsWith("/messages")) {
      return anthropicAnswer(body, await play(anthropicConversation(body)));
    }
    if (path.endsWith("/responses")) {
      return responsesAnswer(await play(responsesConversation(body)));
    }
    if (path.endsWith("/chat/completions")) {
      return chatAnswer(body, await play(chatConversation(body)));
    }
    if (path.endsWith(":streamGenerateContent")) {
      return geminiAnswer(await play(geminiConversation(body)), true);
    }
    if (path.endsWith(":generateContent")) {
      return geminiAnswer(await play(geminiConversation(body)), false);
    }
    if (path.endsWith(":countTokens")) {
      sideRequests.push(path);
      return Response.json({ totalTokens: 10 });
    }
    sideRequests.push(`${request.method} ${path} (not served)`);
    return new Response("not found", { status: 404 });
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handle);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    turns,
    sideRequests,
    close: () => server.shutdown(),
  };
}
