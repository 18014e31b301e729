import type { ComponentChildren } from 'preact';
import type { Api } from './api';
import { href, type Route } from './router';

// What the page of the section shown gets: the API, the route, and a way to replace the session.
export interface SectionProps<S> {
  api: Api;
  route: Route;
  section: string;
  onSession: (s: S) => void;
}

// A signed-in app's frame: a skip link, the header with the app's name, its sections as links (the
// current one marked) and the account menu, then the page in a focusable main.
export function AppShell({
  brand,
  sections,
  current,
  menu,
  children,
}: {
  brand: ComponentChildren;
  sections: readonly (readonly [key: string, label: string, ...rest: unknown[]])[];
  current: string;
  menu: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{brand}</span>
        <nav aria-label="Sections">
          <ul>
            {sections.map(([key, label]) => (
              <li key={key}>
                <a href={href(key)} aria-current={current === key ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {menu}
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
