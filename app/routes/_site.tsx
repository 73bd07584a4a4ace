import { Link, Outlet, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { ThemeControl } from "~/routes/_site.preferences.theme/theme-control";
import { getPublicConfig } from "~/lib/config.server";
import type { loader as rootLoader } from "~/root";

export function loader() {
  return getPublicConfig();
}

/** The frame every page renders in: header, main content and footer. */
export default function SiteLayout() {
  const { appName, version } = useLoaderData<typeof loader>();
  const rootData = useRouteLoaderData<typeof rootLoader>("root");
  return (
    <>
      <header className="site-header">
        <Link to="/" className="site-name">
          {appName}
        </Link>
        <ThemeControl theme={rootData?.theme ?? "system"} />
      </header>
      <main id="main" tabIndex={-1}>
        <div className="flash" role="status">
          {rootData?.flash ? <p>{rootData.flash}</p> : null}
        </div>
        <Outlet />
      </main>
      <footer className="site-footer">
        <p>Version {version}</p>
      </footer>
    </>
  );
}
