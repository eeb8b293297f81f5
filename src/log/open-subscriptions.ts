/** The subscriptions a write log has open, so that closing the log stops every one (each leaves its group). */
import type { Subscription } from './port';

export class OpenSubscriptions {
  private readonly open = new Set<Subscription>();

  /** Keeps `sub` until it stops; answers the subscription to hand out (its stop() also forgets it). */
  track(sub: Subscription): Subscription {
    const tracked: Subscription = {
      groupId: sub.groupId,
      joined: sub.joined,
      resumeAt: (topic, partition, offset) => sub.resumeAt(topic, partition, offset),
      stop: async () => {
        this.open.delete(tracked);
        await sub.stop();
      },
    };
    this.open.add(tracked);
    return tracked;
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.open].map((s) => s.stop()));
  }
}
