import type { Reader } from '../protocol/reader';
import type { Writer } from '../protocol/writer';
import type { BrokerContext } from '../broker';
import type { ClientSession } from '../server/session';

/**
 * The wire side of one Kafka API: which versions we implement and how each is read and written. One
 * function per direction covers every version; fields are gated by version exactly as the message specs
 * (`clients/src/main/resources/common/message/*.json`) mark them (`"versions": "3+"`), so a version whose
 * format did not change needs no code at all.
 */
export interface ApiCodec<Req, Res> {
  key: number;
  name: string;
  minVersion: number;
  maxVersion: number;
  /** First flexible version (tagged fields, compact strings, request header v2); absent when none is served. */
  flexibleFrom?: number;
  decodeRequest(r: Reader, version: number): Req;
  encodeResponse(w: Writer, version: number, res: Res): void;
}

export interface RequestContext {
  apiVersion: number;
  correlationId: number;
  clientId: string;
  /** The connection the request came on. */
  session: ClientSession;
}

/**
 * An answer that comes later while the connection goes on reading: the request has already taken effect (a
 * produce's batches are appended, in arrival order) and only its answer waits (for the group commit's fsync).
 * Consecutive requests answered this way on one connection share one fsync; answers still leave in order.
 */
export class AnswerLater<Res> {
  constructor(readonly answer: Promise<Res>) {}
}

/** Answers a decoded request; null means no response is sent (Produce with acks=0). */
export type ApiHandler<Req, Res> = (
  broker: BrokerContext,
  req: Req,
  ctx: RequestContext,
) => Res | null | AnswerLater<Res> | Promise<Res | null | AnswerLater<Res>>;

export const isFlexible = (codec: Pick<ApiCodec<unknown, unknown>, 'flexibleFrom'>, version: number): boolean =>
  codec.flexibleFrom !== undefined && version >= codec.flexibleFrom;

export interface Api<Req, Res> extends ApiCodec<Req, Res> {
  handle: ApiHandler<Req, Res>;
}

/** Binds a codec to its handler, erasing the message types for the registry. */
export function defineApi<Req, Res>(codec: ApiCodec<Req, Res>, handle: ApiHandler<Req, Res>): Api<unknown, unknown> {
  return { ...codec, handle } as unknown as Api<unknown, unknown>;
}
