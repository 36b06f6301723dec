export function start(port: number): void {
  console.log(`api listening on ${port}`);
}
