// An inline script without the nonce, as an injection would add one: the policy blocks it and the
// browser reports the violation.
export default function InlineScriptPage() {
  return (
    <>
      <h1>Inline script</h1>
      <script dangerouslySetInnerHTML={{ __html: "document.title = 'ran';" }} />
    </>
  );
}
