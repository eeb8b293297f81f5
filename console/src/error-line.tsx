import { ApiError } from './api';

/** A failed request, in the service's own words (code and detail), as text. */
export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  const code = error instanceof ApiError && typeof error.problem.code === 'string' ? `${error.problem.code}: ` : '';
  return (
    <p role="alert" class="error">
      {code}
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}
