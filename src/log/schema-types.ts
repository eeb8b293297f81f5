// Generated from schemas/*.avsc by src/log/schema-codegen.ts; do not edit. Refresh: npx tsx src/log/schema-codegen.ts

/** A notification that a record changed, emitted on `<tenant>.<entity>.actions.global` (every event) and `<tenant>.<entity>.actions.<datacenter>` (events that originated in that datacenter), only for entities whose configuration asks for notifications. At-least-once: subscribers de-duplicate on `eventId`. Message key: `<tenant>/<entity>/<key>`. */
export interface ActionEvent {
  /** Id of the persisted EntityEvent this action announces; the de-duplication key for subscribers. */
  eventId: string;
  /** Id of the DeltaEnvelope that caused the event. */
  deltaId: string;
  /** Tenant that owns the entity. */
  tenant: string;
  /** Entity name within the tenant. */
  entity: string;
  /** The operation that was applied: `create`, `update` or `delete`; or `erase`: the data subject named in `payload` (`{"subject", "subjectField", "fields"}`) was erased, and subscribers scrub those fields of that subject's records (`key` is the subject id, `version` 0). */
  operation: ActionOperation;
  /** Key of the record within the entity. */
  key: string;
  /** Version of the record after the event. */
  version: number;
  /** The event's fields as a JSON object text, restricted to what the entity configuration lets notifications carry; null for delete or when notifications carry no fields. */
  payload: null | string;
  /** Subject (user id) of the caller who made the change. */
  user: string;
  /** Datacenter where the originating delta entered the system. */
  datacenter: string;
  /** When the producer created the originating delta, in milliseconds since the Unix epoch (UTC). */
  occurredAt: number;
  /** When the emitter published this action, in milliseconds since the Unix epoch (UTC). */
  emittedAt: number;
}

/** What happened to the record: a delta's operation, or `erase`. */
export type ActionOperation = 'create' | 'update' | 'delete' | 'erase';

/** A requested change to one record of one entity, as written to the `deltas` topic by the HTTP write path or by any Kafka producer. Message key: `<tenant>/<entity>/<key>`, so that every delta of one record lands on one partition and is applied in order. */
export interface DeltaEnvelope {
  /** Unique id of this delta (a UUID chosen by the producer). Carried into the persisted event (`deltaId`) and the rejection, so a waiting caller can match the outcome; a re-sent delta keeps its id. */
  id: string;
  /** The HTTP Request-ID that produced this delta, or null when a Kafka client produced it directly. */
  requestId: null | string;
  /** Tenant that owns the entity; selects the entity configuration (tenant API). */
  tenant: string;
  /** Entity name within the tenant, e.g. `customer`; selects the entity configuration and the persistence topic. */
  entity: string;
  /** `create` a record that must not exist yet, `update` an existing one (fields in `payload` replace the stored ones), or `delete` it. */
  operation: Operation;
  /** Key of the record within the entity (its primary key value, as a string). */
  key: string;
  /** The record's fields as a JSON object text (UTF-8). Required for create and update; null for delete. Validated against the entity configuration in the pipeline, not by Avro. */
  payload: null | string;
  /** The caller on whose behalf the delta is applied; permissions are checked for this user and these roles. */
  actor: Actor;
  /** Where the delta entered the system. */
  origin: Origin;
  /** When the producer created the delta, in milliseconds since the Unix epoch (UTC). */
  occurredAt: number;
  /** Optimistic concurrency: the version the record must have now for the delta to apply (0 = must not exist). Null applies the delta whatever the current version. */
  expectedVersion: null | number;
  /** Set when an operator sent a refused delta through the pipeline again (`deltabroker rejections retry`, `POST /admin/rejections/retry`): the id of the refused delta this one retries. The retry carries the refused delta's tenant, entity, operation, key, payload, actor, origin, occurredAt and expectedVersion unchanged, and its id follows from the refused one's, so the same retry sent twice is applied once. Null for every other delta. */
  retryOf: null | string;
}

/** What a delta does to its record. */
export type Operation = 'create' | 'update' | 'delete';

/** Who asked for a change. */
export interface Actor {
  /** Subject (user id) of the caller, from the Bearer token `sub` claim or set by the producing client. */
  user: string;
  /** Roles of the caller; the permission stages check them against the entity configuration. */
  roles: string[];
}

/** Where a change entered the system. */
export interface Origin {
  /** Name of the datacenter that accepted the delta; decides which local action topic carries the resulting event. */
  datacenter: string;
}

/** The pipeline's verdict on one delta, on the `deltabroker.outcomes` topic, so that the instance holding the waiting HTTP caller learns it whichever instance decided. Exactly one of the accepted fields (`eventId`, `version`, `topic`, `partition`, `offset`) or the refused fields (`code`, `stage`, `message`, `details`) is set. Message key: the delta id. */
export interface DeltaOutcome {
  /** Id of the DeltaEnvelope this verdict is about. */
  deltaId: string;
  /** Tenant of the delta. */
  tenant: string;
  /** Entity of the delta. */
  entity: string;
  /** Record key of the delta. */
  key: string;
  /** `accepted`: the event is on the persistence topic; `refused`: a stage refused the delta (also on the rejections topic). */
  status: DeltaStatus;
  /** Accepted: the record's version after the event. Null when refused. */
  version: null | number;
  /** Accepted: id of the persisted EntityEvent. Null when refused. */
  eventId: null | string;
  /** Accepted: the persistence topic the event was written to. Null when refused. */
  topic: null | string;
  /** Accepted: partition of the persisted event. Null when refused. */
  partition: null | number;
  /** Accepted: offset of the persisted event, as a decimal string (Kafka offsets are 64-bit). Null when refused. */
  offset: null | string;
  /** Refused: the error code from the service's error catalogue (`DB_VALIDATION`, `DB_FORBIDDEN`, `DB_CONFLICT`, ...). Null when accepted. */
  code: null | string;
  /** Refused: the pipeline stage that refused (`validate`, `permission`, ...). Null when accepted. */
  stage: null | string;
  /** Refused: human-readable explanation, without payload values. Null when accepted. */
  message: null | string;
  /** Refused: structured details of the refusal (field, rule, ...) as a JSON object text. Null when accepted. */
  details: null | string;
  /** When the verdict was reached, in milliseconds since the Unix epoch (UTC). */
  decidedAt: number;
}

/** Whether a delta was applied. */
export type DeltaStatus = 'accepted' | 'refused';

/** An accepted delta as persisted on the entity's persistence topic (e.g. `<tenant>.<entity>.events`): the source of truth that projections (Postgres table, search index) and action topics are built from, and that a replay reads again. Message key: `<tenant>/<entity>/<key>`. */
export interface EntityEvent {
  /** Unique id of this event (a UUID chosen by the pipeline). Projections store it with their checkpoint; action topics carry it so subscribers can de-duplicate. */
  eventId: string;
  /** Id of the DeltaEnvelope that this event accepts. */
  deltaId: string;
  /** HTTP Request-ID of the originating delta, or null when it came from a Kafka client. */
  requestId: null | string;
  /** Tenant that owns the entity. */
  tenant: string;
  /** Entity name within the tenant. */
  entity: string;
  /** The operation that was applied: `create`, `update` or `delete`. */
  operation: Operation;
  /** Key of the record within the entity. */
  key: string;
  /** Version of the record after this event: 1 for its create, one more for each later event of the same key (a delete also counts). */
  version: number;
  /** The record's whole state after this event, as a JSON object text: its stored fields with the accepted ones written over them (accepted: after the permission filter stripped what the actor may not write and the encryption check passed). Null for delete. Projections upsert it as is; replay needs nothing else. */
  payload: null | string;
  /** The caller on whose behalf the change was applied. */
  actor: Actor;
  /** Where the originating delta entered the system. */
  origin: Origin;
  /** When the producer created the originating delta, in milliseconds since the Unix epoch (UTC). */
  occurredAt: number;
  /** When the pipeline accepted the delta and wrote this event, in milliseconds since the Unix epoch (UTC). */
  recordedAt: number;
}

/** Why something written to the log was refused, on the `rejections` topic: either a delta refused by a pipeline stage, or bytes that could not be decoded at all (stage `decode`). Message key: the refused delta's `<tenant>/<entity>/<key>` when known, else the source record's key. */
export interface Rejection {
  /** Unique id of this rejection (a UUID). */
  id: string;
  /** The stage that refused: `decode` (bytes not readable as their schema), `entity-config`, `validate`, `version`, `locate`, `permission`, `permission-filter` or `encryption`. A string, not an enum, so new stages need no schema change. */
  stage: string;
  /** Stable reason code: for stage `decode` one of `DECODE_EMPTY_VALUE`, `DECODE_MAGIC_BYTE`, `DECODE_UNKNOWN_SCHEMA`, `DECODE_UNSUPPORTED_SCHEMA`, `DECODE_INVALID_AVRO`, `DECODE_INCOMPATIBLE_SCHEMA`, else a code from the service's error catalogue (`DB_VALIDATION`, `DB_FORBIDDEN`, `DB_CONFLICT`, ...). */
  reason: string;
  /** Human-readable explanation; never contains payload values or key material. */
  message: string;
  /** Id of the refused DeltaEnvelope; null when the bytes could not be decoded. */
  deltaId: null | string;
  /** HTTP Request-ID of the refused delta, when it came through HTTP. */
  requestId: null | string;
  /** Tenant of the refused delta, when known. */
  tenant: null | string;
  /** Entity of the refused delta, when known. */
  entity: null | string;
  /** Record key of the refused delta, when known. */
  key: null | string;
  /** Where the refused record was read from; null for a refusal that did not come from the log (an HTTP write refused before publishing). */
  source: null | SourceRecord;
  /** For stage `decode`: the record's value bytes exactly as read, base64-encoded (null when the value was empty). Null for other stages. */
  raw: null | string;
  /** When the refusal was made, in milliseconds since the Unix epoch (UTC). */
  rejectedAt: number;
}

/** Position of a Kafka record. */
export interface SourceRecord {
  /** Topic the refused record was read from. */
  topic: string;
  /** Partition of that topic. */
  partition: number;
  /** Offset of the refused record in that partition. */
  offset: number;
  /** The refused record's message key as UTF-8 text (null when it had none). */
  key: null | string;
}

/** A data subject was erased (crypto-shredding): its key is destroyed, so every ciphertext under `subject.<subject>` is unreadable. Published on `<tenant>.subjects.erased` (one partition); the table projector, the search projector and the action emitter consume it and replace the subject's personal fields by the marker `[erased]`. Holds no personal data. Message key: `<tenant>/<subject>`. */
export interface SubjectErased {
  /** Tenant whose data subject was erased. */
  tenant: string;
  /** The erased subject's id (an opaque pseudonym, never personal data by rule). */
  subject: string;
  /** User id of the caller who erased the subject. */
  erasedBy: string;
  /** Request-ID of the erasure request, when it came over HTTP. */
  requestId: null | string;
  /** When the erasure was recorded, in milliseconds since the Unix epoch (UTC). */
  erasedAt: number;
  /** Entities of the tenant with personal fields when the subject was erased: the ones consumers scrub. */
  entities: string[];
}

/** The record types by schema name. */
export interface RecordTypes {
  ActionEvent: ActionEvent;
  DeltaEnvelope: DeltaEnvelope;
  DeltaOutcome: DeltaOutcome;
  EntityEvent: EntityEvent;
  Rejection: Rejection;
  SubjectErased: SubjectErased;
}
