// A lone UTF-16 surrogate is valid JSON ("\ud800") but no Unicode text: UTF-8 cannot carry it (a
// store or a topic keeps U+FFFD instead) and encodeURIComponent throws on it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isWellFormed(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

// Each lone surrogate becomes U+FFFD, as a UTF-8 decoder would make it.
export function wellFormed(value: string): string {
  return value.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
}
