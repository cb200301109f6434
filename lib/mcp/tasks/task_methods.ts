// The task store (lib/mcp/tasks/task_store.ts) on the wire, in both eras' vocabularies.
//
// 2025-11-25 (core tasks): a `tools/call` with `params.task` gets a CreateTaskResult at once;
// tasks/get, tasks/result (waits for the run, then gives the tool's CallToolResult), tasks/list
// and tasks/cancel read the store. SDK 2.4.0 keeps these methods in its 2025 registry (so they
// are dispatched on a 2025 connection) but out of its typed method maps, so they are
// registered in the explicit-schema (3-arg) form. Its 2025 codec refuses a tools/call body that
// carries `task` without `content` ("another result family cannot default into an empty
// tools/call success"), so the CreateTaskResult also carries `content: []`: Result objects
// allow additional keys, the body is still a valid CreateTaskResult, and answering at our own
// transport instead would mean re-implementing the request pipeline (validation, policy,
// progress) beside the SDK's. A tool result with isError reads `failed` (the 2025 rule for
// tools/call tasks); tasks/result still returns it.
//
// 2026-07-28 (extension io.modelcontextprotocol/tasks, SEP-2663, wire shapes of
// @modelcontextprotocol/ext-tasks 0.2.2): a `tools/call` whose per-request client capabilities
// declare the extension gets `resultType: "task"` at once; tasks/get reads working → completed
// with the tool's result as `result` (a thrown error reads failed with `error`), and
// tasks/cancel stops the run. The SDK's 2026 registry has no tasks/*, and its dispatcher
// answers -32601 for them unless the handler was registered in the 3-arg form (its
// isExtensionReusedRequestMethod admits exactly tasks/get and tasks/cancel then). The SDK's
// tools/call seam adds `content: []` to the CreateTaskResult (its contentless-result default);
// the extension's schema ignores unknown keys. tasks/update is not served: no tool of this
// server asks for input mid-run, so a task never reads input_required.
import {
  type CallToolResult,
  fromJsonSchema,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type Task,
  type TaskStatus,
} from "../../deps.ts";
import { isJsonObject } from "../../util/json_object.ts";
import {
  KEPT_AFTER_END_MS,
  POLL_INTERVAL_MS,
  TaskAlreadyFinished,
  type TaskOutcome,
  type TaskRecord,
  type TaskStore,
} from "./task_store.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const RELATED_TASK_KEY = "io.modelcontextprotocol/related-task";

/** The 2025-11-25 capability: task-augmented tools/call, tasks/list and tasks/cancel. */
export const LEGACY_TASKS_CAPABILITY = { requests: { tools: { call: {} } }, list: {}, cancel: {} };

/** Which flavour of task a tools/call asks for, if any. */
export type TaskRequest =
  | { era: "legacy"; ttlMs?: number }
  | { era: "modern" }
  | null;

/** Reads a tools/call's request for a task: `params.task` (2025) or the envelope (2026). */
export function taskRequestOf(params: unknown, envelope: unknown): TaskRequest {
  if (isJsonObject(params) && isJsonObject(params.task)) {
    const ttl = params.task.ttl;
    return { era: "legacy", ttlMs: typeof ttl === "number" ? ttl : undefined };
  }
  if (isJsonObject(envelope)) {
    const capabilities = envelope[CLIENT_CAPABILITIES_KEY];
    if (
      isJsonObject(capabilities) && isJsonObject(capabilities.extensions) &&
      TASKS_EXTENSION in capabilities.extensions
    ) return { era: "modern" };
  }
  return null;
}

/** The answer to a task-augmented tools/call, in the era the call came in. */
export function createdTaskResult(record: TaskRecord, era: "legacy" | "modern"): CallToolResult {
  if (era === "legacy") return { content: [], task: legacyTask(record) };
  return { content: [], resultType: "task", ...modernTask(record) };
}

/** A 2025 status: a finished run whose tool result says isError reads failed. */
function legacyStatus(record: TaskRecord): TaskStatus {
  const outcome = record.outcome;
  if (record.status === "completed" && outcome?.kind === "result" && outcome.result.isError) {
    return "failed";
  }
  return record.status;
}

/** What both eras say alike of a task: its status message, and its times in ISO 8601. */
function taskTimes(record: TaskRecord) {
  return {
    ...(record.statusMessage && { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
  };
}

function legacyTask(record: TaskRecord): Task {
  return {
    taskId: record.taskId,
    status: legacyStatus(record),
    ...taskTimes(record),
    ttl: record.ttlMs,
    pollInterval: POLL_INTERVAL_MS,
  };
}

function modernTask(record: TaskRecord) {
  return {
    taskId: record.taskId,
    status: record.status,
    ...taskTimes(record),
    ttlMs: record.ttlMs,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** tasks/get in 2026: the task with its result (completed) or error (failed). */
function modernDetailedTask(record: TaskRecord) {
  const task = modernTask(record);
  const outcome = record.outcome;
  if (record.status === "completed" && outcome?.kind === "result") {
    return { ...task, result: { resultType: "complete", ...outcome.result } };
  }
  if (record.status === "failed" && outcome?.kind === "error") {
    return { ...task, error: { code: outcome.code, message: outcome.message } };
  }
  return task;
}

const TASK_ID_PARAMS = fromJsonSchema<{ taskId: string }>({
  type: "object",
  properties: { taskId: { type: "string" } },
  required: ["taskId"],
});
const LIST_PARAMS = fromJsonSchema<{ cursor?: string }>({
  type: "object",
  properties: { cursor: { type: "string" } },
});

/** Why tasks/* cannot find `taskId`, as far as the store knows: dropped, expired, or never. */
function unknownTask(store: TaskStore, taskId: string): ProtocolError {
  const why = {
    dropped_for_room: `params.taskId names a task this server dropped to make room: it keeps at ` +
      `most ${store.maxTasks} tasks and forgets the oldest finished one when a new task starts; ` +
      `read each result (tasks/result) before more than ${store.maxTasks} newer tasks are started`,
    expired: "params.taskId names a task whose result has expired: a finished task is kept for " +
      `its ttl from its creation and at least ${KEPT_AFTER_END_MS / 1000} s after its run ends; ` +
      "read the result sooner or ask for a longer ttl",
    unknown:
      "params.taskId names no task of this server: it never existed here, it was forgotten " +
      "long ago, or the server restarted (tasks live in memory); tasks/list shows the tasks it keeps",
  };
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    why[store.forgottenReason(taskId) ?? "unknown"],
  );
}

function found(store: TaskStore, taskId: string): TaskRecord {
  const record = store.get(taskId);
  if (!record) throw unknownTask(store, taskId);
  return record;
}

function cancelled(store: TaskStore, taskId: string): TaskRecord {
  try {
    const record = store.cancel(taskId);
    if (!record) throw unknownTask(store, taskId);
    return record;
  } catch (error) {
    if (!(error instanceof TaskAlreadyFinished)) throw error;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `params.taskId: ${error.message}`);
  }
}

function resultOf(outcome: TaskOutcome, taskId: string): CallToolResult {
  if (outcome.kind === "error") throw new ProtocolError(outcome.code, outcome.message);
  const related = { [RELATED_TASK_KEY]: { taskId } };
  return { ...outcome.result, _meta: { ...outcome.result._meta, ...related } };
}

/** The first revision of the 2026 era; revisions are dates, so later ones sort after it. */
const MODERN_SINCE = "2026-07-28";

/**
 * Registers tasks/get, tasks/result, tasks/list and tasks/cancel on `mcp`. Each answers in the
 * era `mcp` is bound to when the request arrives.
 */
export function registerTaskMethods(mcp: Server, store: TaskStore): void {
  const isModern = () => (mcp.getNegotiatedProtocolVersion() ?? "") >= MODERN_SINCE;
  mcp.setRequestHandler("tasks/get", { params: TASK_ID_PARAMS }, ({ taskId }) => {
    const record = found(store, taskId);
    return isModern() ? modernDetailedTask(record) : legacyTask(record);
  });
  mcp.setRequestHandler("tasks/cancel", { params: TASK_ID_PARAMS }, ({ taskId }) => {
    const record = cancelled(store, taskId);
    return isModern() ? {} : legacyTask(record);
  });
  mcp.setRequestHandler("tasks/result", { params: TASK_ID_PARAMS }, async ({ taskId }) => {
    const outcome = store.outcome(taskId);
    if (!outcome) throw unknownTask(store, taskId);
    return resultOf(await outcome, taskId);
  });
  mcp.setRequestHandler("tasks/list", { params: LIST_PARAMS }, () => ({
    tasks: store.list().map(legacyTask),
  }));
}
