/**
 * Frees a buffer's memory now rather than at V8's next full collection. A buffer whose object
 * outlived young collections (a kept answer's start, a batch that waited for the disk) keeps its
 * memory until a full collection frees the object; transferred to a clone nobody holds, the
 * memory goes with that young clone at the next scavenge. Only a buffer that is its whole
 * ArrayBuffer is transferred (never a slice of Node's shared pool), and only once nothing will
 * read it again; one that cannot be transferred is left to the collector.
 */
export function freeBytes(bytes: Buffer): void {
  const whole = bytes.buffer;
  if (bytes.length === 0 || bytes.byteOffset !== 0 || whole.byteLength !== bytes.length || !(whole instanceof ArrayBuffer)) return;
  try {
    structuredClone(whole, { transfer: [whole] });
  } catch {
    // Left to the collector.
  }
}
