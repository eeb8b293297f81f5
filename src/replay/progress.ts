/**
 * Progress of a replay: events read out of the events to read, rate and time left. The rebuild updates it;
 * renderers (progress-render.ts) and the HTTP job registry read snapshots of it.
 */
export type ReplayPhase = 'planning' | 'preparing' | 'replaying' | 'catching-up' | 'swapping' | 'done' | 'failed' | 'interrupted';

export interface ProgressSnapshot {
  readonly phase: ReplayPhase;
  /** Events read from the persistence topic so far. */
  readonly done: number;
  /** Events to read (an upper bound for `--from-time` until each partition's first event arrives). */
  readonly total: number;
  /** Events per second since the replay started reading. */
  readonly rate: number;
  /** Seconds left at the current rate; null before the first event. */
  readonly etaSeconds: number | null;
  readonly elapsedSeconds: number;
}

export type ProgressListener = (snapshot: ProgressSnapshot) => void;

export class ReplayProgress {
  private phase: ReplayPhase = 'planning';
  private done = 0;
  private total = 0;
  private readonly started = Date.now();
  private readingSince: number | undefined;
  private readonly listeners = new Set<ProgressListener>();

  onChange(listener: ProgressListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  enter(phase: ReplayPhase): void {
    this.phase = phase;
    if (phase === 'replaying') this.readingSince ??= Date.now();
    if (phase === 'done') this.total = this.done;
    this.emit();
  }

  /** Adds events still to read (a catch-up pass adds the events written meanwhile). */
  addTotal(events: number): void {
    this.total += events;
    this.emit();
  }

  /** Events read; `skippedBefore` lowers the total where a partition's first event came later than assumed. */
  advance(events: number, skippedBefore = 0): void {
    this.done += events;
    this.total -= skippedBefore;
    this.emit();
  }

  snapshot(): ProgressSnapshot {
    const now = Date.now();
    const reading = this.readingSince === undefined ? 0 : (now - this.readingSince) / 1000;
    const rate = reading > 0 ? this.done / reading : 0;
    const left = Math.max(0, this.total - this.done);
    return {
      phase: this.phase,
      done: this.done,
      total: Math.max(this.total, this.done),
      rate: Math.round(rate),
      // Nothing left is 0 s even when no rate is known yet (a pass that finished within a millisecond).
      etaSeconds: left === 0 ? 0 : rate > 0 ? Math.ceil(left / rate) : null,
      elapsedSeconds: Math.round((now - this.started) / 100) / 10,
    };
  }

  private emit(): void {
    if (this.listeners.size === 0) return;
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}
