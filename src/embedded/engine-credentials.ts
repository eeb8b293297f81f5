import path from 'node:path';
import { type EngineCredentials, loadOrCreateCredentials, readCredentials } from './credentials';

/**
 * Where the embedded engines' credentials live: `<dataDir>/credentials/kafka.json` (SASL users of the broker)
 * and `registry.json` (basic-auth users of the schema registry), each 0600. The service uses the `service`
 * user; `client` is for every other client (kcat, kafka-python, scripts).
 */
export const kafkaCredentialsFile = (dataDir: string): string => path.join(dataDir, 'credentials', 'kafka.json');
export const registryCredentialsFile = (dataDir: string): string => path.join(dataDir, 'credentials', 'registry.json');

const NAMES = { service: 'deltabroker', client: 'client' };

export const embeddedKafkaCredentials = (dataDir: string): EngineCredentials => loadOrCreateCredentials(kafkaCredentialsFile(dataDir), NAMES);
export const embeddedRegistryCredentials = (dataDir: string): EngineCredentials => loadOrCreateCredentials(registryCredentialsFile(dataDir), NAMES);
/** The credentials a running service created, for a tool beside it; undefined when there are none. */
export const runningKafkaCredentials = (dataDir: string): EngineCredentials | undefined => readCredentials(kafkaCredentialsFile(dataDir));
export const runningRegistryCredentials = (dataDir: string): EngineCredentials | undefined => readCredentials(registryCredentialsFile(dataDir));

/** The users map the embedded engines take. */
export const usersOf = (c: EngineCredentials): Record<string, string> => ({ [c.service.username]: c.service.password, [c.client.username]: c.client.password });

/** An address only this machine reaches. */
export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);
