import { KeyObject } from 'node:crypto';

// The configuration is passed down immutable; keys and key material are frozen by their own types.
export function deepFreeze<T>(value: T): T {
  if (
    value &&
    typeof value === 'object' &&
    !(value instanceof Map) &&
    !Buffer.isBuffer(value) &&
    !(value instanceof KeyObject)
  ) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
