import { setMaxListeners } from 'node:events';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logger';
import { GroupCoordinator } from './group/coordinator';
import { OffsetExpiry } from './group/offset-expiry';
import { OffsetStore } from './group/offset-store';
import type { ResolvedOptions } from './options';
import { ErrorCode } from './protocol/errors';
import { lockDataDir } from '../../system/data-dir-lock';
import { writeFileDurable } from './storage/fs-util';
import { SaslUsers } from './security/sasl';
import type { Authorizer, KafkaPrincipal } from './security/authorizer';
import { LogManager, type Topic, isValidTopicName } from './storage/log-manager';
import { TransactionCoordinator } from './txn/coordinator';

/** Producer ids are reserved on disk in blocks, so ids never repeat across restarts. */
const PRODUCER_ID_BLOCK = 1000;

interface BrokerFile {
  clusterId: string;
  /** Every producer id below this may have been handed out. */
  producerIdBlockEnd: number;
}

/**
 * What request handlers work with: the node's identity, the partition logs, the group coordinator and
 * producer-id allocation. No sockets here.
 */
export class BrokerContext {
  readonly logger: Logger;
  readonly logs: LogManager;
  readonly groups: GroupCoordinator;
  readonly offsetExpiry: OffsetExpiry;
  /** Transactional producers (recovered by `transactions.recover()` before clients connect). */
  readonly transactions: TransactionCoordinator;
  readonly clusterId: string;
  /** Who may authenticate; undefined when SASL is off. */
  readonly saslUsers: SaslUsers | undefined;
  readonly authorizer: Authorizer;
  /** The bound port, set once listening. */
  boundPort: number;
  private nextProducerId: number;
  private producerIdBlockEnd: number;
  private readonly stopController = new AbortController();
  private readonly unlock: () => void;

  constructor(readonly options: ResolvedOptions) {
    // Every in-process subscription and parked request listens for the stop: many, each removed when done.
    setMaxListeners(0, this.stopController.signal);
    this.logger = options.logger;
    this.boundPort = options.port;
    this.saslUsers = options.saslUsers ? new SaslUsers(options.saslUsers) : undefined;
    this.authorizer = options.authorizer;
    fs.mkdirSync(options.dataDir, { recursive: true });
    this.unlock = lockDataDir(options.dataDir, 'broker', 'the embedded Kafka broker');
    try {
      const file = this.readBrokerFile();
      this.clusterId = file.clusterId;
      this.nextProducerId = file.producerIdBlockEnd;
      this.producerIdBlockEnd = file.producerIdBlockEnd;
      this.logs = LogManager.open({
        dir: options.dataDir,
        fsync: options.fsync,
        fsyncIntervalMs: options.fsyncIntervalMs,
        retentionCheckIntervalMs: options.retentionCheckIntervalMs,
        defaults: options.log,
        logger: this.logger,
      });
      const offsets = OffsetStore.open(path.join(options.dataDir, 'groups'), options.fsync, options.fsyncIntervalMs, this.logger);
      this.groups = new GroupCoordinator(
        offsets,
        {
          minSessionTimeoutMs: options.groupMinSessionTimeoutMs,
          maxSessionTimeoutMs: options.groupMaxSessionTimeoutMs,
          initialRebalanceDelayMs: options.groupInitialRebalanceDelayMs,
          sessionCheckIntervalMs: Math.min(500, options.groupMinSessionTimeoutMs),
        },
        this.logger,
      );
      this.offsetExpiry = new OffsetExpiry(
        this.groups,
        { retentionMs: options.offsetsRetentionMs, checkIntervalMs: options.offsetsRetentionCheckIntervalMs, retained: options.retainedGroup },
        this.logger,
      );
      this.transactions = new TransactionCoordinator({
        dir: options.dataDir,
        fsync: options.fsync,
        logs: this.logs,
        groups: this.groups,
        allocateProducerId: () => this.allocateProducerId(),
        logger: this.logger,
      });
    } catch (err) {
      this.unlock();
      throw err;
    }
  }

  get nodeId(): number {
    return this.options.nodeId;
  }

  /** The host clients are told to connect to. */
  get host(): string {
    return this.options.advertisedHost ?? this.options.host;
  }

  /** The port clients are told to connect to. */
  get port(): number {
    return this.options.advertisedPort ?? this.boundPort;
  }

  /** Aborted when the broker stops: parked requests give up. */
  get stopping(): AbortSignal {
    return this.stopController.signal;
  }

  private brokerFilePath(): string {
    return path.join(this.options.dataDir, 'broker.json');
  }

  private readBrokerFile(): BrokerFile {
    const file = this.brokerFilePath();
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as BrokerFile;
    const fresh: BrokerFile = { clusterId: randomBytes(16).toString('base64url'), producerIdBlockEnd: 0 };
    writeFileDurable(file, JSON.stringify(fresh), this.options.dataDir);
    return fresh;
  }

  allocateProducerId(): number {
    if (this.nextProducerId >= this.producerIdBlockEnd) {
      this.producerIdBlockEnd = this.nextProducerId + PRODUCER_ID_BLOCK;
      const file: BrokerFile = { clusterId: this.clusterId, producerIdBlockEnd: this.producerIdBlockEnd };
      writeFileDurable(this.brokerFilePath(), JSON.stringify(file), this.options.dataDir);
    }
    return this.nextProducerId++;
  }

  /**
   * The topic for a Metadata request, auto-creating it when allowed. Returns the error code when it
   * neither exists nor may be created.
   */
  topicForMetadata(name: string, allowCreate: boolean, principal: KafkaPrincipal): Topic | number {
    const existing = this.logs.topic(name);
    if (existing) return existing;
    if (!isValidTopicName(name)) return ErrorCode.INVALID_TOPIC_EXCEPTION;
    if (!allowCreate || !this.options.autoCreateTopics) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const verdict = this.authorizer.topic(principal, 'create', name);
    if (verdict.errorCode !== ErrorCode.NONE) return verdict.errorCode;
    return this.logs.createTopic(name, this.options.defaultPartitions);
  }

  async close(): Promise<void> {
    this.stopController.abort();
    await this.transactions.close();
    await this.offsetExpiry.close();
    this.groups.close();
    await this.logs.close();
    await this.groups.offsetStore.close();
    this.unlock();
  }
}
