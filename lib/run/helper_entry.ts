// The helper's own entry point for checkout and URL runs. Its module graph holds no npm
// package, so a shell with a cold Deno cache starts it in milliseconds instead of resolving
// the MCP SDK (measured: 3.5 s with an empty DENO_DIR through main.ts, 0.06 s through here).
import { runHelper } from "./helper_process.ts";

await runHelper();
