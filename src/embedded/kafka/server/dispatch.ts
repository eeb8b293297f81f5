import type { BrokerContext } from '../broker';
import { apiVersionsCodec } from '../api/api-versions/codec';
import { API_VERSIONS_KEY, advertisedVersions, negotiate } from '../api/negotiation';
import { apiFor } from '../api/registry';
import { ErrorCode } from '../protocol/errors';
import { peekHeader, readRequestHeader, writeResponseHeader } from '../protocol/header';
import { Reader } from '../protocol/reader';
import { Writer } from '../protocol/writer';

/**
 * Turns one request frame into its response (header included), or null when none is due. Pure of
 * sockets. Throws MalformedFrameError when a supported request cannot be decoded.
 *
 * Outside the advertised ranges: ApiVersions is answered in its v0 format with UNSUPPORTED_VERSION and
 * our ranges (the client retries with a version we list; librdkafka opens with v3); any other API gets
 * its correlation id and the error code UNSUPPORTED_VERSION, and the connection stays open.
 */
export async function dispatch(broker: BrokerContext, frame: Buffer, clientHost: string): Promise<Buffer[] | null> {
  const head = peekHeader(frame);
  const w = new Writer();
  writeResponseHeader(w, head.correlationId);
  const negotiation = negotiate(head.apiKey, head.apiVersion);
  if (negotiation !== 'supported') {
    broker.logger.debug({ apiKey: head.apiKey, apiVersion: head.apiVersion, negotiation }, 'request outside advertised versions');
    if (head.apiKey === API_VERSIONS_KEY) {
      apiVersionsCodec.encodeResponse(w, 0, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: advertisedVersions(), throttleTimeMs: 0 });
    } else {
      w.int16(ErrorCode.UNSUPPORTED_VERSION);
    }
    return w.toChunks();
  }
  const api = apiFor(head.apiKey)!;
  const r = new Reader(frame);
  const header = readRequestHeader(r);
  const request = api.decodeRequest(r, header.apiVersion);
  const response = await api.handle(broker, request, {
    apiVersion: header.apiVersion,
    correlationId: header.correlationId,
    clientId: header.clientId ?? '',
    clientHost,
  });
  if (response === null) return null;
  api.encodeResponse(w, header.apiVersion, response);
  return w.toChunks();
}
