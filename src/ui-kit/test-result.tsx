import type { CallbackReply } from '../shared/schemas/types.generated';

// What a test callback or test postback answers (a postback's also the URL it called, token masked):
// the dispatcher's reply as the schema types it (a type only: nothing of the server is bundled).
export type TestResult = NonNullable<CallbackReply['test']>;

// The answer announced where the button was pressed.
export function TestResultNote({ test }: { test: TestResult }) {
  return (
    <div role="status" class="result">
      <p>
        <strong>{test.delivered ? 'Delivered' : 'Not delivered'}</strong>: HTTP {test.http_status ?? '—'} in{' '}
        {test.duration_ms} ms{test.error ? `, ${test.error}` : ''}
      </p>
      {test.url && <p class="mono wrap">GET {test.url}</p>}
      {test.response_body && <pre class="body">{test.response_body}</pre>}
    </div>
  );
}
