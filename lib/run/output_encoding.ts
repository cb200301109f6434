// How raw output bytes travel in JSON: as text when they are strictly valid UTF-8 (NUL
// included; JSON escapes it), otherwise as padded base64, so no byte is ever dropped or
// replaced. `bytes` is always the raw count.
import { decodeUtf8 } from "../util/utf8.ts";

export type EncodedOutput = {
  encoding: "utf-8" | "base64";
  data: string;
  bytes: number;
  truncated: false;
};

export function encodeOutput(bytes: Uint8Array): EncodedOutput {
  const text = decodeUtf8(bytes);
  if (text === null) {
    return { encoding: "base64", data: bytes.toBase64(), bytes: bytes.length, truncated: false };
  }
  return { encoding: "utf-8", data: text, bytes: bytes.length, truncated: false };
}
