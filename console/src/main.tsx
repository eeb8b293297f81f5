import { render } from 'preact';
import { useState } from 'preact/hooks';
import { session, type Principal } from './api';
import { EntityConfigs } from './entity-config';
import { Keys } from './keys';
import { Overview } from './overview';
import { Refused } from './refused';
import { Replay } from './replay';
import { Rows } from './rows';
import { Subjects } from './subjects';
import { Topics } from './topics';
import { SignIn } from './sign-in';

const VIEWS = {
  overview: 'Overview',
  rows: 'Entities',
  topics: 'Topics and groups',
  refused: 'Refused deltas',
  replay: 'Replay',
  keys: 'Keys',
  subjects: 'Subjects',
} as const;
type View = keyof typeof VIEWS;

function Console() {
  const [principal, setPrincipal] = useState<Principal | null>(null);
  const [view, setView] = useState<View>('overview');
  if (!principal) return <SignIn onSignedIn={setPrincipal} />;
  const signOut = () => {
    session.signOut();
    setPrincipal(null);
  };
  return (
    <>
      <header>
        <h1>deltabroker</h1>
        <nav aria-label="Views">
          {(Object.keys(VIEWS) as View[]).map((v) => (
            <button key={v} type="button" aria-current={v === view ? 'page' : undefined} onClick={() => setView(v)}>
              {VIEWS[v]}
            </button>
          ))}
        </nav>
        <span>
          {principal.user} · tenant {principal.tenant} · {principal.roles.join(', ')}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {view === 'overview' && <Overview principal={principal} />}
        {view === 'rows' && (
          <>
            <EntityConfigs />
            <Rows />
          </>
        )}
        {view === 'topics' && <Topics messages={principal.roles.includes('admin')} />}
        {view === 'refused' && <Refused />}
        {view === 'replay' && <Replay />}
        {view === 'keys' && <Keys />}
        {view === 'subjects' && <Subjects />}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<Console />, root);
