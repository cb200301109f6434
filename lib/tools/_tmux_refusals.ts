// What the agent is told when a tmux step failed. The tmux kit says what happened, as facts
// (TmuxFailure, lib/tmux/targets.ts); here it becomes a refusal in words, with the tool that
// helps next (list_panes for a pane that is gone, create_session for a server that is not
// there), so a renamed tool is renamed here, beside the tools.
import { type Refusal, refusal } from "../mcp/tool_payload.ts";
import { serverLabel, TMUX_ANSWER_SECONDS } from "../tmux/tmux.ts";
import type { TmuxFailure } from "../tmux/targets.ts";
import { type TempDirectoryError, whatIsWrong, whatToDo } from "../host/directory_problems.ts";

export const UNSAFE_FORMAT = refusal(
  "unsafe_format",
  "formats that run shell commands or expand option values (#(, E:, T:) are refused here",
);
export const NEED_ONE_SESSION = refusal(
  "invalid_input",
  "name the session by exactly one of session_id or session_name",
);

/** The tool that lists an object again, by the first character of its id. */
const LIST_AGAIN: Record<string, { what: string; lister: string }> = {
  "%": { what: "pane", lister: "list_panes" },
  "@": { what: "window", lister: "list_windows" },
  "$": { what: "session", lister: "list_sessions" },
};

/**
 * not_found for one exact target: an id (`%3`, `@2`, `$1`) or a session name. Both are the
 * caller's own handles for tmux objects, so naming them tells the agent which one to look up.
 */
function notFoundMessage(target: string | undefined): string {
  if (target === undefined) {
    return "the target does not exist on that tmux server; list it again with list_sessions " +
      "or list_panes";
  }
  const kind = LIST_AGAIN[target[0]];
  const what = kind ? `${kind.what} ${target}` : `session named ${JSON.stringify(target)}`;
  return `${what} does not exist on that tmux server; get current ids with ` +
    (kind?.lister ?? "list_sessions");
}

/** The refusal for a file `purpose` needs in the private directory, made, written or read. */
export function directoryRefusal(error: TempDirectoryError, purpose: string): Refusal {
  return refusal(
    "temp_dir_unusable",
    `the ${purpose} needs a file in the server's private temporary directory (${error.role}), ` +
      `which ${whatIsWrong(error.problem)}; ${whatToDo(error.problem, error.variable)}`,
  );
}

/** The refusal that says `failure`. */
export function tmuxRefusal(failure: TmuxFailure): Refusal {
  switch (failure.kind) {
    case "no_server":
      return refusal(
        "no_server",
        "no tmux server is running on that socket; create_session starts one",
      );
    case "not_found":
      return refusal("not_found", notFoundMessage(failure.target));
    case "not_answering":
      // The server may be stopped, so what was sent may still take effect when it resumes.
      return {
        ok: false,
        error: {
          code: "tmux_not_answering",
          message: `${serverLabel({ socket: failure.server })} did not answer within its time ` +
            `(${TMUX_ANSWER_SECONDS} s for a command, or the call's timeout); the command was ` +
            "abandoned and may still take effect if that server resumes. It may be stopped " +
            "(SIGSTOP, a debugger) or overloaded: check it with tmux list-sessions, then call again",
          delivery: "possibly_sent",
        },
      };
    case "tmux_failed":
      return refusal(
        "tmux_failed",
        failure.reason === ""
          ? "tmux refused the command"
          : `tmux refused the command: ${failure.reason}`,
      );
    case "unreadable":
      return refusal(
        "tmux_failed",
        failure.what === "capture"
          ? "tmux answered the look without the pane's state; look again, and if this persists " +
            "check the tmux server"
          : "tmux printed a screen description this server could not read exactly; look again",
      );
    case "unseen_act":
      return {
        ok: false,
        error: {
          code: "tmux_failed",
          message: "tmux ran the command, but its answer to the look just before it was " +
            "unreadable, so there is no cursor; look at the pane (snapshot_pane) before acting " +
            "again",
          delivery: "observed",
        },
      };
    case "tmux_unavailable":
      return refusal("tmux_unavailable", "the tmux executable could not be started");
    case "directory":
      return directoryRefusal(failure.error, failure.purpose);
    case "need_one_session":
      return NEED_ONE_SESSION;
    case "partly_typed": {
      const { error } = tmuxRefusal(failure.failure);
      return {
        ok: false,
        error: {
          ...error,
          message: `${error.message}. The keys went as ${failure.commands} tmux commands (tmux ` +
            `takes ${failure.commandBytes} bytes a command here): the first ${failure.typed} ` +
            "were typed, the rest not; look at the pane (snapshot_pane) before typing the rest",
          delivery: "possibly_sent",
        },
      };
    }
  }
}

/**
 * A step that failed: what the tmux kit said happened, or a refusal the tool made itself (a
 * cancel, a step that threw: failedStep in _refusals.ts).
 */
export type FailedStep = { ok: false; failure: TmuxFailure } | { ok: false; payload: Refusal };

/** The refusal a tool answers for a step that failed. */
export function refusalOf(step: FailedStep): Refusal {
  return "failure" in step ? tmuxRefusal(step.failure) : step.payload;
}
