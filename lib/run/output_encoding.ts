// How raw output bytes travel in JSON: as text when they are strictly valid UTF-8 (NUL
// included; JSON escapes it), otherwise as padded base64, so no byte is ever dropped or
// replaced. `bytes` is always the raw count.
export type EncodedOutput = {
  encoding: "utf-8" | "base64";
  data: string;
  bytes: number;
  truncated: false;
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function encodeOutput(bytes: Uint8Array): EncodedOutput {
  try {
    return {
      encoding: "utf-8",
      data: strictUtf8.decode(bytes),
      bytes: bytes.length,
      truncated: false,
    };
  } catch {
    return { encoding: "base64", data: bytes.toBase64(), bytes: bytes.length, truncated: false };
  }
}
