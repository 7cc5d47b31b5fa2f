// The badge renderer against the packages it replaces (dev dependencies only, never bundled):
// anafanafo's Verdana 11px table for every character, badge-maker for every badge the service can draw.
import anafanafo from "anafanafo";
import { makeBadge } from "badge-maker";
import { describe, expect, it } from "vitest";
import { BADGE_COLOURS, badgeFace, badgeSvg, SUSPENDED_FACE, textWidth, UNKNOWN_FACE, VERDANA_11PX, type BadgeColour } from "../../src/http/wire/badge-svg";

const FONT = { font: "11px Verdana" };
/** Every face the badge route can render: each score with each recommendation and identity level, `unknown` and `suspended`. */
const faces: [string, BadgeColour][] = [
  [UNKNOWN_FACE.message, UNKNOWN_FACE.color],
  [SUSPENDED_FACE.message, SUSPENDED_FACE.color],
];
for (let composite = 0; composite <= 1000; composite++) {
  for (const recommendation of ["clear", "review", "caution"] as const) {
    for (const identityLevel of [0, 1, 2]) {
      const face = badgeFace({ composite, recommendation, identityLevel });
      faces.push([face.message, face.color]);
    }
  }
}

describe("badge text widths", () => {
  it("match anafanafo's Verdana 11px width of every character in the table", () => {
    for (const [char, width] of Object.entries(VERDANA_11PX)) {
      expect(anafanafo(char, { ...FONT, guess: false }), char).toBe(width);
    }
  });

  it("cover every character of the label and of every message", () => {
    const used = new Set([..."trust", ...faces.flatMap(([message]) => [...message])]);
    expect([...used].filter((char) => !(char in VERDANA_11PX))).toEqual([]);
  });

  it("round like badge-maker: truncated, then up to an odd number", () => {
    for (const text of ["trust", ...faces.map(([message]) => message)]) {
      const truncated = anafanafo(text, FONT) | 0;
      expect(textWidth(text), text).toBe(truncated % 2 === 0 ? truncated + 1 : truncated);
    }
  });

  it("refuse a character outside the table instead of guessing", () => {
    expect(() => textWidth("trust <b>")).toThrow(/no Verdana width/);
  });
});

describe("badgeFace", () => {
  it("is `suspended` in grey for a suspended agent, whatever its last score", () => {
    for (const recommendation of ["clear", "review", "caution"] as const) {
      expect(badgeFace({ composite: 812, recommendation, identityLevel: 2, status: "suspended" })).toEqual({ message: "suspended", color: "lightgrey" });
      expect(badgeFace({ composite: 812, recommendation, identityLevel: 2, status: "active" }).message).toBe(`812 · ${recommendation} · L2`);
    }
  });
});

describe("badgeSvg", () => {
  it("is byte for byte badge-maker's flat badge, for every face the service can draw", () => {
    for (const [message, colour] of faces) {
      expect(badgeSvg("trust", message, colour), message).toBe(makeBadge({ label: "trust", message, color: colour, style: "flat" }));
    }
  });

  it("paints badge-maker's named colours", () => {
    for (const [name, hex] of Object.entries(BADGE_COLOURS)) {
      expect(badgeSvg("trust", "unknown", name as BadgeColour)).toContain(`fill="${hex}"`);
      expect(makeBadge({ label: "trust", message: "unknown", color: name, style: "flat" })).toContain(`fill="${hex}"`);
    }
  });
});
