// anafanafo ships no types; the badge test uses its measuring function only.
declare module "anafanafo" {
  export default function measure(text: string, options: { font: string; guess?: boolean }): number;
}
