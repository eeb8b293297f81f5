/**
 * Work that takes turns per key: each piece starts once the key's previous piece has settled, whether it succeeded
 * or failed, and pieces of different keys run side by side. A key is forgotten once its last piece settles.
 */
export class KeyedTurns {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.#tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => this.#tails.get(key) === tail && this.#tails.delete(key));
    return run;
  }

  /** Settles once every piece given so far has settled. */
  async settled(): Promise<void> {
    await Promise.all(this.#tails.values());
  }
}
