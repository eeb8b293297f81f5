import type { z } from 'zod';
import { DeltabrokerError } from '../errors';

/** Validates a JSON body with a zod schema; the first problem is reported with its field path and rule. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, stage: string): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const keys = issue && 'keys' in issue ? (issue.keys as string[]) : [];
  const path = [...(issue?.path ?? []), ...keys.slice(0, 1)].map(String).join('.');
  const field = path === '' ? 'body' : path;
  throw new DeltabrokerError('DB_VALIDATION', `${field}: ${describeIssue(issue)}`, { field, rule: issue?.code ?? 'invalid', stage });
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid';
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'unrecognized_keys') return 'is not a known field';
  return issue.message;
}
