// A stream the command's tests hand the program for its stdout and stderr: not a terminal, 80
// columns wide, keeping what was written in `text`.

/** A non-TTY stream that keeps what is written; S is the stream type the caller's code expects. */
export function textStream<S>(): S & { text: string } {
  const s = {
    text: "",
    isTTY: false,
    columns: 80,
    write: (chunk: string) => {
      s.text += chunk;
      return true;
    },
  };
  return s as unknown as S & { text: string };
}
