// Long text kept as the pieces it was made of. V8 puts a string over 128 KiB in a space of its
// own, one fresh mapping each: on this project's VMs every fresh page costs a fault of about
// 17 µs, so a full-size tmux_run output (two 256 KiB strings) paid about 2 ms for its decoding
// alone (docs/design/full_size_output.md). Text decoded in pieces and joined with `+` is a rope V8 copies into
// one string only if something reads it whole; a field holding such a rope is noted here, by its
// object and name, so a serializer can write the pieces (lib/mcp/tool_result.ts `jsonPieces`)
// instead of reading it whole.

const ropes = new WeakMap<object, Map<string, { text: string; pieces: string[] }>>();

/** The pieces joined with `+`: a rope, not copied into one string until something reads it. */
export function rope(pieces: string[]): string {
  let text = "";
  for (const piece of pieces) text += piece;
  return text;
}

/** The pieces joined as a rope, noted as `holder[key]`'s value. */
export function ropeField(holder: object, key: string, pieces: string[]): string {
  const text = rope(pieces);
  const fields = ropes.get(holder) ?? new Map();
  fields.set(key, { text, pieces });
  ropes.set(holder, fields);
  return text;
}

/** The pieces of `text`, when it is the rope noted as `holder[key]`'s value; else undefined. */
export function ropePieces(holder: object, key: string, text: string): string[] | undefined {
  const noted = ropes.get(holder)?.get(key);
  return noted?.text === text ? noted.pieces : undefined;
}
