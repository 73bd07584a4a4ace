export function loader() {
  return { rule: null };
}

export default function UnstatedRulePage() {
  return <p>No rule of its own</p>;
}
