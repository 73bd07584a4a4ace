import type { LoaderFunctionArgs } from "@remix-run/node";
import { data } from "@remix-run/node";
import {
  Form,
  Link,
  Outlet,
  type ShouldRevalidateFunction,
  useLoaderData,
  useLocation,
  useRouteLoaderData,
} from "@remix-run/react";
import { getUser } from "~/auth/guards.server";
import { takeFlash } from "~/forms/index.server";
import { getSignInHref, type User } from "~/auth/user";
import { NavigationProgress } from "~/components/navigation-feedback";
import { useTranslate } from "~/i18n/translate";
import { getConfig, getPublicConfig } from "~/lib/config.server";
import type { loader as rootLoader } from "~/root";
import { LanguageControl } from "~/routes/_site.preferences.language/language-control";
import { ThemeControl } from "~/routes/_site.preferences.theme/theme-control";

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, { flash, headers: flashHeaders }] = await Promise.all([
    getUser(request),
    takeFlash(request),
  ]);
  for (const cookie of flashHeaders.getSetCookie()) headers.append("Set-Cookie", cookie);
  const { signIn, API_MOCK: apiMock } = getConfig();
  return data({ ...getPublicConfig(), signIn: signIn !== null, apiMock, user, flash }, { headers });
}

// On every navigation: the session is read (its cookie renewed, its tokens refreshed), and a flash
// is shown on one page only.
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  defaultShouldRevalidate,
}) => defaultShouldRevalidate || currentUrl.href !== nextUrl.href;

export default function SiteLayout() {
  const { appName, version, signIn, apiMock, user, flash } = useLoaderData<typeof loader>();
  const rootData = useRouteLoaderData<typeof rootLoader>("root");
  const t = useTranslate();
  return (
    <>
      {apiMock ? (
        <p className="api-mock-notice">
          {t("layout.apiMock")} <a href="/_api-mock">{t("layout.apiMockLink")}</a>
        </p>
      ) : null}
      <header className="site-header">
        <NavigationProgress />
        {/* The product's name is the same in every language. */}
        <Link to="/" className="site-name" translate="no">
          {appName}
        </Link>
        <ThemeControl theme={rootData?.theme ?? "system"} />
        <LanguageControl locale={t.locale} />
        {signIn ? <VisitorControl user={user} /> : null}
      </header>
      <main id="main" tabIndex={-1}>
        <div className="flash" role="status">
          {flash ? <p>{flash}</p> : null}
        </div>
        <Outlet />
      </main>
      <footer className="site-footer">
        <p>{t("layout.version", { version })}</p>
      </footer>
    </>
  );
}

// Both leave for the provider, so both are whole-document requests, with or without JavaScript.
function VisitorControl({ user }: { user: User | null }) {
  const { pathname, search } = useLocation();
  const t = useTranslate();
  if (!user) {
    const here = pathname.startsWith("/auth/") ? "/" : pathname + search;
    return (
      <a className="visitor" href={getSignInHref(here)}>
        {t("layout.signIn")}
      </a>
    );
  }
  return (
    <Form method="post" action="/auth/sign-out" reloadDocument className="visitor">
      <span>{user.name}</span> <button type="submit">{t("layout.signOut")}</button>
    </Form>
  );
}
