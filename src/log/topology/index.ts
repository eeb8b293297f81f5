/**
 * The service's topology on the write log, in one place: topic and group names, record keys and ids, the
 * persistence-topic spec, the stage names, and which topics, subjects and groups are the service's own.
 */
export * from './topics';
export * from './groups';
export * from './stages';
export * from './delta-ids';
export * from './service-resources';
