import type { Logger } from '../logger';

/**
 * What a process closes when it stops: each part it opened, named for the log, closed in the reverse of the order
 * they were opened. A step that fails is logged and the others still run; a step that never ends is named by
 * `pending`, so a stop that overruns its deadline says what it is waiting for.
 */
export class ShutdownSteps {
  private readonly steps: { name: string; close: () => Promise<void> }[] = [];
  private current: string | undefined;

  add(name: string, close: () => Promise<void>): void {
    this.steps.push({ name, close });
  }

  /** The step closing now. */
  get pending(): string | undefined {
    return this.current;
  }

  async closeAll(logger: Logger): Promise<void> {
    for (const { name, close } of this.steps.splice(0).reverse()) {
      this.current = name;
      await close().catch((error: unknown) => logger.warn({ err: error, step: name }, 'shutdown step failed'));
    }
    this.current = undefined;
  }
}

/**
 * `steps.closeAll`, bounded: past `timeoutMs` it rejects naming the step still closing (a consumer leaving a group
 * whose coordinator is gone can wait for ever; an orchestrator would kill the process anyway, without saying why).
 */
export async function closeWithin(steps: ShutdownSteps, logger: Logger, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`shutdown did not finish within ${timeoutMs} ms: still closing ${steps.pending ?? 'nothing'}`)), timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([steps.closeAll(logger), overrun]);
  } finally {
    clearTimeout(timer);
  }
}
