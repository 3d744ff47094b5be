// A deadline for one request, cleared the moment the request settles. Not AbortSignal.timeout: its timer lives
// until it fires, and a timer made inside an activity keeps that activity's whole context (request, response,
// logger) alive with it — a minute per model call, thousands of contexts on a busy worker.
// `alive()` starts the wait again (a stream's event): the deadline then bounds silence, not the whole request.
export async function withDeadlineSignal<T>(
  timeoutMs: number,
  fn: (signal: AbortSignal, alive: () => void) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    timeoutMs,
  );
  try {
    return await fn(controller.signal, () => timer.refresh());
  } finally {
    clearTimeout(timer);
  }
}

/** The tool's own code (a preview, a fingerprint), given `timeoutMs` to answer: a late answer is an error saying so. */
export async function withinTime<T>(timeoutMs: number, fn: () => T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`it took longer than ${timeoutMs / 1000}s`)), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(fn), late]);
  } finally {
    clearTimeout(timer);
  }
}
