// Temporal refuses a payload over 2 MB; a workflow task that emits one fails again on every retry, and the run
// hangs. With payload storage on, such payloads go out of history (a claim check); with it off, the workflow
// checks what it is about to send and fails the run with a clear error instead. Pure.

/** Temporal's default payload size limit (blobSizeLimitError), less room for the payload's own envelope. */
export const INLINE_PAYLOAD_LIMIT = 2 * 1024 * 1024 - 16 * 1024;

/** The UTF-8 size of a value's JSON, as the default payload converter writes it. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? '';
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // a surrogate pair (2 UTF-16 units) is 4 bytes
      i += 1;
    } else if (code >= 0x800) bytes += 2;
    else if (code >= 0x80) bytes += 1;
  }
  return bytes;
}

/** Why `value` cannot go into history inline, or undefined when it fits. */
export function overInlineLimit(what: string, value: unknown, limit = INLINE_PAYLOAD_LIMIT): string | undefined {
  const bytes = jsonBytes(value);
  if (bytes <= limit) return undefined;
  return `${what} is ${(bytes / 1_048_576).toFixed(1)} MB, over Temporal's 2 MB payload limit, and this worker keeps payloads in history (COUNTERSIGN_PAYLOAD_STORAGE=off): turn payload storage on (file or s3) for runs this large`;
}
