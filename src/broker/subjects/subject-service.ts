import type { Principal } from '../../auth/principal';
import { checkSubjectId, type SubjectErasure, type SubjectKeys } from '../../crypto/subject-keys';
import { DeltabrokerError } from '../../errors';
import type { RecordSchemas, SubjectErased, WriteLog } from '../../log';
import type { Logger } from '../../logger';
import type { SubjectRecordsReader } from '../../store/subject-records';
import { personalFields, subjectErasureTopic, type EntityConfig, type EntityConfigSource } from '../../tenant';

/** The dedicated role that may erase a data subject; a tenant's `admin` alone may not. */
export const ERASER_ROLE = 'eraser';
/** Roles that may see what is held of a subject (right of access). */
const ACCESS_ROLES = ['admin', ERASER_ROLE];
/** Record keys listed per entity by `show`; the count is always exact. */
const MAX_LISTED_KEYS = 1000;

export interface SubjectHolding {
  entity: string;
  subjectField: string;
  personalFields: string[];
  records: number;
  keys: string[];
}

export interface SubjectReport {
  tenant: string;
  subject: string;
  erased: SubjectErasure | null;
  keyVersions: number;
  holdings: SubjectHolding[];
}

export interface ErasureResult {
  erasure: SubjectErasure;
  /** False when the subject was erased before: nothing was destroyed now, the record was published again. */
  first: boolean;
  destroyedKeyVersions: number;
  entities: string[];
}

/**
 * Erasure and right of access for data subjects, per tenant. Erasing destroys the subject's key rows
 * (SubjectKeys), then publishes a SubjectErased record for the projectors and the action emitter. Erasing
 * again publishes the record again, so an erasure whose publish failed is completed by repeating it.
 */
export class SubjectService {
  constructor(
    private readonly o: {
      keys: SubjectKeys;
      entities: EntityConfigSource;
      log: WriteLog;
      schemas: RecordSchemas;
      records: SubjectRecordsReader;
      logger: Logger;
    },
  ) {}

  async erase(principal: Principal, subject: string, requestId: string | null): Promise<ErasureResult> {
    requireRole(principal, [ERASER_ROLE], 'erasing a data subject');
    checkSubjectId(subject, 'subject', 'subjects');
    const outcome = await this.o.keys.erase(principal.tenant, subject, principal.user, requestId);
    const entities = (await this.#personalEntities(principal.tenant)).map((c) => c.entity);
    const topic = subjectErasureTopic(principal.tenant);
    await this.o.log.createTopics([{ topic, partitions: 1, config: { 'retention.ms': '-1' } }]);
    const record: SubjectErased = {
      tenant: principal.tenant,
      subject,
      erasedBy: outcome.erasure.erasedBy,
      requestId: outcome.erasure.requestId,
      erasedAt: Date.parse(outcome.erasure.erasedAt),
      entities,
    };
    await this.o.log.publish([{ topic, key: `${principal.tenant}/${subject}`, value: record, schema: this.o.schemas.SubjectErased }]);
    this.o.logger.info(
      { tenant: principal.tenant, subject, erasedBy: principal.user, first: outcome.first, destroyedKeyVersions: outcome.destroyedVersions },
      'data subject erased',
    );
    return { erasure: outcome.erasure, first: outcome.first, destroyedKeyVersions: outcome.destroyedVersions, entities };
  }

  async show(principal: Principal, subject: string): Promise<SubjectReport> {
    requireRole(principal, ACCESS_ROLES, 'what is held of a data subject');
    checkSubjectId(subject, 'subject', 'subjects');
    const holdings: SubjectHolding[] = [];
    for (const config of await this.#personalEntities(principal.tenant)) holdings.push(await this.#holding(config, subject));
    return {
      tenant: principal.tenant,
      subject,
      erased: (await this.o.keys.erasure(principal.tenant, subject)) ?? null,
      keyVersions: await this.o.keys.keyVersions(principal.tenant, subject),
      holdings,
    };
  }

  async #personalEntities(tenant: string): Promise<EntityConfig[]> {
    return (await this.o.entities.list()).configs.filter((c) => c.tenant === tenant && c.subject !== undefined && personalFields(c).length > 0);
  }

  async #holding(config: EntityConfig, subject: string): Promise<SubjectHolding> {
    const base = { entity: config.entity, subjectField: config.subject as string, personalFields: personalFields(config) };
    return { ...base, ...(await this.o.records.recordsOf(config, subject, MAX_LISTED_KEYS)) };
  }
}

function requireRole(principal: Principal, roles: readonly string[], what: string): void {
  if (!principal.roles.some((r) => roles.includes(r))) {
    throw new DeltabrokerError('DB_FORBIDDEN', `${what} needs the role ${roles.join(' or ')}`, { field: 'Authorization', rule: 'role', stage: 'auth' });
  }
}
