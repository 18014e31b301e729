import type { Locator, Page } from 'playwright-core';
import { pageWidths, unnamedControls } from './console-browser';
import { portalShot } from './portal-browser';

// The portal is checked at a desktop and a phone width.
export const WIDTHS = [1280, 390] as const;

// A page at both widths: a screenshot of each, the layout no wider than the screen, every control named.
export async function atBothWidths(p: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await p.setViewportSize({ width, height: 900 });
    await p.waitForTimeout(100);
    await portalShot(p, name);
    const [inner, scroll] = await pageWidths(p);
    expect(scroll).toBeLessThanOrEqual(inner!);
  }
  expect(await unnamedControls(p)).toEqual([]);
  await p.setViewportSize({ width: WIDTHS[0], height: 900 });
}

// On a phone a table of cards shows each row as a card no wider than the screen, each cell under
// its column's name (the cell's data-label, e.g. `label`).
export async function cardsOnPhone(p: Page, table: Locator, label: string): Promise<void> {
  await p.setViewportSize({ width: WIDTHS[1], height: 900 });
  expect((await table.locator('tbody tr').first().boundingBox())!.width).toBeLessThanOrEqual(WIDTHS[1]);
  const cell = table.locator(`td[data-label="${label}"]`).first();
  expect(await cell.evaluate((td) => getComputedStyle(td, '::before').content)).toBe(`"${label}"`);
  await p.setViewportSize({ width: WIDTHS[0], height: 900 });
}
