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
