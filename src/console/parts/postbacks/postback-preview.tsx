import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { errorText } from '../../../ui-kit/ui';
import type { EventName } from './postback-draft';

type Previewed = { url: string } | { error: unknown } | null;

// The URL a template gives for the sample lead, asked for 300 ms after the last keystroke; a stale
// answer never overwrites a newer one. The server's refusal (naming the macro) is shown as it is.
export function PostbackPreview({
  id,
  api,
  path,
  template,
  event,
  statusMapping,
}: {
  id: string;
  api: Api;
  path: string;
  template: string;
  event: EventName;
  statusMapping: Record<string, string> | undefined;
}) {
  const [previewed, setPreviewed] = useState<Previewed>(null);
  const mappingKey = JSON.stringify(statusMapping ?? null);
  useEffect(() => {
    const typed = template.trim();
    if (typed === '') {
      setPreviewed(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      api
        .post<{ url: string }>(`${path}/postback-preview`, {
          template: typed,
          event,
          ...(statusMapping && { status_mapping: statusMapping }),
        })
        .then(
          (answer) => current && setPreviewed({ url: answer.url }),
          (error: unknown) => current && setPreviewed({ error }),
        );
    }, 300);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [template, event, mappingKey]);
  return (
    <div id={id} class="preview" role="status">
      {previewed &&
        ('url' in previewed ? (
          <p>
            <span class="muted">Preview ({event}, sample lead le-0): </span>
            <span class="mono wrap">{previewed.url}</span>
          </p>
        ) : (
          <p class="error">Preview refused: {errorText(previewed.error)}</p>
        ))}
    </div>
  );
}
