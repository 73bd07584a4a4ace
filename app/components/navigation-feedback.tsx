import { useFetchers, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

const PROGRESS_DELAY_MS = 150;

/** False on the server and in the first client render, so JavaScript-only UI never reaches a no-JS page. */
function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** A thin bar at the top while a navigation or submission takes longer than a moment. */
export function NavigationProgress() {
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const busy = navigation.state !== "idle" || fetchers.some((fetcher) => fetcher.state !== "idle");
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    if (!busy) {
      setVisible(false);
      return;
    }
    const timer = setTimeout(() => setVisible(true), PROGRESS_DELAY_MS);
    return () => clearTimeout(timer);
  }, [busy]);

  if (!hydrated || !visible) return null;
  return <div className="navigation-progress" role="progressbar" aria-label="Loading" aria-valuetext="Loading" />;
}

/**
 * Tells screen-reader users that a client-side navigation changed the page, as a full page load
 * would, by announcing the new page's title.
 */
export function RouteAnnouncer() {
  const hydrated = useHydrated();
  const { pathname } = useLocation();
  const [announcement, setAnnouncement] = useState("");
  const previousPathname = useRef(pathname);

  useEffect(() => {
    if (pathname === previousPathname.current) return;
    previousPathname.current = pathname;
    // The new title is in the document only after this render has been committed.
    const frame = requestAnimationFrame(() => setAnnouncement(document.title));
    return () => cancelAnimationFrame(frame);
  }, [pathname]);

  if (!hydrated) return null;
  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  );
}
