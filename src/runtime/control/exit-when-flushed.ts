// Ends the process once stdout and stderr have taken everything written to them. Writes to a pipe are asynchronous,
// so process.exit() straight after console.log() drops what is still queued: a long list piped to `wc -l` or a
// file was cut short at random.

/** Sets the exit code and exits when both streams have flushed; the promise never settles (the process ends). */
export function exitWhenFlushed(code: number): Promise<never> {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  // A write's callback runs after every earlier write went out (or the stream failed, e.g. the reader left).
  process.stdout.write('', done);
  process.stderr.write('', done);
  return new Promise<never>(() => {});
}
