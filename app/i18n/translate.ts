import { useMatches } from "@remix-run/react";
import { useMemo } from "react";
import { APP_NAME } from "~/lib/constants";
import { DEFAULT_LOCALE, getSourceLocale, type Locale } from "./locales";

// Messages formatted with the browser's and Node's own Intl (decision 026): `{name}` takes a
// value, a plural message picks its form by `count`, numbers and dates follow the locale.

/** A message by plural category (Intl.PluralRules): `other` always, the rest as the language has them. */
export type PluralMessage = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
export type Message = string | PluralMessage;
export type Messages = Record<string, Message>;

/** Every message key; each area's English catalogue adds its own (`declare module`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by augmentation
export interface MessageKeys {}
export type MessageKey = keyof MessageKeys & string;

type Values = Record<string, string | number>;

export type Translate = {
  (key: MessageKey, values?: Values): string;
  locale: Locale;
  /** The TIME_ZONE setting: dates are written, and date-time fields read, on its clocks. */
  timeZone: string;
  number: (value: number) => string;
  /** In the TIME_ZONE setting's zone, so that the server and the browser write the same. */
  date: (value: Date | string | number, options?: Intl.DateTimeFormatOptions) => string;
  /** A form's error: a message key (a schema's), else shown as it is (the API's own words). */
  text: (keyOrText: string) => string;
  /** A page's title: `page`, then the product's name. */
  title: (page?: string) => string;
};

// Pinned, not left to each ICU's data: Node's and the browser's can differ on a locale's digits.
const NUMBERING: Record<Locale, string> = {
  en: "latn",
  ar: "latn",
  "en-XA": "fullwide",
  "ar-XB": "fullwide",
};

const formats = new Map<Locale, { plural: Intl.PluralRules; number: Intl.NumberFormat }>();

function getFormats(locale: Locale) {
  let found = formats.get(locale);
  if (!found) {
    const numberingSystem = NUMBERING[locale];
    const plural = new Intl.PluralRules(getSourceLocale(locale));
    found = { plural, number: new Intl.NumberFormat(locale, { numberingSystem }) };
    formats.set(locale, found);
  }
  return found;
}

export function createTranslator(locale: Locale, messages: Messages, timeZone: string): Translate {
  const { plural, number } = getFormats(locale);
  const format = (value: string | number) =>
    typeof value === "number" ? number.format(value) : value;
  const t = (key: string, values: Values = {}) => {
    const message = Object.hasOwn(messages, key) ? messages[key]! : key;
    const count = values.count;
    const template =
      typeof message === "string"
        ? message
        : (typeof count === "number" && message[plural.select(count)]) || message.other;
    return template.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
      Object.hasOwn(values, name) ? format(values[name]!) : placeholder,
    );
  };
  return Object.assign(t, {
    locale,
    timeZone,
    number: (value: number) => number.format(value),
    date: (value: Date | string | number, options?: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat(locale, {
        numberingSystem: NUMBERING[locale],
        ...options,
        timeZone,
      }).format(new Date(value)),
    text: (keyOrText: string) => (Object.hasOwn(messages, keyOrText) ? t(keyOrText) : keyOrText),
    title: (page?: string) => (page ? t("meta.title", { page, app: APP_NAME }) : APP_NAME),
  });
}

/** What the root's loader gives every page: its locale, its time zone and the shell's words. */
export type LocaleData = { locale: Locale; timeZone: string; messages: Messages };

type Match = { id: string; data: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** The translator for the routes matched: every loader's `messages`, the root's locale. */
export function getTranslatorFor(matches: Match[]): Translate {
  const root = matches.find((match) => match.id === "root")?.data as LocaleData | undefined;
  const messages: Messages = {};
  for (const { data } of matches)
    if (isObject(data) && isObject(data.messages)) Object.assign(messages, data.messages);
  return createTranslator(root?.locale ?? DEFAULT_LOCALE, messages, root?.timeZone ?? "UTC");
}

/** The words of the page's routes, in its locale: loaders hand them over, nothing is fetched. */
export function useTranslate() {
  const matches = useMatches();
  return useMemo(() => getTranslatorFor(matches), [matches]);
}
