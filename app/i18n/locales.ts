// The languages pages are shown in, and how a request's Accept-Language picks one (browser-safe,
// keeps nothing: the server's own refusal pages use it too). docs/languages.md adds one.

/** The languages offered to visitors; the first is the default. */
export const LOCALES = ["en", "ar"] as const;

/** Every message marked, left to right and right to left: for tests, with PSEUDO_LOCALES only. */
export const PSEUDO_LOCALES = ["en-XA", "ar-XB"] as const;

export type ShippedLocale = (typeof LOCALES)[number];
export type Locale = ShippedLocale | (typeof PSEUDO_LOCALES)[number];

export const DEFAULT_LOCALE: ShippedLocale = LOCALES[0];

const RIGHT_TO_LEFT: readonly Locale[] = ["ar", "ar-XB"];

/** Each language's name in itself, as the language form offers it. */
export const LOCALE_NAMES: Record<ShippedLocale, string> = { en: "English", ar: "العربية" };

/** A language tag as Content-Language and `lang` take it (BCP 47's common form). */
export const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[a-z\d]{1,8})*$/i;

export const getDirection = (locale: Locale) => (RIGHT_TO_LEFT.includes(locale) ? "rtl" : "ltr");

/** The shipped locale a pseudo-locale shows the words of. */
export const getSourceLocale = (locale: Locale): ShippedLocale =>
  locale === "en-XA" || locale === "ar-XB" ? "en" : locale;

// A browser sends a handful of ranges in a few dozen bytes; a longer header is read no further.
const MAX_READ = 1_024;
const MAX_RANGES = 16;
const MAX_RANGE_LENGTH = 64;
const RANGE =
  /^\s*([a-z]{1,8}(?:-[a-z\d]{1,8})*|\*)\s*(?:;\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?))?\s*$/i;

/**
 * The best of `available` for an Accept-Language header (RFC 9110 §12.5.4) by RFC 4647 lookup:
 * ranges by weight, each tried whole, then without its last subtag (`fr-CA`, then `fr`).
 * Undefined when none matches; a malformed range is skipped, and only the header's first
 * MAX_READ characters and MAX_RANGES ranges are read.
 */
export function matchLocale<L extends string>(fullHeader: string | null, available: readonly L[]) {
  if (!fullHeader) return undefined;
  const header = fullHeader.slice(0, MAX_READ);
  const ranges: { tag: string; weight: number }[] = [];
  for (let start = 0; start < header.length && ranges.length < MAX_RANGES;) {
    const end = header.indexOf(",", start);
    const stop = end === -1 ? header.length : end;
    const match = stop - start <= MAX_RANGE_LENGTH ? RANGE.exec(header.slice(start, stop)) : null;
    const weight = match ? Number(match[2] ?? 1) : 0;
    if (match && weight > 0) ranges.push({ tag: match[1]!.toLowerCase(), weight });
    start = stop + 1;
  }
  ranges.sort((a, b) => b.weight - a.weight);
  const byTag = new Map(available.map((locale) => [locale.toLowerCase(), locale]));
  for (const { tag } of ranges) {
    for (let candidate = tag; candidate; candidate = candidate.replace(/-?[^-]*$/, "")) {
      const found = byTag.get(candidate);
      if (found) return found;
    }
  }
  return undefined;
}

/** The locales a visitor may be shown: the shipped ones, and the pseudo-locales when asked for. */
export const getAvailableLocales = (pseudo: boolean): readonly Locale[] =>
  pseudo ? [...LOCALES, ...PSEUDO_LOCALES] : LOCALES;

export const isLocale = (value: unknown, pseudo: boolean): value is Locale =>
  getAvailableLocales(pseudo).includes(value as Locale);
