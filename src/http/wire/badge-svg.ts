// The trust badge as SVG: the shields.io "flat" style, byte for byte what badge-maker 6 renders for
// the same label, message and named colour, without its 1 MB of font tables. Text widths come from
// the Verdana 11px advance widths of the only characters a badge can show (label `trust`, messages
// `<0-1000> · <clear|review|caution>[ · L<level>]`, `suspended` and `unknown`), copied from anafanafo 2.0.0's
// data/verdana-11px-normal.json; test/http/badge-svg.test.ts checks them against anafanafo and the
// whole SVG against badge-maker, so neither can drift.

/** shields.io named colours, as badge-maker 6 paints them. */
export const BADGE_COLOURS = {
  green: "#67ac09",
  yellow: "#d8b800",
  red: "#dd4343",
  lightgrey: "#939393",
} as const;
export type BadgeColour = keyof typeof BADGE_COLOURS;

/** Verdana 11px advance width in px of every character a badge can show. */
export const VERDANA_11PX: Readonly<Record<string, number>> = {
  " ": 3.87,
  "·": 4,
  "0": 6.99,
  "1": 6.99,
  "2": 6.99,
  "3": 6.99,
  "4": 6.99,
  "5": 6.99,
  "6": 6.99,
  "7": 6.99,
  "8": 6.99,
  "9": 6.99,
  a: 6.61,
  c: 5.73,
  d: 6.85,
  e: 6.55,
  i: 3.02,
  k: 6.51,
  l: 3.02,
  n: 6.96,
  o: 6.68,
  p: 6.85,
  r: 4.69,
  s: 5.73,
  t: 4.33,
  u: 6.96,
  v: 6.51,
  w: 9,
  L: 6.12,
};

/** What a badge shows: the label, and a message and colour from the agent's public face. */
export const BADGE_LABEL = "trust";
const RECOMMENDATION_COLOURS = { clear: "green", review: "yellow", caution: "red" } as const satisfies Record<string, BadgeColour>;
export const UNKNOWN_FACE = { message: "unknown", color: "lightgrey" } as const satisfies { message: string; color: BadgeColour };
/** A suspended agent shows no score: its last one is no recommendation while it is suspended. */
export const SUSPENDED_FACE = { message: "suspended", color: "lightgrey" } as const satisfies { message: string; color: BadgeColour };

/**
 * `<composite> · <recommendation>`, and the identity level once the agent proved one
 * (`812 · clear · L2`): a page that embeds the badge shows whether the agent is who it says. A
 * suspended agent's badge reads `suspended`, in grey.
 */
export function badgeFace(face: { composite: number; recommendation: keyof typeof RECOMMENDATION_COLOURS; identityLevel: number; status?: string }): {
  message: string;
  color: BadgeColour;
} {
  if (face.status === "suspended") return { ...SUSPENDED_FACE };
  const level = face.identityLevel > 0 ? ` · L${face.identityLevel}` : "";
  return { message: `${face.composite} · ${face.recommendation}${level}`, color: RECOMMENDATION_COLOURS[face.recommendation] };
}

const LABEL_COLOUR = "#555";
const PADDING = 5;
const FONT_FAMILY = "Verdana,Geneva,DejaVu Sans,sans-serif";

/**
 * The width badge-maker gives a text: the sum of the advances (added left to right, as anafanafo
 * does, so the float rounding is the same), truncated, then rounded up to an odd number.
 */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const advance = VERDANA_11PX[char];
    if (advance === undefined) throw new Error(`badge: no Verdana width for ${JSON.stringify(char)}`);
    width += advance;
  }
  const truncated = width | 0;
  return truncated % 2 === 0 ? truncated + 1 : truncated;
}

/** One text with its shadow, in tenths of a pixel (badge-maker scales fonts up by 10 for precision). */
function text(content: string, left: number, width: number): string {
  const x = 10 * (left + 0.5 * width + PADDING);
  const length = 10 * width;
  return (
    `<g transform="scale(.1)"><g aria-hidden="true" fill="#010101">` +
    `<text x="${x}" y="150" fill-opacity=".8" filter="url(#blur)" textLength="${length}">${content}</text>` +
    `<text x="${x}" y="150" fill-opacity=".3" textLength="${length}">${content}</text></g>` +
    `<text x="${x}" y="140" textLength="${length}">${content}</text></g>`
  );
}

/**
 * The flat-style badge. Every colour of the palette is dark enough for white text, so no text
 * carries its own fill. Label and message need no XML escaping: `textWidth` refuses any character
 * outside the table, and none in it is special.
 */
export function badgeSvg(label: string, message: string, colour: BadgeColour): string {
  const labelWidth = textWidth(label);
  const messageWidth = textWidth(message);
  const left = labelWidth + 2 * PADDING;
  const right = messageWidth + 2 * PADDING;
  const width = left + right;
  const title = `${label}: ${message}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<filter id="blur"><feGaussianBlur stdDeviation="16"/></filter>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${left}" height="20" fill="${LABEL_COLOUR}"/>` +
    `<rect x="${left}" width="${right}" height="20" fill="${BADGE_COLOURS[colour]}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="${FONT_FAMILY}" text-rendering="geometricPrecision" font-size="110">` +
    text(label, 1, labelWidth) +
    text(message, left - 1, messageWidth) +
    `</g></svg>`
  );
}
