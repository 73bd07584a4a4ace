import { APP_NAME } from "~/lib/constants";

export default function HomePage() {
  return (
    <>
      <h1>{APP_NAME}</h1>
      <p>This application is being built; its pages will appear here as they are specified.</p>
    </>
  );
}
