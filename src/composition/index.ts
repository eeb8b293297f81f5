/**
 * The composition root: the one place that picks adapters from configuration and wires ports, streams,
 * projections and services together, for the service (service.ts) and for every CLI command (tools.ts).
 */
export { startService, type Service } from './service';
export { withKeyring, withProjectionReplay, withRejectionService, withSubjectService, type RunningServiceAccess } from './tools';
export { openDevIssuer, openEntityConfigSource, openMasterKey } from './ports';
export { openStore, type Store } from './store';
export { openWriteLog, type Opener, type WriteLogAccess } from './write-log';
