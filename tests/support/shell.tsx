import { Outlet } from "@remix-run/react";
import { createRemixStub } from "@remix-run/testing";
import { pickMessages, shellMessages } from "~/i18n/messages.server";
import type { Locale } from "~/i18n/locales";
import type { LocaleData } from "~/i18n/translate";
import { errorCatalogue, type ErrorCode } from "~/lib/errors";

const en = shellMessages.en;

/** An error's status and words as a visitor whose browser asks for no language sees them. */
export function getEnglishError(code: ErrorCode) {
  const { status } = errorCatalogue[code];
  return { status, title: en[`errors.${code}.title`], message: en[`errors.${code}.message`] };
}

/** The shell's words in `locale`, as the root's loader hands them to every page. */
export function getShellData(locale: Locale = "en"): LocaleData {
  const prefixes = [...new Set(Object.keys(en).map((key) => key.split(".")[0]!))];
  return { locale, timeZone: "UTC", messages: pickMessages(locale, shellMessages, prefixes) };
}

type StubRoutes = Parameters<typeof createRemixStub>[0];

/** `createRemixStub` with the app's root above `routes`: its locale and the shell's words. */
export function createShellStub(routes: StubRoutes, locale: Locale = "en") {
  const data = getShellData(locale);
  return createRemixStub([
    { id: "root", path: "/", Component: Outlet, loader: () => data, children: routes },
  ]);
}
