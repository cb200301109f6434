// How raw output bytes travel in JSON: as text when they are strictly valid UTF-8 (NUL
// included; JSON escapes it), otherwise as padded base64, so no byte is ever dropped or
// replaced. `bytes` is always the raw count. Long text is decoded in pieces and kept as a rope
// (lib/util/rope.ts), which the tool result's JSON is written from piece by piece.
import { decodeUtf8Pieces } from "../util/utf8.ts";
import { ropeField } from "../util/rope.ts";

/** Text is decoded this many bytes at a time, well under V8's 128 KiB for a string of its own. */
const PIECE_BYTES = 32768;

export type EncodedOutput = {
  encoding: "utf-8" | "base64";
  data: string;
  bytes: number;
  truncated: false;
};

export function encodeOutput(bytes: Uint8Array): EncodedOutput {
  const pieces = decodeUtf8Pieces(bytes, PIECE_BYTES);
  if (pieces === null) {
    return { encoding: "base64", data: bytes.toBase64(), bytes: bytes.length, truncated: false };
  }
  const output: EncodedOutput = {
    encoding: "utf-8",
    data: "",
    bytes: bytes.length,
    truncated: false,
  };
  output.data = ropeField(output, "data", pieces);
  return output;
}
