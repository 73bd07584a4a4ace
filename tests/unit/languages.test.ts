import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES, matchLocale, PSEUDO_LOCALES, type Locale } from "~/i18n/locales";
import { pickMessages, shellMessages, type Catalogues } from "~/i18n/messages.server";
import { createTranslator, type Message, type Messages } from "~/i18n/translate";
import { errorCatalogue } from "~/lib/errors";
// In the app: "~/i18n/things.server".
import { thingMessages } from "../fixtures/reference-app/app/i18n/things.server";

const root = path.resolve(import.meta.dirname, "../..");
const available = [...LOCALES, ...PSEUDO_LOCALES];

describe("the locale a request's Accept-Language picks", () => {
  it.each([
    ["ar", "ar"],
    ["ar-EG", "ar"],
    ["AR-eg", "ar"],
    ["ar-Arab-EG-u-nu-arab", "ar"],
    ["fr-CA, ar;q=0.5", "ar"],
    ["en-GB,en;q=0.9,ar;q=0.8", "en"],
    ["ar;q=0.9, en;q=0.95", "en"],
    ["en;q=0.001, ar", "ar"],
    ["fr-CA", undefined],
    ["*", undefined],
    ["ar;q=0", undefined],
    ["ar;q=2", undefined],
    ["ar;q=0.5x", undefined],
    ["ar-", undefined],
    ["a\u0000r", undefined],
    [";;;,,,ar", "ar"],
    ["", undefined],
    [null, undefined],
    ["en-XA", "en"],
    ["ar-XB", "ar"],
    [`${"zz;q=0.9, ".repeat(16)}ar`, undefined],
    [`${"zz, ".repeat(15)}ar`, "ar"],
    [`${"x".repeat(1_000)}, ar`, "ar"],
    [`${"x".repeat(1_024)}, ar`, undefined],
    [`ar-${"a".repeat(70)}`, undefined],
  ])("%j gets %s", (header, expected) => {
    expect(matchLocale(header, LOCALES)).toBe(expected);
  });

  it("offers the pseudo-locales only when they are available", () => {
    expect(matchLocale("en-XA", available)).toBe("en-XA");
    expect(matchLocale("ar-xb", available)).toBe("ar-XB");
  });
});

type Case = [Locale, number, string];

describe("messages formatted with Intl", () => {
  const t = (locale: Locale, timeZone = "UTC") =>
    createTranslator(locale, pickMessages(locale, thingMessages, ["things"]), timeZone);

  it.each<Case>([
    ["en", 0, "0 comments"],
    ["en", 1, "1 comment"],
    ["en", 2, "2 comments"],
    ["en", 1000, "1,000 comments"],
    ["ar", 0, "لا تعليقات"],
    ["ar", 1, "تعليق واحد"],
    ["ar", 2, "تعليقان"],
    ["ar", 3, "3 تعليقات"],
    ["ar", 11, "11 تعليقًا"],
    ["ar", 100, "100 تعليق"],
    ["en-XA", 2, "⟦２ çöɱɱéñţš⟧"],
  ])("%s: %i is %j", (locale, count, expected) => {
    expect(t(locale)("things.thing.comments", { count })).toBe(expected);
  });

  it("fills placeholders, keeps one without a value, and shows a missing key as it is", () => {
    expect(t("en")("things.stock.nowHas", { name: "Amber", quantity: 1200 })).toBe(
      "Amber now has 1,200.",
    );
    expect(t("en")("things.thing.edit")).toBe("Edit {name}");
    expect(t("en")("no.such.key" as never)).toBe("no.such.key");
    expect(t("en").text("things.form.nameRequired")).toBe("Enter a name.");
    expect(t("en").text("The API's own words.")).toBe("The API's own words.");
  });

  it("writes dates in the configured time zone, whatever the machine's", () => {
    const time = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" } as const;
    expect(t("en").date(0, time)).toBe("00:00");
    expect(t("en", "Asia/Tokyo").date("1970-01-01T00:00:00Z", time)).toBe("09:00");
  });
});

// Every area's catalogues (`<area>.<locale>.server.ts`) of the app and of every feature the
// reference app adds beside it, found by their English one.
const areas = ["app", "tests/fixtures/reference-app/app"].flatMap((dir) =>
  readdirSync(path.join(root, dir, "i18n")).flatMap((file) => {
    const area = /^([\w-]+)\.en\.server\.ts$/.exec(file)?.[1];
    return area ? [`${dir}/i18n/${area}`] : [];
  }),
);

const readCatalogues = async (area: string) =>
  Object.fromEntries(
    await Promise.all(
      LOCALES.map(async (locale) => {
        const file = path.join(root, `${area}.${locale}.server.ts`);
        return [locale, ((await import(file)) as { default: Messages }).default];
      }),
    ),
  ) as Catalogues;

const placeholders = (message: Message) => {
  const text = typeof message === "string" ? message : Object.values(message).join(" ");
  return [...new Set(text.match(/\{\w+\}/g))].sort();
};

describe.each(areas)("the catalogues of %s", (area) => {
  it.each(LOCALES)(
    "%s has every English key, the same placeholders, its own plural forms",
    async (locale) => {
      const byLocale = await readCatalogues(area);
      const [english, messages] = [byLocale.en, byLocale[locale]];
      expect(Object.keys(messages).sort()).toEqual(Object.keys(english).sort());
      const forms = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      for (const [key, message] of Object.entries(messages)) {
        expect(placeholders(message), key).toEqual(placeholders(english[key]!));
        if (typeof message !== "string")
          expect(Object.keys(message).sort(), key).toEqual([...forms].sort());
      }
    },
  );

  it.each(PSEUDO_LOCALES)("%s marks every message, its placeholders kept", async (locale) => {
    const byLocale = await readCatalogues(area);
    const prefixes = Object.keys(byLocale.en).map((key) => key.split(".")[0]!);
    for (const [key, message] of Object.entries(pickMessages(locale, byLocale, prefixes))) {
      const texts = typeof message === "string" ? [message] : Object.values(message);
      for (const text of texts) expect(text, key).toMatch(/^⟦.*⟧$/s);
      expect(placeholders(message), key).toEqual(placeholders(byLocale.en[key]!));
    }
  });
});

it("words every error of the catalogue", () => {
  for (const code of Object.keys(errorCatalogue))
    for (const part of ["title", "message"])
      expect(shellMessages.en, code).toHaveProperty([`errors.${code}.${part}`]);
});
