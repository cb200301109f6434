// Joining byte chunks that arrived piecewise (a stdin line, a shell record, a test's wire) into
// one array, written once: a stream hands over chunks of any size, and a parser wants the whole.

/** The chunks end to end; a single chunk is returned as is, without a copy. */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}
