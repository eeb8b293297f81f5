import { MalformedFrameError } from './errors';
import { Reader } from './reader';
import type { Writer } from './writer';

/**
 * Request header v1 (api key, version, correlation id, client id); v2 (flexible versions) appends tagged
 * fields. The first eight bytes have the same layout in every header version, so a request we cannot
 * decode can still be answered under its correlation id.
 */
export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

export const MIN_HEADER_SIZE = 8;

/** Reads the fixed part (key, version, correlation id) without consuming the client id. */
export function peekHeader(frame: Buffer): Omit<RequestHeader, 'clientId'> {
  if (frame.length < MIN_HEADER_SIZE) throw new MalformedFrameError('frame shorter than a request header');
  return { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4) };
}

/** Reads a v1 request header (all versions we accept use it); the reader is left at the body. */
export function readRequestHeader(r: Reader): RequestHeader {
  return { apiKey: r.int16(), apiVersion: r.int16(), correlationId: r.int32(), clientId: r.nullableString() };
}

/** Response header v0: just the correlation id (the only response header for non-flexible versions). */
export function writeResponseHeader(w: Writer, correlationId: number): void {
  w.int32(correlationId);
}
