import { getConfig } from "~/lib/config.server";
import { createSignedCookie } from "~/lib/cookies.server";
import { DEFAULT_LOCALE, getAvailableLocales, isLocale, matchLocale, type Locale } from "./locales";
import { pickMessages, shellMessages, type Catalogues } from "./messages.server";
import { createTranslator } from "./translate";

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

const localeCookie = createSignedCookie("locale", ONE_YEAR_SECONDS);

const chosen = new WeakMap<Request, Promise<Locale>>();

/**
 * The visitor's locale: the one they chose (the language form's cookie), else the best match for
 * Accept-Language, else the default. A cookie that is unsigned, tampered or names no locale here
 * counts as no choice.
 */
export function getLocale(request: Request): Promise<Locale> {
  let locale = chosen.get(request);
  if (!locale) {
    locale = readLocale(request);
    chosen.set(request, locale);
  }
  return locale;
}

async function readLocale(request: Request) {
  const pseudo = getConfig().PSEUDO_LOCALES;
  const cookie: unknown = await localeCookie.parse(request.headers.get("Cookie"));
  if (isLocale(cookie, pseudo)) return cookie;
  const header = request.headers.get("Accept-Language");
  return matchLocale(header, getAvailableLocales(pseudo)) ?? DEFAULT_LOCALE;
}

export function serializeLocale(locale: Locale) {
  return localeCookie.serialize(locale);
}

/** A page's language in its headers; its words depend on the cookie and Accept-Language. */
export async function setLanguageHeaders(headers: Headers, request: Request) {
  headers.set("Content-Language", await getLocale(request));
  headers.append("Vary", "Accept-Language, Cookie");
}

/** The words a loader hands its page: `catalogues`' keys under `prefixes`, in the visitor's locale. */
export async function getMessages(request: Request, catalogues: Catalogues, ...prefixes: string[]) {
  return pickMessages(await getLocale(request), catalogues, prefixes);
}

/** What the root's loader hands every page (`LocaleData`): the locale, the shell's words. */
export async function getLocaleData(request: Request, prefixes: string[]) {
  const locale = await getLocale(request);
  const messages = pickMessages(locale, shellMessages, prefixes);
  return { locale, timeZone: getConfig().TIME_ZONE, messages };
}

/** For what an action writes (a flash, a message): `catalogues` in `locale`, else the visitor's. */
export async function getTranslator(
  request: Request,
  catalogues: Catalogues = shellMessages,
  locale?: Locale,
) {
  const shown = locale ?? (await getLocale(request));
  const prefixes = [...new Set(Object.keys(catalogues.en).map((key) => key.split(".")[0]!))];
  return createTranslator(shown, pickMessages(shown, catalogues, prefixes), getConfig().TIME_ZONE);
}
