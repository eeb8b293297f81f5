import { MalformedFrameError } from './errors';
import type { Reader } from './reader';
import type { Writer } from './writer';

/**
 * Request header v1 (api key, version, correlation id, client id) and v2, the header of flexible versions,
 * which appends tagged fields (the client id stays a classic nullable string). The first eight bytes have
 * the same layout in every header version, so a request we cannot serve can still be named by its key,
 * version and correlation id.
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

/** Reads a request header, v2 when `flexible`; the reader is left at the body. */
export function readRequestHeader(r: Reader, flexible: boolean): RequestHeader {
  const header = { apiKey: r.int16(), apiVersion: r.int16(), correlationId: r.int32(), clientId: r.nullableString() };
  if (flexible) r.skipTaggedFields();
  return header;
}

/**
 * Response header v0 (the correlation id) or, for flexible versions, v1 (plus tagged fields). ApiVersions
 * always answers with v0 so that a client can read it before it knows which versions the broker speaks.
 */
export function writeResponseHeader(w: Writer, correlationId: number, flexible = false): void {
  w.int32(correlationId);
  if (flexible) w.noTaggedFields();
}
