// Callbacks carry status only (spec 1): a body holding any of these keys, at any depth, is a
// protocol violation and is never sent, whatever the schemas upstream let through.
export const MONEY_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'currency',
  'ftd_amount',
  'rtd_amount',
  'deposit_amount',
]);

// The path of the first money field found, or null when there is none.
export function findMoneyField(value: unknown, path = ''): string | null {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findMoneyField(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (MONEY_FIELDS.has(key.toLowerCase())) return childPath;
    const found = findMoneyField(child, childPath);
    if (found) return found;
  }
  return null;
}
