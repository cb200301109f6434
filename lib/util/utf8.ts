// Strict UTF-8, the one decoder for every place that must know whether bytes are text. A
// replacement character would silently change what a program or a peer wrote, so bytes that are
// not valid UTF-8 give null and each caller decides what they become (base64, `\xNN` escapes, a
// refused frame or cursor). Every byte is kept, a leading byte-order mark included.
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text `bytes` spell, or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The text `bytes` spell as pieces of at most `pieceBytes` bytes each (at least 4, a character's
 * most), cut only before the first byte of a character; null when they are not valid UTF-8
 * (exactly when decodeUtf8 gives null).
 */
export function decodeUtf8Pieces(bytes: Uint8Array, pieceBytes: number): string[] | null {
  const pieces: string[] = [];
  for (let start = 0; start < bytes.length;) {
    let end = Math.min(bytes.length, start + pieceBytes);
    // A character has at most three continuation bytes (10xxxxxx): back up to its first byte.
    // Four in a row are not UTF-8, and the piece before the cut fails to decode either way.
    for (
      let back = 0;
      back < 3 && end > start + 1 && end < bytes.length && (bytes[end] & 0xc0) === 0x80;
      back++
    ) end--;
    const piece = decodeUtf8(bytes.subarray(start, end));
    if (piece === null) return null;
    pieces.push(piece);
    start = end;
  }
  return pieces;
}
