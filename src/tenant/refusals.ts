/**
 * A refused entity configuration, as its requests meet it (the error `get` throws) and as a listing reports it
 * (`RefusedEntityConfig`). Both come from one error, so a refusal reads the same at start, where the service
 * lists every configuration, and while running, where a changed file or tenant API answer is looked up again.
 */
import { DeltabrokerError, isDeltabrokerError, type ErrorCode } from '../errors';
import { STAGES } from '../log/topology/stages';

/** An entity whose configuration is refused, and why. Its requests answer `code`; every other entity serves. */
export interface RefusedEntityConfig {
  /** As the source names it: a file's folder and name may break the name rule (that is then the reason). */
  readonly tenant: string;
  readonly entity: string;
  /** The file (relative to the entities folder) or the tenant API resource the configuration came from. */
  readonly source: string;
  /** DB_ENTITY_CONFIG_INVALID, or DB_CONFLICT when it maps onto a name another entity owns. */
  readonly code: ErrorCode;
  /** The configuration field at fault, e.g. `persistence.topic`. */
  readonly field: string;
  /** The rule it breaks, e.g. `tenant-namespace`, `file-name`, `name-taken`. */
  readonly rule: string;
  readonly message: string;
}

/** The rule of a configuration refused because another entity owns a name it maps onto (name-claims.ts). */
export const NAME_TAKEN_RULE = 'name-taken';

export interface RefusalDetails {
  /** Where the configuration comes from: a file relative to the entities folder, or `tenant API /tenants/<t>/entities/<e>`. */
  readonly source: string;
  /** The configuration field the refusal is about (`persistence.topic`), or `(file)` / `(file name)`. */
  readonly field: string;
  readonly rule: string;
  readonly [extra: string]: unknown;
}

/** DB_ENTITY_CONFIG_INVALID at stage entity-config: the requests for this one entity are refused until it is fixed. */
export const entityConfigInvalid = (message: string, details: RefusalDetails, cause?: unknown): DeltabrokerError =>
  new DeltabrokerError('DB_ENTITY_CONFIG_INVALID', message, { ...details, stage: STAGES.entityConfig }, cause === undefined ? undefined : { cause });

/**
 * Whether `error` refuses one entity's configuration (invalid, or mapping onto a name another owns), as opposed
 * to a source that failed as a whole (a tenant API that does not answer, a folder that cannot be read).
 */
export function isEntityConfigRefusal(error: unknown): error is DeltabrokerError {
  if (!isDeltabrokerError(error) || error.details.stage !== STAGES.entityConfig) return false;
  return error.code === 'DB_ENTITY_CONFIG_INVALID' || (error.code === 'DB_CONFLICT' && error.details.rule === NAME_TAKEN_RULE);
}

/** The listing entry of the refusal `error` of tenant/entity. */
export const refusedEntry = (tenant: string, entity: string, error: DeltabrokerError): RefusedEntityConfig => ({
  tenant,
  entity,
  source: String(error.details.source ?? ''),
  code: error.code,
  field: String(error.details.field ?? ''),
  rule: String(error.details.rule ?? ''),
  message: error.message,
});
