import { useEffect, useState } from 'preact/hooks';
import { api, session, type Principal } from './api';
import { ErrorLine } from './error-line';

/** Sign-in by pasting a token; in development mode a button asks the service for the development token. */
export function SignIn({ onSignedIn }: { onSignedIn: (principal: Principal) => void }) {
  const [token, setToken] = useState(session.token() ?? '');
  const [error, setError] = useState<unknown>(null);
  const signIn = async (given: string) => {
    session.signIn(given.trim());
    try {
      onSignedIn(await api<Principal>('GET', '/whoami'));
    } catch (e) {
      session.signOut();
      setError(e);
    }
  };
  // A token kept from an earlier page load in this tab (sessionStorage) signs in again without pasting.
  useEffect(() => {
    const kept = session.token();
    if (kept) void signIn(kept);
  }, []);
  const devToken = async () => {
    try {
      const { token: minted } = await api<{ token: string }>('POST', '/console/dev-token', {});
      setToken(minted);
      await signIn(minted);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <main>
      <section>
        <h2>Sign in</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void signIn(token);
          }}
        >
          <label for="token">Bearer token</label>
          <textarea id="token" rows={4} cols={80} value={token} onInput={(e) => setToken(e.currentTarget.value)} />
          <div>
            <button type="submit">Sign in</button>
            <button type="button" onClick={() => void devToken()}>
              Use the development token
            </button>
          </div>
        </form>
        <ErrorLine error={error} />
      </section>
    </main>
  );
}
