/**
 * kafkajs's own protocol encoders and decoders (an independent implementation of the same wire format),
 * used to cross-check our codecs byte for byte. kafkajs ships them as plain JS modules.
 */
import type { ApiCodec } from '../../../src/embedded/kafka/api/types';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';

interface KafkajsRequest {
  encode(): Promise<{ buffer: Buffer }>;
}
type KafkajsRequestFactory = (args: object) => KafkajsRequest;
interface KafkajsResponse {
  decode(body: Buffer): Promise<Record<string, unknown>>;
}

const load = (p: string): unknown => require(`kafkajs/src/protocol/requests/${p}`);

/** The request body kafkajs writes for `api` at `version`. */
export async function kafkajsRequest(api: string, version: number, args: object): Promise<Buffer> {
  const factory = load(`${api}/v${version}/request`) as KafkajsRequestFactory;
  return (await factory(args).encode()).buffer;
}

/** kafkajs's reading of a response body (after the correlation id). */
export function kafkajsDecode(api: string, version: number, body: Buffer): Promise<Record<string, unknown>> {
  return (load(`${api}/v${version}/response`) as KafkajsResponse).decode(body);
}

/** Our decoding of a request body; every byte must be consumed. */
export function decodeRequest<Req>(codec: ApiCodec<Req, unknown>, version: number, body: Buffer): Req {
  const r = new Reader(body);
  const req = codec.decodeRequest(r, version);
  expect(r.remaining).toBe(0);
  return req;
}

export function encodeResponse<Res>(codec: ApiCodec<unknown, Res>, version: number, res: Res): Buffer {
  const w = new Writer();
  codec.encodeResponse(w, version, res);
  return w.toBuffer();
}

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
