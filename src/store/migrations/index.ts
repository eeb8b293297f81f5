import { keyring } from './001-keyring';
import { pipelineState } from './002-pipeline-state';
import { projectionCheckpoints } from './003-projection-checkpoints';
import { tenantScopedDeltas } from './004-tenant-scoped-deltas';
import { physicalNameClaims } from './005-physical-name-claims';
import { subjectErasures } from './006-subject-erasures';
import { stateStoreMarks } from './007-state-store-marks';

/** A versioned schema change. Statements run in order inside one transaction. */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  keyring,
  pipelineState,
  projectionCheckpoints,
  tenantScopedDeltas,
  physicalNameClaims,
  subjectErasures,
  stateStoreMarks,
];
