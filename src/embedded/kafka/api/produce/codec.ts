import type { ApiCodec } from '../types';

/**
 * Produce (key 0), v3–7 (record batch v2 only). v3: transactional id. v5: log start offset in the
 * response. v4, v6 and v7 changed only semantics (v7 means zstd allowed), not the format.
 */
export interface ProduceRequest {
  transactionalId: string | null;
  acks: number;
  timeoutMs: number;
  topics: { name: string; partitions: { index: number; records: Buffer | null }[] }[];
}

export interface ProducePartitionResponse {
  index: number;
  errorCode: number;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
}

export interface ProduceResponse {
  topics: { name: string; partitions: ProducePartitionResponse[] }[];
  throttleTimeMs: number;
}

export const produceCodec: ApiCodec<ProduceRequest, ProduceResponse> = {
  key: 0,
  name: 'Produce',
  minVersion: 3,
  maxVersion: 7,
  decodeRequest(r) {
    return {
      transactionalId: r.nullableString(),
      acks: r.int16(),
      timeoutMs: r.int32(),
      topics: r.array((r) => ({
        name: r.string(),
        partitions: r.array((r) => ({ index: r.int32(), records: r.nullableBytes() })),
      })),
    };
  },
  encodeResponse(w, version, res) {
    w.array(res.topics, (w, t) => {
      w.string(t.name);
      w.array(t.partitions, (w, p) => {
        w.int32(p.index).int16(p.errorCode).int64(p.baseOffset).int64(p.logAppendTimeMs);
        if (version >= 5) w.int64(p.logStartOffset);
      });
    });
    w.int32(res.throttleTimeMs);
  },
};
