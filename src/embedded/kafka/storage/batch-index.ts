/**
 * A segment's batches in memory, in append order: each batch's base and last offset, file position and max
 * timestamp, in typed arrays that grow by half again when full. The offsets are kept relative to the segment's
 * base offset and the position as a 32-bit integer, as the segment's index file stores them (so a segment never
 * spans more than 2^31 offsets or bytes).
 *
 * Why not four arrays of numbers: the service's logs hold a batch per produce request, group commit round and
 * transaction marker, so a partition's active segment holds hundreds of thousands of them. As JavaScript arrays
 * that was 32 bytes per batch in V8's heap, every element marked again at each major collection, and the arrays'
 * growth showed as the heap's large-object space rising through a ten-minute soak. Here it is 20 bytes per batch
 * outside the heap, which the collector does not scan.
 */
const INITIAL_CAPACITY = 64;

export class BatchIndex {
  private bases = new Int32Array(INITIAL_CAPACITY);
  private lasts = new Int32Array(INITIAL_CAPACITY);
  private positions = new Int32Array(INITIAL_CAPACITY);
  private stamps = new Float64Array(INITIAL_CAPACITY);
  private count = 0;

  constructor(private readonly baseOffset: number) {}

  get length(): number {
    return this.count;
  }

  push(base: number, last: number, position: number, maxTimestamp: number): void {
    if (this.count === this.bases.length) this.grow();
    const i = this.count++;
    this.bases[i] = base - this.baseOffset;
    this.lasts[i] = last - this.baseOffset;
    this.positions[i] = position;
    this.stamps[i] = maxTimestamp;
  }

  base(i: number): number {
    return this.baseOffset + (this.bases[i] as number);
  }

  last(i: number): number {
    return this.baseOffset + (this.lasts[i] as number);
  }

  position(i: number): number {
    return this.positions[i] as number;
  }

  maxTimestamp(i: number): number {
    return this.stamps[i] as number;
  }

  /** Forgets every batch, keeping the capacity. */
  clear(): void {
    this.count = 0;
  }

  private grow(): void {
    const capacity = Math.ceil(this.bases.length * 1.5);
    const grown = <T extends Int32Array | Float64Array>(old: T, next: T): T => {
      next.set(old);
      return next;
    };
    this.bases = grown(this.bases, new Int32Array(capacity));
    this.lasts = grown(this.lasts, new Int32Array(capacity));
    this.positions = grown(this.positions, new Int32Array(capacity));
    this.stamps = grown(this.stamps, new Float64Array(capacity));
  }
}
