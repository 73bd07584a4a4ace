import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  type ShouldRevalidateFunction,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { GeneralErrorBoundary } from "./components/error-boundary";
import { RouteAnnouncer } from "./components/navigation-feedback";
import { getLocaleData } from "./i18n/locale.server";
import { DEFAULT_LOCALE, getDirection } from "./i18n/locales";
import { getTranslatorFor, useTranslate } from "./i18n/translate";
import { useNonce } from "./lib/nonce";
import { useShouldHydrate } from "./lib/route-handle";
import { useWebVitals } from "./lib/web-vitals";
import { usePendingTheme } from "./routes/_site.preferences.theme/theme-control";
import { getTheme } from "./routes/_site.preferences.theme/theme.server";
import baseStylesHref from "./styles/base.css";
import formStylesHref from "./styles/forms.css";
import layoutStylesHref from "./styles/layout.css";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: baseStylesHref },
  { rel: "stylesheet", href: layoutStylesHref },
  { rel: "stylesheet", href: formStylesHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

// The shell's words, on every page: the layout, its controls, errors and the forms' summaries.
const SHELL_MESSAGES = ["app", "meta", "layout", "theme", "language", "forms", "errors"];

export async function loader({ request }: LoaderFunctionArgs) {
  const [theme, localeData] = await Promise.all([
    getTheme(request),
    getLocaleData(request, SHELL_MESSAGES),
  ]);
  return { theme, ...localeData };
}

// Read after an action's 4xx too, so the whole page shows what is true now, as it does without
// JavaScript (single fetch then reloads every route that has no shouldRevalidate of its own).
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  actionStatus,
  defaultShouldRevalidate,
}) =>
  defaultShouldRevalidate ||
  currentUrl.href !== nextUrl.href ||
  (actionStatus !== undefined && actionStatus >= 400 && actionStatus < 500);

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const rootData = useRouteLoaderData<typeof loader>("root");
  const hydrate = useShouldHydrate();
  useWebVitals();
  const theme = usePendingTheme() ?? rootData?.theme ?? "system";
  const locale = rootData?.locale ?? DEFAULT_LOCALE;
  const t = useTranslate();
  return (
    <html lang={locale} dir={getDirection(locale)} data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          {t("layout.skipLink")}
        </a>
        <RouteAnnouncer />
        {children}
        {hydrate ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
            <LiveReload nonce={nonce} />
          </>
        ) : null}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export const meta: MetaFunction = ({ matches }) => {
  const t = getTranslatorFor(matches);
  return [{ title: t.title() }, { name: "description", content: t("app.description") }];
};

/** Reached only when the site layout itself fails, so it renders its own landmark. */
export function ErrorBoundary() {
  return (
    <main id="main" tabIndex={-1}>
      <GeneralErrorBoundary />
    </main>
  );
}
