export function App() {
  return <h1>acme</h1>;
}
