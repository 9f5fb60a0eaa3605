/**
 * The bytes of `buffer` as an ArrayBuffer of their own: the buffer's own when it spans all of it
 * (Node allocates large buffers that way), else a copy (small buffers share Node's pool). For
 * handing bytes over whole: transferred to another thread, or read by PGlite's `/dev/blob`.
 */
export function ownArrayBuffer(buffer: Buffer): ArrayBuffer {
  const whole = buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength;
  // Node's Buffers sit on ArrayBuffers (never SharedArrayBuffers) unless made over one explicitly.
  const backing = buffer.buffer as ArrayBuffer;
  return whole ? backing : backing.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
}
