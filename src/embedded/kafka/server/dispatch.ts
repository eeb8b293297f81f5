import type { BrokerContext } from '../broker';
import { apiVersionsCodec } from '../api/api-versions/codec';
import { API_VERSIONS_KEY, advertisedVersions, negotiate } from '../api/negotiation';
import { produceCodec } from '../api/produce/codec';
import { apiFor } from '../api/registry';
import { AnswerLater, isFlexible } from '../api/types';
import { ErrorCode } from '../protocol/errors';
import { peekHeader, readRequestHeader, writeResponseHeader } from '../protocol/header';
import { Reader } from '../protocol/reader';
import { Writer } from '../protocol/writer';
import type { ClientSession } from './session';
import { saslAuthenticateCodec } from '../api/sasl-authenticate/codec';
import { saslHandshakeCodec } from '../api/sasl-handshake/codec';

const PRE_AUTHENTICATION_APIS = new Set([API_VERSIONS_KEY, saslHandshakeCodec.key, saslAuthenticateCodec.key]);

/** What the connection does with one request frame. */
export type DispatchResult =
  | { kind: 'reply'; chunks: Buffer[] }
  /** The request took effect; its reply follows (a produce waiting for its fsync). */
  | { kind: 'later'; reply: Promise<{ kind: 'reply'; chunks: Buffer[] }> }
  /** Nothing is due (Produce with acks=0). */
  | { kind: 'none' }
  /** Close the connection without answering. */
  | { kind: 'close'; reason: string };

/**
 * Whether a frame may be handled while the connection's earlier answers still wait: only a produce, whose
 * appends keep arrival order anyway. Anything else is handled once they are out, so it sees their effects.
 */
export const mayOvertakeAnswers = (frame: Buffer): boolean => frame.length >= 2 && frame.readInt16BE(0) === produceCodec.key;

/**
 * Turns one request frame into its outcome. Pure of sockets. Throws MalformedFrameError when a supported
 * request cannot be decoded. Steps: negotiate the version, read the header and body, handle, encode.
 *
 * Outside the advertised ranges Kafka's own behaviour is followed: ApiVersions is answered in its v0 format
 * with UNSUPPORTED_VERSION and our ranges (the client retries with a version we list); any other API or
 * version closes the connection, which every client takes as "not supported" (kafka-python's version probe
 * depends on it; a bare error code would be a body no client can decode).
 */
export async function dispatch(broker: BrokerContext, frame: Buffer, session: ClientSession): Promise<DispatchResult> {
  const head = peekHeader(frame);
  const negotiation = negotiate(head.apiKey, head.apiVersion);
  if (negotiation !== 'supported') {
    if (head.apiKey !== API_VERSIONS_KEY) return { kind: 'close', reason: `${negotiation}: api key ${head.apiKey} version ${head.apiVersion}` };
    const w = new Writer();
    writeResponseHeader(w, head.correlationId);
    apiVersionsCodec.encodeResponse(w, 0, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: advertisedVersions(), throttleTimeMs: 0 });
    return { kind: 'reply', chunks: w.toChunks() };
  }
  // Until a connection authenticates where SASL is required, only version and SASL requests are served; anything
  // else closes it, as Kafka's authenticator does.
  if (broker.options.saslRequired && !session.principal.authenticated && !PRE_AUTHENTICATION_APIS.has(head.apiKey)) {
    return { kind: 'close', reason: `api key ${head.apiKey} before SASL authentication` };
  }
  const api = apiFor(head.apiKey)!;
  const flexible = isFlexible(api, head.apiVersion);
  const r = new Reader(frame);
  const header = readRequestHeader(r, flexible);
  const request = api.decodeRequest(r, header.apiVersion);
  const response = await api.handle(broker, request, {
    apiVersion: header.apiVersion,
    correlationId: header.correlationId,
    clientId: header.clientId ?? '',
    session,
  });
  if (response === null) return { kind: 'none' };
  const encode = (answer: unknown): { kind: 'reply'; chunks: Buffer[] } => {
    const w = new Writer();
    writeResponseHeader(w, header.correlationId, flexible && head.apiKey !== API_VERSIONS_KEY);
    api.encodeResponse(w, header.apiVersion, answer);
    return { kind: 'reply', chunks: w.toChunks() };
  };
  return response instanceof AnswerLater ? { kind: 'later', reply: response.answer.then(encode) } : encode(response);
}
