import { loadConfig } from '../../src/config';

describe('config', () => {
  test('safe defaults: loopback, port 8080, dev issuer on in development', () => {
    const config = loadConfig({});
    expect(config.http).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(config.kafka.port).toBe(9092);
    expect(config.kafka.numPartitions).toBe(3);
    expect(config.kafka.offsetsRetentionMinutes).toBe(10_080); // Kafka's offsets.retention.minutes: 7 days
    expect(config.registry.port).toBe(8081);
    expect(config.auth.devIssuer).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.postgres).toMatchObject({ connections: 10, projectionConnections: 6, stateConnections: 3 });
    expect(config.actions.lingerMs).toBe(50);
    expect(config.projections.lingerMs).toBe(20);
  });

  test('environment variables override defaults', () => {
    const config = loadConfig({
      DELTABROKER_HTTP_PORT: '9000',
      DELTABROKER_DATACENTER: 'dc2',
      DELTABROKER_DEV_ISSUER: 'false',
      DELTABROKER_KAFKA_NUM_PARTITIONS: '4',
      DELTABROKER_KAFKA_OFFSETS_RETENTION_MINUTES: '60',
      DELTABROKER_POSTGRES_CONNECTIONS: '20',
      DELTABROKER_POSTGRES_PROJECTION_CONNECTIONS: '3',
      DELTABROKER_POSTGRES_STATE_CONNECTIONS: '4',
      DELTABROKER_ACTIONS_LINGER_MS: '0',
      DELTABROKER_PROJECTIONS_LINGER_MS: '250',
    });
    expect(config.actions.lingerMs).toBe(0);
    expect(config.projections.lingerMs).toBe(250);
    expect(config.postgres).toMatchObject({ connections: 20, projectionConnections: 3, stateConnections: 4 });
    expect(config.kafka.offsetsRetentionMinutes).toBe(60);
    expect(config.http.port).toBe(9000);
    expect(config.kafka.numPartitions).toBe(4);
    expect(config.datacenter).toBe('dc2');
    expect(config.auth.devIssuer).toBe(false);
  });

  test('a bad value is refused naming the setting', () => {
    expect(() => loadConfig({ DELTABROKER_HTTP_PORT: 'eighty' })).toThrow(/http\.port/);
    expect(() => loadConfig({ DELTABROKER_DATACENTER: 'DC 1' })).toThrow(/datacenter/);
    expect(() => loadConfig({ DELTABROKER_KAFKA_NUM_PARTITIONS: '0' })).toThrow(/kafka\.numPartitions/);
    expect(() => loadConfig({ DELTABROKER_KAFKA_OFFSETS_RETENTION_MINUTES: '0' })).toThrow(/kafka\.offsetsRetentionMinutes/);
    expect(() => loadConfig({ DELTABROKER_POSTGRES_CONNECTIONS: '1' })).toThrow(/postgres\.connections/);
    expect(() => loadConfig({ DELTABROKER_POSTGRES_PROJECTION_CONNECTIONS: 'many' })).toThrow(/postgres\.projectionConnections/);
    expect(() => loadConfig({ DELTABROKER_POSTGRES_STATE_CONNECTIONS: '1' })).toThrow(/postgres\.stateConnections/);
    expect(() => loadConfig({ DELTABROKER_ACTIONS_LINGER_MS: '-1' })).toThrow(/actions\.lingerMs/);
    expect(() => loadConfig({ DELTABROKER_PROJECTIONS_LINGER_MS: '1001' })).toThrow(/projections\.lingerMs/);
    expect(() => loadConfig({ DELTABROKER_PROJECTIONS_LINGER_MS: '2.5' })).toThrow(/projections\.lingerMs/);
  });

  test('production mode needs a master key and a token issuer, and has no dev issuer', () => {
    expect(() => loadConfig({ DELTABROKER_MODE: 'production' })).toThrow(/MASTER_KEY/);
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(() => loadConfig({ DELTABROKER_MODE: 'production', DELTABROKER_MASTER_KEY: key })).toThrow(/JWKS_URL/);
    const config = loadConfig({ DELTABROKER_MODE: 'production', DELTABROKER_MASTER_KEY: key, DELTABROKER_JWKS_URL: 'https://idp.example/jwks' });
    expect(config.auth.devIssuer).toBe(false);
  });
});
