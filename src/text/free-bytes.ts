/**
 * Frees the memory under `bytes` now, rather than at V8's next full collection: the whole
 * ArrayBuffer it views, which must be the caller's alone, and read by nobody again. A buffer whose
 * object outlived young collections (a kept answer's start, a batch that waited for the disk)
 * keeps its memory until a full collection frees the object; transferred to a clone nobody holds,
 * the memory goes with that young clone at the next scavenge. Node's shared pool, which small
 * buffers slice, cannot be transferred: a slice of it is only copied, and stays as it was.
 */
export function freeBytes(bytes: Buffer): void {
  const whole = bytes.buffer;
  if (whole.byteLength === 0 || !(whole instanceof ArrayBuffer)) return;
  try {
    structuredClone(whole, { transfer: [whole] });
  } catch {
    // Left to the collector.
  }
}
