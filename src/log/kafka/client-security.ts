import type { SASLOptions } from 'kafkajs';

/** SASL settings of a kafkajs client: the standard mechanisms with a user name and password. */
export interface KafkaSasl {
  readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** HTTP basic credentials for the schema registry. */
export interface RegistryAuth {
  readonly username: string;
  readonly password: string;
}

/** The part of a kafkajs client config that carries the identity (nothing when anonymous). */
export const saslConfig = (sasl: KafkaSasl | undefined): { sasl?: SASLOptions } =>
  sasl ? { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } } : {};
