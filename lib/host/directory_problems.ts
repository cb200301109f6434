// What can be wrong with a private directory, said the same way by everything that makes or
// uses one: the server at startup, `tmux-mcp enroll` in a pane, and a tool whose capture or
// paste needs a file there. A problem names the directory by its role and the variable that
// chose it ("under TMPDIR"), so a tool's refusal never echoes a path, and says what to do.

/**
 * A directory, how a person knows it ("under TMPDIR": errors never echo a path) and the
 * variable that chooses it.
 */
export type TempPlace = {
  path: string;
  role: string;
  variable: "XDG_RUNTIME_DIR" | "TMPDIR";
};

/** Why a directory that is there is not private: it may be someone else's (squatted). */
export type PrivacyProblem = "symlink" | "not_directory" | "other_owner" | "too_open";

export type TempProblem =
  | "full"
  | "read_only"
  | "not_writable"
  | "missing"
  | "no_parent"
  | PrivacyProblem
  | "unusable";

export class TempDirectoryError extends Error {
  readonly role: string;
  readonly variable: TempPlace["variable"];
  /** The directory's path, for the person starting the server; tool errors never say it. */
  readonly path: string | undefined;
  constructor(
    place: Omit<TempPlace, "path"> & { path?: string },
    readonly problem: TempProblem,
  ) {
    super(`the private directory ${place.role}: ${problem}`);
    this.role = place.role;
    this.variable = place.variable;
    this.path = place.path;
  }
}

/** What an error of a filesystem call says about the directory it was made in. */
export function problemOf(error: unknown): TempProblem {
  if (error instanceof TempDirectoryError) return error.problem;
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  if (code === "ENOSPC" || code === "EDQUOT") return "full";
  if (code === "EROFS") return "read_only";
  if (code === "EACCES" || code === "EPERM") return "not_writable";
  if (code === "ENOENT" || code === "ENOTDIR") return "missing";
  return "unusable";
}

const WHAT_IS_WRONG: Record<TempProblem, string> = {
  full: "is full",
  read_only: "is on a read-only filesystem",
  not_writable: "cannot be written by this user",
  missing: "does not exist",
  no_parent: "could not be made, as the directory it goes in does not exist",
  symlink: "is a symlink (it must be a directory this user owns, mode 0700)",
  not_directory: "is not a directory (it must be a directory this user owns, mode 0700)",
  other_owner: "belongs to another user (it must be a directory this user owns, mode 0700)",
  too_open: "is open to other users (it must be a directory this user owns, mode 0700)",
  unusable: "could not be used",
};

/** What is wrong with the directory, said after its name ("… is full"). */
export function whatIsWrong(problem: TempProblem): string {
  return WHAT_IS_WRONG[problem];
}

/** What to do about `problem`, for a directory chosen by `variable`. */
export function whatToDo(problem: TempProblem, variable: TempPlace["variable"]): string {
  const restart = `restart the server with ${variable} naming`;
  switch (problem) {
    case "full":
      return `free space there, or ${restart} a directory on a filesystem with room`;
    case "not_writable":
      return `${restart} a directory this user may write`;
    case "missing":
      return `create it, or ${restart} a directory that exists`;
    case "no_parent":
      return `create that directory, or ${restart} a directory that exists (or unset it)`;
    case "symlink":
    case "not_directory":
    case "other_owner":
    case "too_open":
      return `remove it (it may be another user's), or ${restart} a directory only you can write`;
    default:
      return `${restart} a writable directory`;
  }
}

/**
 * The startup refusal for a private directory that could not be prepared: its path (the
 * person starting the server may see it), what is wrong and what to do.
 */
export function startupRefusal(error: TempDirectoryError): string {
  return `${directoryProblem(error)}; ${whatToDo(error.problem, error.variable)}`;
}

/** Which private directory, by path and role, and what is wrong with it. */
export function directoryProblem(error: TempDirectoryError): string {
  const where = error.path ? `${error.path} (${error.role})` : `(${error.role})`;
  return `the private directory ${where} ${WHAT_IS_WRONG[error.problem]}`;
}
