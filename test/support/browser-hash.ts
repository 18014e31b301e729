import type { Page } from 'playwright-core';

// Moves a single-page app to another route by its URL hash, as a link inside the app would.
export const goToHash = (p: Page, hash: string): Promise<void> =>
  p.evaluate((h) => {
    location.hash = h;
  }, hash);
