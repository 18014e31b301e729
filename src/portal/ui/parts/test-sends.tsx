import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { TestResultNote, type TestResult } from '../../../ui-kit/test-result';
import { ErrorNote, useAction } from '../../../ui-kit/ui';
import { EVENTS } from '../../../ui-kit/vocabulary.generated';

// A signed test callback to the callback URL, or a test postback of one event to the tracker: what
// the endpoint answered is shown here.
export function TestSends({ api }: { api: Api }) {
  const [result, setResult] = useState<{ what: string; test: TestResult } | null>(null);
  const [event, setEvent] = useState<string>('lead.accepted');
  const callback = useAction(async () =>
    setResult({ what: 'Test callback', test: await api.post<TestResult>('/portal/api/test-callback') }),
  );
  const postback = useAction(async () =>
    setResult({
      what: `Test postback (${event})`,
      test: await api.post<TestResult>('/portal/api/test-postback', { event }),
    }),
  );
  return (
    <section class="panel" aria-labelledby="tests-title">
      <h2 id="tests-title">Test sends</h2>
      <div class="actions">
        <button type="button" disabled={callback.busy} onClick={() => void callback.act()}>
          Send a test callback
        </button>
      </div>
      <form
        class="filters"
        aria-label="Test postback"
        onSubmit={(e) => {
          e.preventDefault();
          void postback.act();
        }}
      >
        <div class="field">
          <label for="t-event">Postback event</label>
          <select id="t-event" value={event} onChange={(e) => setEvent((e.target as HTMLSelectElement).value)}>
            {EVENTS.map((ev) => (
              <option key={ev} value={ev}>
                {ev}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary" disabled={postback.busy}>
          Send a test postback
        </button>
      </form>
      <ErrorNote error={callback.error ?? postback.error} />
      {result && (
        <>
          <h3>{result.what}</h3>
          <TestResultNote test={result.test} />
        </>
      )}
    </section>
  );
}
