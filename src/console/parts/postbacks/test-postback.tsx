import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { TestResultNote, type TestResult } from '../../../ui-kit/test-result';
import { ErrorNote, useAction } from '../../../ui-kit/ui';
import { EventField } from './event-field';
import type { EventName } from './postback-draft';

// A test postback: one event's postback for the sample lead, sent once, and its attempt shown.
export function TestPostback({ api, path, enabled }: { api: Api; path: string; enabled: boolean }) {
  const [testEvent, setTestEvent] = useState<EventName>('lead.accepted');
  const [test, setTest] = useState<TestResult | null>(null);
  const sendTest = useAction(async () => {
    setTest(null);
    setTest(await api.post<TestResult>(`${path}/test-postback`, { event: testEvent }));
  });
  return (
    <>
      <h3>Test postback</h3>
      <div class="filters">
        <EventField id="pb-test-event" label="Event of the test postback" value={testEvent} onPick={setTestEvent} />
        <button type="button" disabled={sendTest.busy || !enabled} onClick={() => void sendTest.act()}>
          Send a test postback
        </button>
      </div>
      {!enabled && <p class="muted">No postback template saved: save one above to send a test postback.</p>}
      <ErrorNote error={sendTest.error} />
      {test && <TestResultNote test={test} />}
    </>
  );
}
