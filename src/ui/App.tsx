export function App() {
  return <h1>Rate Limit Lab</h1>;
}
