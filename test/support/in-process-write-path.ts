import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createActorProofVerifier } from '../../src/auth/actor-proof';
import { DeltaSeal } from '../../src/auth/delta-seal';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { createJwtVerifier } from '../../src/auth/jwt-verifier';
import type { Principal } from '../../src/auth/principal';
import { OutcomeWaiter } from '../../src/broker/outcome-waiter';
import { WriteService, type WriteCommand, type WriteServiceOptions } from '../../src/broker/write-service';
import { startEmbeddedKafka } from '../../src/embedded/kafka';
import { startEmbeddedRegistry } from '../../src/embedded/registry';
import { loadSchemas, type RecordSchemas, type Subscription, type WriteLog } from '../../src/log';
import { openInProcessWriteLog } from '../../src/log/in-process';
import { PIPELINE_TOPICS } from '../../src/log/topology';
import { silentLogger } from '../../src/logger';
import type { RecordStateStore } from '../../src/store/record-states/port';
import { InMemoryEntityConfigSource } from '../../src/tenant';
import { startDeltaProcessor, type DeltaProcessorOptions } from '../../streams/delta-processor';
import { registerRecordSchemas } from '../../streams/schema-registration';
import { defaultConfigInput } from '../unit/tenant/fixtures';

/** The writer the write-path tests write as. */
export const ada: Principal = { user: 'ada', tenant: 'acme', roles: ['writer'] };

/** A create of a new `acme/merchant_account` record, waiting for its verdict; `over` changes any part. */
export const writeCommand = (over: Partial<WriteCommand> = {}): WriteCommand => ({
  entity: 'merchant_account',
  operation: 'create',
  payload: { merchantId: `m-${Math.random().toString(36).slice(2)}`, name: 'Ada' },
  requestId: 'req-1',
  async: false,
  ...over,
});

/** What the processor options of a test may add, given the parts it runs on. */
type ProcessorExtras = (parts: { log: WriteLog; schemas: RecordSchemas; entities: InMemoryEntityConfigSource }) => Promise<Partial<DeltaProcessorOptions>>;

export interface InProcessWritePath {
  readonly schemas: RecordSchemas;
  readonly seal: DeltaSeal;
  /** The write log the processor and `writes` use. */
  readonly log: WriteLog;
  /** Another write log on the same broker. */
  openLog(): Promise<WriteLog>;
  readonly writes: WriteService;
  /** The options `writes` was made with, for variants. */
  readonly options: WriteServiceOptions;
  stop(): Promise<void>;
}

/**
 * The write path of one machine, for a test: the embedded broker and registry in a temporary directory, the
 * in-process write log, the delta processor deciding against `states`, and a write service whose callers hear their
 * verdicts from it (the default entities: acme's merchant_account).
 */
export async function startInProcessWritePath(states: RecordStateStore, extras: ProcessorExtras = async () => ({})): Promise<InProcessWritePath> {
  const dir = mkdtempSync(path.join(tmpdir(), 'write-path-'));
  const closers: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stop = async (): Promise<void> => {
    for (const close of closers.reverse()) await close();
  };
  try {
    const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0, autoCreateTopics: false });
    closers.push(() => kafka.stop());
    const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
    closers.push(() => registry.stop());
    const openLog = () => openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url, rejectionsTopic: PIPELINE_TOPICS.rejections });
    const log = await openLog();
    closers.push(() => log.close());
    const schemas = loadSchemas();
    const entities = new InMemoryEntityConfigSource([defaultConfigInput()]);
    await log.createTopics([
      { topic: PIPELINE_TOPICS.deltas, partitions: 6 },
      { topic: 'acme.merchant_account.events', partitions: 3 },
    ]);
    await registerRecordSchemas({ log, schemas, entities, datacenter: 'dc1' });
    const issuer = await loadDevIssuer(dir, 'deltabroker-test', 'deltabroker');
    const tokens = await createJwtVerifier({
      issuer: 'deltabroker-test',
      audience: 'deltabroker',
      tenantClaim: 'tenant',
      rolesClaim: 'roles',
      devPublicKey: issuer.publicKey,
    });
    const seal = new DeltaSeal(Buffer.alloc(32, 7));
    // The processor hands this instance's verdicts to the waiter directly; the outcomes topic is not read.
    const waiter = new OutcomeWaiter();
    const processor: Subscription = await startDeltaProcessor({
      log,
      schemas,
      entities,
      states,
      actors: createActorProofVerifier({ seal, tokens }),
      logger: silentLogger(),
      onVerdict: (outcome) => waiter.deliver(outcome),
      ...(await extras({ log, schemas, entities })),
    });
    closers.push(() => processor.stop());
    const options: WriteServiceOptions = { log, schemas, entities, states, waiter, datacenter: 'dc1', timeoutMs: 10_000, seal };
    return { schemas, seal, log, openLog, writes: new WriteService(options), options, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
