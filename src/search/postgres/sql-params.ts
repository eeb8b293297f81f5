/** Bind parameters of one statement: every request value goes through here, never into the SQL text. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds `value` and returns its placeholder (`$3`), optionally with a cast (`$3::jsonb`). */
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast === undefined ? `$${this.values.length}` : `$${this.values.length}::${cast}`;
  }
}
