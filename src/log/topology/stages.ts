/** The stage names, in the seed's order (section 3), as they appear in refusals and metrics. */
export const STAGES = {
  entityConfig: 'entity-config',
  validate: 'validate',
  recordKey: 'record-key',
  locate: 'locate',
  permission: 'permission',
  permissionFilter: 'permission-filter',
  encryption: 'encryption',
} as const;

export type StageName = (typeof STAGES)[keyof typeof STAGES];

/** The stage of a record whose bytes could not be decoded into a DeltaEnvelope (before stage 1). */
export const DECODE_STAGE = 'decode';
