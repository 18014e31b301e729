import { useState } from 'preact/hooks';
import { EVENTS, type Postbacks } from '../partner-settings-form';
import { draftOf, type Draft, type EventName } from './postback-draft';

// The postback form's draft and the edits a person makes to it, each as an input's event handler.
export function usePostbackDraft(saved: Postbacks | null | undefined) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(saved));
  const [nextKey, setNextKey] = useState(draft.templates.length);

  const set = (field: 'url' | 'status_mapping' | 'token' | 'sign') => (e: Event) => {
    const el = e.target as HTMLInputElement;
    setDraft({ ...draft, [field]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const setTemplate = (key: number, field: 'event' | 'url' | 'status_mapping') => (e: Event) => {
    const value = (e.target as HTMLInputElement).value;
    setDraft({ ...draft, templates: draft.templates.map((t) => (t.key === key ? { ...t, [field]: value } : t)) });
  };
  const addTemplate = () => {
    const free = EVENTS.find((ev) => !draft.templates.some((t) => t.event === ev)) ?? 'lead.accepted';
    setDraft({ ...draft, templates: [...draft.templates, { key: nextKey, event: free, url: '', status_mapping: '' }] });
    setNextKey(nextKey + 1);
  };
  const removeTemplate = (key: number) =>
    setDraft({ ...draft, templates: draft.templates.filter((t) => t.key !== key) });
  const toggleEvent = (event: EventName) => (e: Event) => {
    const on = (e.target as HTMLInputElement).checked;
    setDraft({ ...draft, events: on ? [...draft.events, event] : draft.events.filter((x) => x !== event) });
  };
  return { draft, set, setTemplate, addTemplate, removeTemplate, toggleEvent };
}
