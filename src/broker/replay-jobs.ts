/**
 * Replays and verifies started over HTTP run as jobs in the service process (the embedded database cannot
 * be opened by a second process while the service runs): each job has an id, its progress and, at the end,
 * its result or error. One job per entity at a time; finished jobs are kept for an hour (at most 100).
 */
import { randomUUID } from 'node:crypto';
import { DeltabrokerError, isDeltabrokerError } from '../errors';
import type { Logger } from '../logger';
import {
  loggedProgress,
  ReplayProgress,
  type ProgressSnapshot,
  type ProjectionReplay,
  type RebuildResult,
  type ReplayRequest,
  type VerifyReport,
} from '../replay';

export type JobKind = 'replay' | 'verify';

export interface ReplayJobView {
  readonly id: string;
  readonly kind: JobKind;
  readonly tenant: string;
  readonly entity: string;
  readonly status: 'running' | 'succeeded' | 'failed' | 'interrupted';
  readonly progress: ProgressSnapshot;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly result?: RebuildResult | VerifyReport;
  readonly error?: { code: string; message: string };
}

interface Job {
  view: Omit<ReplayJobView, 'progress'>;
  progress: ReplayProgress;
  controller: AbortController;
  done: Promise<void>;
}

const KEEP_FINISHED_MS = 3_600_000;
const MAX_JOBS = 100;

export class ReplayJobs {
  private readonly jobs = new Map<string, Job>();
  /** Entities `runAlone` works on, and what it does. */
  private readonly alone = new Map<string, string>();

  constructor(
    private readonly replay: ProjectionReplay,
    private readonly logger: Logger,
  ) {}

  /** Starts a job; DB_CONFLICT when a job of the same entity is running. */
  start(kind: JobKind, request: ReplayRequest): ReplayJobView {
    this.prune();
    this.refuseBusy(request);
    const id = randomUUID();
    const progress = new ReplayProgress();
    const controller = new AbortController();
    const logger = this.logger.child({ component: 'replay-job', jobId: id, kind, tenant: request.tenant, entity: request.entity });
    progress.onChange(loggedProgress(logger));
    const job: Job = {
      view: { id, kind, tenant: request.tenant, entity: request.entity, status: 'running', startedAt: new Date().toISOString() },
      progress,
      controller,
      done: Promise.resolve(),
    };
    const run = { progress, signal: controller.signal, logger };
    const work = kind === 'replay' ? this.replay.rebuild(request, run) : this.replay.verify(request, run);
    job.done = work.then(
      (result) => void (job.view = { ...job.view, status: 'succeeded', result, finishedAt: new Date().toISOString() }),
      (error: unknown) => {
        const interrupted = controller.signal.aborted;
        const code = interrupted ? 'DB_CONFLICT' : isDeltabrokerError(error) ? error.code : 'DB_INTERNAL';
        const message = interrupted
          ? 'interrupted; start the replay again to resume it'
          : isDeltabrokerError(error)
            ? error.message
            : 'the replay failed; see the service log';
        if (!interrupted && !isDeltabrokerError(error)) logger.error({ err: error }, 'replay job failed');
        job.view = { ...job.view, status: interrupted ? 'interrupted' : 'failed', error: { code, message }, finishedAt: new Date().toISOString() };
      },
    );
    this.jobs.set(id, job);
    return this.viewOf(job);
  }

  /**
   * Runs other work on an entity's projections (a recovery's rebuild) as the entity's one job: DB_CONFLICT while
   * a job of the entity runs, and the entity's jobs are refused until it ends.
   */
  async runAlone<T>(request: { tenant: string; entity: string }, what: string, work: () => Promise<T>): Promise<T> {
    this.refuseBusy(request);
    const id = `${request.tenant}/${request.entity}`;
    this.alone.set(id, what);
    try {
      return await work();
    } finally {
      this.alone.delete(id);
    }
  }

  get(id: string): ReplayJobView | undefined {
    const job = this.jobs.get(id);
    return job === undefined ? undefined : this.viewOf(job);
  }

  /** A tenant's jobs kept in memory (finished ones for an hour), newest first. */
  list(tenant: string): ReplayJobView[] {
    return [...this.jobs.values()]
      .filter((j) => j.view.tenant === tenant)
      .map((j) => this.viewOf(j))
      .reverse();
  }

  /** Interrupts every running job (their shadows stay, so a later replay resumes) and waits for them to stop. */
  async stop(): Promise<void> {
    for (const job of this.jobs.values()) job.controller.abort();
    await Promise.all([...this.jobs.values()].map((j) => j.done));
  }

  private refuseBusy(request: { tenant: string; entity: string }): void {
    const entity = `${request.tenant}/${request.entity}`;
    const running = [...this.jobs.values()].find((j) => j.view.status === 'running' && j.view.tenant === request.tenant && j.view.entity === request.entity);
    const other = this.alone.get(entity);
    if (running || other !== undefined) {
      const what = running ? `job ${running.view.id} is already replaying ${entity}` : `a ${other} of ${entity} is running`;
      throw new DeltabrokerError('DB_CONFLICT', what, { field: 'entity', rule: 'one-job-per-entity', stage: 'replay' });
    }
  }

  private viewOf(job: Job): ReplayJobView {
    return { ...job.view, progress: job.progress.snapshot() };
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, job] of this.jobs) {
      const finished = job.view.finishedAt === undefined ? undefined : Date.parse(job.view.finishedAt);
      if (finished !== undefined && (now - finished > KEEP_FINISHED_MS || this.jobs.size > MAX_JOBS)) this.jobs.delete(id);
    }
  }
}
