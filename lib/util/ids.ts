// Names and digests the contract hands out: every random comes from the platform CSPRNG and
// every digest is SHA-256 over exact bytes, so a receipt can be recomputed by anyone holding
// the script.
export function randomHex(byteCount = 16): string {
  const bytes = crypto.getRandomValues(new Uint8Array(byteCount));
  return bytes.toHex();
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return new Uint8Array(digest).toHex();
}
