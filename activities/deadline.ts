// A deadline for one request, cleared the moment the request settles. Not AbortSignal.timeout: its timer lives
// until it fires, and a timer made inside an activity keeps that activity's whole context (request, response,
// logger) alive with it — a minute per model call, thousands of contexts on a busy worker.
export async function withDeadlineSignal<T>(timeoutMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), timeoutMs);
  try {
    return await fn(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
