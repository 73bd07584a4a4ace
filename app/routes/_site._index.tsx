import type { LoaderFunctionArgs } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { getMessages } from "~/i18n/locale.server";
import { shellMessages } from "~/i18n/messages.server";
import { useTranslate } from "~/i18n/translate";
import { APP_NAME } from "~/lib/constants";

export async function loader({ request }: LoaderFunctionArgs) {
  return { messages: await getMessages(request, shellMessages, "home") };
}

export default function HomePage() {
  const t = useTranslate();
  return (
    <>
      <h1 translate="no">{APP_NAME}</h1>
      <p>{t("home.intro")}</p>
    </>
  );
}

// A post here (there is no action) answers 405 inside the layout: a failed write runs only the
// loaders above the boundary that shows it, and the root's boundary would have no words.
export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
