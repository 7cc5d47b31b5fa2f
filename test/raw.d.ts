// Vite's `?raw` imports: the file's text (used to check docs against the code).
declare module "*.md?raw" {
  const text: string;
  export default text;
}
declare module "*.mjs?raw" {
  const text: string;
  export default text;
}
declare module "*.csv?raw" {
  const text: string;
  export default text;
}
