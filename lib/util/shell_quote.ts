// Quoting one word for a POSIX shell or zsh, the way every line we hand a shell is built: a
// single-quoted word is taken literally, and a quote inside it closes, escapes and reopens.

/** `word` as one single-quoted shell word. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
