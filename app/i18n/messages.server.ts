import { getSourceLocale, type Locale, type ShippedLocale } from "./locales";
import ar from "./shell.ar.server";
import en from "./shell.en.server";
import type { Message, Messages } from "./translate";

// Catalogues stay on the server: a page gets the words of its own locale and routes only.

/** An area's words in every shipped locale, each with the English catalogue's keys. */
export type Catalogues<M extends Messages = Messages> = Record<ShippedLocale, M>;

/** A catalogue in another locale: the same keys as English, each message written for it. */
export type Translation<M extends Messages> = { [Key in keyof M]: Message };

/** The shell's words: layout, errors, forms, the theme and language controls, the shell's pages. */
export const shellMessages: Catalogues<typeof en> = { en, ar };

const picked = new WeakMap<Catalogues, Map<string, Messages>>();

/** The messages of `catalogues` in `locale` whose keys start with one of `prefixes` and a dot. */
export function pickMessages(locale: Locale, catalogues: Catalogues, prefixes: string[]) {
  const byPrefixes = picked.get(catalogues) ?? new Map<string, Messages>();
  picked.set(catalogues, byPrefixes);
  const cacheKey = `${locale} ${prefixes.join(" ")}`;
  let messages = byPrefixes.get(cacheKey);
  if (!messages) {
    const source = Object.entries(catalogues[getSourceLocale(locale)]);
    const entries = source.filter(([key]) =>
      prefixes.some((prefix) => key.startsWith(`${prefix}.`)),
    );
    const mark = locale === "en-XA" ? markPseudo : locale === "ar-XB" ? markPseudoRtl : undefined;
    messages = Object.fromEntries(
      mark ? entries.map(([key, value]) => [key, mapMessage(value, mark)]) : entries,
    );
    byPrefixes.set(cacheKey, messages);
  }
  return messages;
}

const mapMessage = (message: Message, map: (text: string) => string): Message =>
  typeof message === "string"
    ? map(message)
    : (Object.fromEntries(
        Object.entries(message).map(([form, text]) => [form, map(text!)]),
      ) as Message);

const ACCENTED: Record<string, string> = Object.fromEntries(
  [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"].map((letter, i) => [
    letter,
    [..."åƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ"][i]!,
  ]),
);

/** Pseudo-localised: every letter accented (placeholders kept), the whole between ⟦ and ⟧. */
export const PSEUDO_OPEN = "⟦";
export const PSEUDO_CLOSE = "⟧";

function markPseudo(text: string) {
  const accented = text
    .split(/(\{\w+\})/)
    .map((part, i) => (i % 2 ? part : part.replace(/[a-z]/gi, (letter) => ACCENTED[letter]!)))
    .join("");
  return `${PSEUDO_OPEN}${accented}${PSEUDO_CLOSE}`;
}

// The same words written right to left (U+202E, then U+202C closes it), as Chrome's ar-XB does.
const markPseudoRtl = (text: string) => markPseudo(`\u202e${text}\u202c`);
